/*
 * clientaddr.c
 *		The client address of a request, through trusted proxies.
 *
 * Behind a balancer every connection comes from the balancer's address, so
 * the request log would name the balancer and never the client.  HAProxy
 * appends the address it accepted the connection from as the last
 * X-Forwarded-For hop; that hop is believed only when the TCP peer is in
 * --trusted-proxies (anyone else could write any header), and only when it
 * is a plain address: anything else is logged as the peer, never as text a
 * client chose.  Addresses are kept as 16 bytes; an IPv4 address, and an
 * IPv4-mapped IPv6 one (a dual-stack listener's view of an IPv4 peer), are
 * compared and printed as IPv4.
 */
#include "clientaddr.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

struct addr
{
	int			family;			/* AF_INET or AF_INET6 */
	unsigned char bytes[16];	/* IPv4: the first 4 */
};

struct cidr
{
	struct addr net;
	unsigned	bits;
};

static struct cidr trusted[GW_MAX_TRUSTED_PROXIES];
static size_t n_trusted;

static const unsigned char v4mapped_prefix[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff};

/* an IPv4-mapped IPv6 address becomes the IPv4 address it maps */
static void
unmap(struct addr *a)
{
	if (a->family == AF_INET6 && memcmp(a->bytes, v4mapped_prefix, 12) == 0)
	{
		memmove(a->bytes, a->bytes + 12, 4);
		memset(a->bytes + 4, 0, 12);
		a->family = AF_INET;
	}
}

/* text[0..len) as a plain IPv4 or IPv6 address (no brackets, port or zone) */
static bool
parse_addr(const char *text, size_t len, struct addr *out)
{
	char		buf[GW_ADDR_TEXT];

	if (len == 0 || len >= sizeof(buf))
		return false;
	memcpy(buf, text, len);
	buf[len] = '\0';
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, buf, out->bytes) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, buf, out->bytes) == 1)
		out->family = AF_INET6;
	else
		return false;
	return true;
}

static void
format_addr(const struct addr *a, char out[GW_ADDR_TEXT])
{
	if (inet_ntop(a->family, a->bytes, out, GW_ADDR_TEXT) == NULL)
		out[0] = '\0';
}

/* ADDR or ADDR/BITS; host bits are cleared (10.1.2.3/8 is 10.0.0.0/8) */
static bool
parse_cidr(const char *text, size_t len, struct cidr *out)
{
	const char *slash = memchr(text, '/', len);
	size_t		addr_len = slash ? (size_t) (slash - text) : len;
	unsigned	max;

	if (!parse_addr(text, addr_len, &out->net))
		return false;
	max = out->net.family == AF_INET ? 32 : 128;
	out->bits = max;
	if (slash)
	{
		const char *p = slash + 1;
		const char *end = text + len;
		unsigned	bits = 0;

		if (p == end || end - p > 3)
			return false;
		for (; p < end; p++)
		{
			if (*p < '0' || *p > '9')
				return false;
			bits = bits * 10 + (unsigned) (*p - '0');
		}
		if (bits > max)
			return false;
		out->bits = bits;
	}
	/* ::ffff:10.0.0.0/104 is 10.0.0.0/8: compared like the peers it describes */
	if (out->net.family == AF_INET6 && out->bits >= 96 && memcmp(out->net.bytes, v4mapped_prefix, 12) == 0)
	{
		unmap(&out->net);
		out->bits -= 96;
	}
	for (unsigned i = out->bits; i < 128; i++)
		out->net.bytes[i / 8] &= (unsigned char) ~(0x80u >> (i % 8));
	return true;
}

static bool
cidr_contains(const struct cidr *c, const struct addr *a)
{
	unsigned	full = c->bits / 8;
	unsigned	rest = c->bits % 8;

	if (c->net.family != a->family || memcmp(c->net.bytes, a->bytes, full) != 0)
		return false;
	if (rest == 0)
		return true;
	return ((c->net.bytes[full] ^ a->bytes[full]) & (unsigned char) (0xff00u >> rest)) == 0;
}

int
clientaddr_set_trusted(const char *list, char *err, size_t errlen)
{
	const char *p = list ? list : "";

	n_trusted = 0;
	while (*p)
	{
		const char *start;
		const char *end;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		if (n_trusted == GW_MAX_TRUSTED_PROXIES)
		{
			snprintf(err, errlen, "at most %d entries", GW_MAX_TRUSTED_PROXIES);
			return -1;
		}
		if (!parse_cidr(start, (size_t) (end - start), &trusted[n_trusted]))
		{
			snprintf(err, errlen, "\"%.*s\" is not an IPv4 or IPv6 address or ADDRESS/BITS",
					 (int) (end - start > 60 ? 60 : end - start), start);
			n_trusted = 0;
			return -1;
		}
		n_trusted++;
	}
	return 0;
}

void
clientaddr_clear_trusted(void)
{
	n_trusted = 0;
}

static bool
peer_addr(const struct sockaddr *sa, struct addr *out)
{
	memset(out, 0, sizeof(*out));
	if (sa == NULL)
		return false;
	if (sa->sa_family == AF_INET)
	{
		out->family = AF_INET;
		memcpy(out->bytes, &((const struct sockaddr_in *) sa)->sin_addr, 4);
	}
	else if (sa->sa_family == AF_INET6)
	{
		out->family = AF_INET6;
		memcpy(out->bytes, &((const struct sockaddr_in6 *) sa)->sin6_addr, 16);
		unmap(out);
	}
	else
		return false;
	return true;
}

/* the last comma-separated element of an X-Forwarded-For value, spaces trimmed */
static bool
last_hop(const char *value, struct addr *out)
{
	const char *end = value + strlen(value);
	const char *start = end;

	while (start > value && start[-1] != ',')
		start--;
	while (start < end && (*start == ' ' || *start == '\t'))
		start++;
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (!parse_addr(start, (size_t) (end - start), out))
		return false;
	unmap(out);
	return true;
}

void
clientaddr_resolve(const struct sockaddr *peer, const char *forwarded_for,
				   char client[GW_ADDR_TEXT], char proxy[GW_ADDR_TEXT])
{
	struct addr p;
	struct addr hop;
	bool		is_trusted = false;

	client[0] = '\0';
	proxy[0] = '\0';
	if (!peer_addr(peer, &p))
		return;
	format_addr(&p, client);
	if (forwarded_for == NULL)
		return;
	for (size_t i = 0; i < n_trusted && !is_trusted; i++)
		is_trusted = cidr_contains(&trusted[i], &p);
	if (!is_trusted || !last_hop(forwarded_for, &hop))
		return;
	memcpy(proxy, client, GW_ADDR_TEXT);
	format_addr(&hop, client);
}
