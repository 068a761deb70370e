# mcp-notes-gateway: build on Debian 12, run on a slim Debian 12 with only
# the runtime libraries.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      make gcc pkg-config libc6-dev libpq-dev libmicrohttpd-dev libjson-c-dev libssl-dev postgresql-server-dev-15 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY gateway/ gateway/
RUN make -C gateway CFLAGS="-O2 -g -Werror"

FROM debian:12-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libpq5 libmicrohttpd12 libjson-c5 libssl3 curl \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --no-create-home mcp
COPY --from=build /src/gateway/mcp-notes-gateway /usr/local/bin/mcp-notes-gateway
USER mcp
EXPOSE 8080
HEALTHCHECK --interval=5s --timeout=2s CMD curl -fs http://127.0.0.1:8080/readyz || exit 1
ENTRYPOINT ["/usr/local/bin/mcp-notes-gateway"]
CMD ["--listen", "0.0.0.0:8080"]
