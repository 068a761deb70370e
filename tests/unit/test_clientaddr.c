/*
 * test_clientaddr.c
 *		gateway/src/clientaddr.c alone: --trusted-proxies parsing and the
 *		client address through a trusted proxy's last X-Forwarded-For hop.
 */
#include <arpa/inet.h>
#include <netinet/in.h>

#include "clientaddr.h"
#include "unit.h"

#define M "clientaddr"

static struct sockaddr_in
v4(const char *text)
{
	struct sockaddr_in sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin_family = AF_INET;
	inet_pton(AF_INET, text, &sa.sin_addr);
	return sa;
}

static struct sockaddr_in6
v6(const char *text)
{
	struct sockaddr_in6 sa;

	memset(&sa, 0, sizeof(sa));
	sa.sin6_family = AF_INET6;
	inet_pton(AF_INET6, text, &sa.sin6_addr);
	return sa;
}

static int
trust(const char *list)
{
	char		err[128];

	return clientaddr_set_trusted(list, err, sizeof(err));
}

static void
trusted_list_parsed(void)
{
	CHECK(trust("") == 0);
	CHECK(trust("10.0.0.0/8, 192.168.1.1 ,::1,fd00::/8") == 0);
	CHECK(trust("10.0.0.0/33") != 0);
	CHECK(trust("::/129") != 0);
	CHECK(trust("example.org") != 0);
	CHECK(trust("10.0.0.1:80") != 0);
	clientaddr_clear_trusted();
}

static void
untrusted_peer_header_ignored(void)
{
	struct sockaddr_in peer = v4("203.0.113.9");
	char		client[GW_ADDR_TEXT];
	char		proxy[GW_ADDR_TEXT];

	CHECK(trust("10.0.0.0/8") == 0);
	clientaddr_resolve((struct sockaddr *) &peer, "198.51.100.1", client, proxy);
	CHECK_STR(client, "203.0.113.9");
	CHECK_STR(proxy, "");
	clientaddr_clear_trusted();
}

static void
trusted_peer_last_hop_believed(void)
{
	struct sockaddr_in peer = v4("10.1.2.3");
	char		client[GW_ADDR_TEXT];
	char		proxy[GW_ADDR_TEXT];

	CHECK(trust("10.0.0.0/8") == 0);
	clientaddr_resolve((struct sockaddr *) &peer, "1.1.1.1, 198.51.100.7 ", client, proxy);
	CHECK_STR(client, "198.51.100.7");	/* the last hop: the one the proxy appended */
	CHECK_STR(proxy, "10.1.2.3");
	clientaddr_clear_trusted();
}

static void
trusted_peer_garbage_hop_keeps_peer(void)
{
	struct sockaddr_in peer = v4("10.1.2.3");
	char		client[GW_ADDR_TEXT];
	char		proxy[GW_ADDR_TEXT];

	CHECK(trust("10.0.0.0/8") == 0);
	clientaddr_resolve((struct sockaddr *) &peer, "198.51.100.7, <script>", client, proxy);
	CHECK_STR(client, "10.1.2.3");
	CHECK_STR(proxy, "");
	clientaddr_resolve((struct sockaddr *) &peer, "[::1]:443", client, proxy);
	CHECK_STR(client, "10.1.2.3");
	clientaddr_clear_trusted();
}

static void
v4_mapped_peer_is_ipv4(void)
{
	struct sockaddr_in6 peer = v6("::ffff:10.9.9.9");
	char		client[GW_ADDR_TEXT];
	char		proxy[GW_ADDR_TEXT];

	CHECK(trust("10.0.0.0/8") == 0);
	clientaddr_resolve((struct sockaddr *) &peer, "2001:db8::1", client, proxy);
	CHECK_STR(client, "2001:db8::1");
	CHECK_STR(proxy, "10.9.9.9");
	clientaddr_clear_trusted();
}

static void
cidr_bits_respected(void)
{
	struct sockaddr_in inside = v4("192.168.1.200");
	struct sockaddr_in outside = v4("192.168.2.1");
	char		client[GW_ADDR_TEXT];
	char		proxy[GW_ADDR_TEXT];

	CHECK(trust("192.168.1.128/25") == 0);
	clientaddr_resolve((struct sockaddr *) &inside, "8.8.8.8", client, proxy);
	CHECK_STR(client, "8.8.8.8");
	clientaddr_resolve((struct sockaddr *) &outside, "8.8.8.8", client, proxy);
	CHECK_STR(client, "192.168.2.1");
	clientaddr_clear_trusted();
}

static void
unknown_peer_is_empty(void)
{
	char		client[GW_ADDR_TEXT];
	char		proxy[GW_ADDR_TEXT];

	clientaddr_resolve(NULL, "8.8.8.8", client, proxy);
	CHECK_STR(client, "");
	CHECK_STR(proxy, "");
}

int
main(void)
{
	RUN(M, trusted_list_parsed);
	RUN(M, untrusted_peer_header_ignored);
	RUN(M, trusted_peer_last_hop_believed);
	RUN(M, trusted_peer_garbage_hop_keeps_peer);
	RUN(M, v4_mapped_peer_is_ipv4);
	RUN(M, cidr_bits_respected);
	RUN(M, unknown_peer_is_empty);
	return unit_status();
}
