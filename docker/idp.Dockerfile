# The identity provider of the OAuth stack (docker/compose.idp.yaml):
# Debian 12's glewlwyd, with a SQLite database in a volume, configured on its
# first start through its REST API by docker/idp-entrypoint (the issuer,
# scopes, a demo user and demo clients), as an unprivileged user.
FROM debian:12
# the package's init script would start a service at install time
RUN printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d \
 && apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      glewlwyd sqlite3 python3 openssl ca-certificates \
 && rm -rf /var/lib/apt/lists/* /usr/sbin/policy-rc.d \
 && useradd --system --home-dir /var/lib/mcp-notes-idp --create-home --shell /usr/sbin/nologin idp
COPY tests/oauth/idp.py tests/oauth/jose.py docker/idp-entrypoint /opt/mcp-notes-idp/
USER idp
VOLUME /var/lib/mcp-notes-idp
EXPOSE 4593
LABEL io.mcp-notes.image=idp
ENTRYPOINT ["python3", "/opt/mcp-notes-idp/idp-entrypoint"]
