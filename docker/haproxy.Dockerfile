# HAProxy 2.6 from Debian 12 with docker/haproxy.cfg: round robin over the
# gateway replicas, found through the network's DNS.
FROM debian:12
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends haproxy \
 && rm -rf /var/lib/apt/lists/*
COPY docker/haproxy.cfg /etc/haproxy/haproxy.cfg
USER haproxy
EXPOSE 8080
STOPSIGNAL SIGUSR1
LABEL io.mcp-notes.image=haproxy
ENTRYPOINT ["/usr/sbin/haproxy", "-W", "-db", "-f", "/etc/haproxy/haproxy.cfg"]
