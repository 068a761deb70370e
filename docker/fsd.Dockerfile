# mcp-notes-fsd, the file service of file-backed workspaces: built on
# Debian 12, run on Debian 12 with only libpq, as the unprivileged user
# mcp-fsd, which owns /srv/notes (the volume of workspace roots) and nothing
# else.  docs/operations.md, "The file service in compose".
FROM debian:12 AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      make gcc libc6-dev linux-libc-dev libpq-dev \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY fsd/ fsd/
RUN make -C fsd clean && make -C fsd CFLAGS="-O2 -g -Werror"

FROM debian:12
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends libpq5 \
 && rm -rf /var/lib/apt/lists/* \
 && useradd --system --home-dir /srv/notes --no-create-home --shell /usr/sbin/nologin mcp-fsd \
 && install -d -o mcp-fsd -g mcp-fsd -m 0750 /srv/notes
COPY --from=build /src/fsd/mcp-notes-fsd /usr/local/bin/mcp-notes-fsd
COPY docker/fsd-entrypoint /usr/local/bin/
USER mcp-fsd
VOLUME /srv/notes
LABEL io.mcp-notes.image=fsd
ENTRYPOINT ["/usr/local/bin/fsd-entrypoint"]
CMD ["--volume=vol1", "--base=/srv/notes"]
