/*
 * clientaddr.h
 *		The client address of a request: the TCP peer, or, when the peer is
 *		a trusted proxy (--trusted-proxies), the last X-Forwarded-For hop.
 *
 * The table of trusted proxies is filled once by config_load() before any
 * thread starts and is read-only afterwards, so it needs no lock.
 */
#ifndef GW_CLIENTADDR_H
#define GW_CLIENTADDR_H

#include <stddef.h>
#include <sys/socket.h>

#define GW_MAX_TRUSTED_PROXIES	64
#define GW_ADDR_TEXT			64	/* an address as text, NUL included (INET6_ADDRSTRLEN is 46) */

/*
 * Parse "CIDR[,CIDR]..." (an address without /bits is one host; IPv4 or
 * IPv6; spaces around commas allowed; empty trusts none) into the table.
 * Returns 0, or -1 with the reason in err.
 */
extern int	clientaddr_set_trusted(const char *list, char *err, size_t errlen);
extern void clientaddr_clear_trusted(void);

/*
 * The address of a request from peer (NULL: unknown) whose last
 * X-Forwarded-For header line is forwarded_for (NULL: none).  client gets
 * the address to log and key by; proxy gets the peer when client came from
 * the header, else "".  A header from an untrusted peer is ignored; from a
 * trusted one, a last hop that is not a plain IPv4 or IPv6 address leaves
 * client the peer.
 */
extern void clientaddr_resolve(const struct sockaddr *peer, const char *forwarded_for,
							   char client[GW_ADDR_TEXT], char proxy[GW_ADDR_TEXT]);

#endif							/* GW_CLIENTADDR_H */
