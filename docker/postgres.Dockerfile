# PostgreSQL 15 with the mcp_notes extension installed; the scripts in
# initdb/ create it and the gateway role on first start.
FROM postgres:15-bookworm
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      make gcc libc6-dev postgresql-server-dev-15 \
 && rm -rf /var/lib/apt/lists/*
COPY extension/ /src/extension/
RUN make -C /src/extension install \
 && apt-get purge -y make gcc postgresql-server-dev-15 && apt-get autoremove -y
COPY docker/initdb/ /docker-entrypoint-initdb.d/
COPY sql/demo.sql /opt/mcp_notes/demo.sql
