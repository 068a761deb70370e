/*
 * http.h
 *		The HTTP server (libmicrohttpd): routing, HTTP-level checks, draining.
 */
#ifndef GW_HTTP_H
#define GW_HTTP_H

#include <stdbool.h>

/* Start listening (logs the bound address). 0 on success. */
extern int	http_start(void);

/* Stage 1 of shutdown: stop accepting, /readyz 503, Connection: close. */
extern void http_begin_drain(void);

/* Number of HTTP connections open now (for /metrics). */
extern int	http_open_connections(void);

/* Number of requests received and not yet completed. */
extern int	http_inflight(void);

/* Wait up to timeout_ms for http_inflight() == 0; true when idle. */
extern bool http_wait_idle(int timeout_ms);

/* Stage 2: let the workers finish, then close every connection and stop. */
extern void http_stop(void);

#endif							/* GW_HTTP_H */
