# PostgreSQL 15 from Debian 12 with the mcp_notes extension built in.  The
# entrypoint (docker/db-entrypoint) initialises the data directory on the
# first start and runs the one-shot setup (docker/db-setup) on every start.
# No password is baked in: they come from the environment or secret files.
# The build stage is gateway.Dockerfile's, line for line (one cached layer).
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      make gcc pkg-config libc6-dev libpq-dev libmicrohttpd-dev libjson-c-dev libssl-dev postgresql-server-dev-15 \
 && rm -rf /var/lib/apt/lists/*
COPY extension/ /src/extension/
RUN make -C /src/extension clean \
 && make -C /src/extension \
 && make -C /src/extension install DESTDIR=/out

FROM debian:12
# Debian's package would create a cluster of its own at install time: the
# entrypoint makes the one cluster, in the volume.
RUN mkdir -p /etc/postgresql-common/createcluster.d \
 && echo 'create_main_cluster = false' > /etc/postgresql-common/createcluster.d/no-main-cluster.conf \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql-15 \
 && rm -rf /var/lib/apt/lists/*
COPY --from=build /out/ /
COPY share/demo.sql /opt/mcp_notes/demo.sql
COPY docker/db-entrypoint docker/db-setup /usr/local/bin/
ENV PGDATA=/var/lib/postgresql/data PATH=/usr/lib/postgresql/15/bin:$PATH
VOLUME /var/lib/postgresql/data
EXPOSE 5432
STOPSIGNAL SIGINT
HEALTHCHECK --interval=5s --timeout=3s CMD pg_isready -q -h 127.0.0.1 -d notes -U mcp_gateway || exit 1
LABEL io.mcp-notes.image=db
ENTRYPOINT ["/usr/local/bin/db-entrypoint"]
