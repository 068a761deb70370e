# mcp-notes-jwks, the key fetcher of the OAuth stack (docker/compose.idp.yaml):
# built on Debian 12, run with only the runtime libraries, as an unprivileged
# user.  It connects to the database as its own role (grant_jwks_fetcher),
# never as a gateway.
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      make gcc pkg-config libc6-dev libpq-dev libcurl4-openssl-dev libjson-c-dev postgresql-server-dev-15 \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY jwks/ jwks/
RUN make -C jwks clean && make -C jwks CFLAGS="-O2 -g -Werror"

FROM debian:12
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      libpq5 libcurl4 libjson-c5 ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --no-create-home --shell /usr/sbin/nologin mcp
COPY --from=build /src/jwks/mcp-notes-jwks /usr/local/bin/mcp-notes-jwks
COPY docker/jwks-entrypoint /usr/local/bin/
USER mcp
LABEL io.mcp-notes.image=jwks
ENTRYPOINT ["/usr/local/bin/jwks-entrypoint"]
