# mcp-notes-gateway: built on Debian 12, run on Debian 12 with only the
# runtime libraries, as the unprivileged user mcp.  No USER line: the
# entrypoint starts as root to read a secret file that only root may read,
# then becomes mcp (setpriv) before the gateway runs.
# The same build stage as postgres.Dockerfile's, line for line, so the second
# image to be built reuses its layer from the engine's cache.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      make gcc pkg-config libc6-dev libpq-dev libmicrohttpd-dev libjson-c-dev libssl-dev postgresql-server-dev-15 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY gateway/ gateway/
RUN make -C gateway clean && make -C gateway CFLAGS="-O2 -g -Werror"

FROM debian:12
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libpq5 libmicrohttpd12 libjson-c5 libssl3 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --no-create-home --shell /usr/sbin/nologin mcp
COPY --from=build /src/gateway/mcp-notes-gateway /usr/local/bin/mcp-notes-gateway
COPY docker/gateway-entrypoint docker/readyz /usr/local/bin/
EXPOSE 8080 9464
HEALTHCHECK --interval=5s --timeout=3s CMD ["/usr/local/bin/readyz", "8080"]
LABEL io.mcp-notes.image=gateway
ENTRYPOINT ["/usr/local/bin/gateway-entrypoint"]
CMD ["--listen=0.0.0.0:8080"]
