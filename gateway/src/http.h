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

/* Number of requests received and not yet completed. */
extern int	http_inflight(void);

/* Wait up to timeout_ms for http_inflight() == 0; true when idle. */
extern bool http_wait_idle(int timeout_ms);

/* Stage 2: let the workers finish, then close every connection and stop. */
extern void http_stop(void);

enum hdr_status
{
	HDR_OK = 0,
	HDR_INVALID,				/* characters outside visible ASCII, SP and HTAB */
	HDR_BAD_ENCODING			/* =?base64?...?= that is not base64 of UTF-8 text */
};

/*
 * A request header value as the application sees it: optional whitespace
 * trimmed, characters checked and, when allow_base64, the sentinel form
 * =?base64?...?= decoded.  *out is malloc'd on HDR_OK.
 */
extern enum hdr_status http_header_value(const char *raw, bool allow_base64, char **out);

#endif							/* GW_HTTP_H */
