/*
 * headers.h
 *		The MCP request headers and how their values are decoded: optional
 *		whitespace trimmed, visible ASCII only, and for Mcp-Name the sentinel
 *		form =?base64?...?= (standard base64 of UTF-8).  No libmicrohttpd here:
 *		http.c collects the raw values, mcp.c compares them with the body.
 */
#ifndef GW_HEADERS_H
#define GW_HEADERS_H

#include <stdbool.h>

/* the request headers MCP looks at (first value and number of occurrences) */
struct mcp_headers
{
	const char *protocol_version;
	int			n_protocol_version;
	const char *method;
	int			n_method;
	const char *name;
	int			n_name;
	const char *authorization;
	int			n_authorization;
	const char *session_id;		/* Mcp-Session-Id (legacy era) */
	int			n_session_id;
	bool		stdio;			/* no HTTP: nothing is mirrored in headers (stdio.c) */
};

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
extern enum hdr_status header_value(const char *raw, bool allow_base64, char **out);

#endif							/* GW_HEADERS_H */
