/*
 * headers.h
 *		The MCP request headers and how their values are decoded: optional
 *		whitespace trimmed, visible ASCII only, and for Mcp-Name the sentinel
 *		form =?base64?...?= (canonical, padded standard base64 of UTF-8), for
 *		Mcp-Name and the Mcp-Param-* mirrors of tool arguments.  No
 *		libmicrohttpd here: http.c collects the raw values, mcp.c and
 *		paramheaders.c compare them with the body.
 */
#ifndef GW_HEADERS_H
#define GW_HEADERS_H

#include <stdbool.h>
#include <stddef.h>

#define GW_PARAM_HEADER_PREFIX	"Mcp-Param-"
#define GW_MAX_PARAM_HEADERS	32

/* one Mcp-Param-NAME header: name points after the prefix */
struct mcp_param_header
{
	const char *name;
	const char *value;
};

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
	struct mcp_param_header params[GW_MAX_PARAM_HEADERS];	/* every Mcp-Param-* line */
	int			n_params;
	bool		params_overflow;	/* more than GW_MAX_PARAM_HEADERS of them */
	bool		stdio;			/* no HTTP: nothing is mirrored in headers (stdiomcp.c) */
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

/* The same with the decoded length (a decoded value may hold NUL bytes; header_value refuses them). */
extern enum hdr_status header_value_n(const char *raw, bool allow_base64, char **out, size_t *outlen);

/* RFC 9110 section 5.6.2: s is 1*tchar (a field name, or an x-mcp-header NAME) */
extern bool header_is_token(const char *s);

/* The Mcp-Param-<name> value (name case-insensitive) and how many were sent, or NULL. */
extern const char *header_param_find(const struct mcp_headers *h, const char *name, int *count);

/* Record one header whose name starts with GW_PARAM_HEADER_PREFIX (key and value must outlive h). */
extern void header_param_take(struct mcp_headers *h, const char *key, const char *value);

#endif							/* GW_HEADERS_H */
