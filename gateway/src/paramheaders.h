/*
 * paramheaders.h
 *		Mcp-Param-* headers (2026-07-28 Streamable HTTP, SEP-2243): a tool's
 *		inputSchema property marked "x-mcp-header": NAME is mirrored by the
 *		client into the header Mcp-Param-NAME, and the server rejects a
 *		tools/call whose header is missing, undecodable or different from the
 *		argument (-32020, HTTP 400).  The declarations are read once from
 *		features().publicResults["tools/list"] (extension.c); mcp.c checks
 *		each tools/call against them.
 */
#ifndef GW_PARAMHEADERS_H
#define GW_PARAMHEADERS_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "headers.h"

#define GW_PARAM_MAX_DEPTH	8	/* properties.a.properties.b...: deeper marks are ignored */

enum param_type
{
	PARAM_STRING,
	PARAM_INTEGER,				/* integer and number: compared numerically */
	PARAM_BOOLEAN
};

/* one marked property of one tool */
struct param_decl
{
	char	   *tool;
	char	   *header;			/* NAME of Mcp-Param-NAME */
	char	   *path[GW_PARAM_MAX_DEPTH];	/* argument keys from arguments down */
	size_t		depth;
	enum param_type type;
};

struct param_table
{
	struct param_decl *decls;
	size_t		n;
};

/*
 * The declarations of a tools/list result's tools into t (emptied first).
 * A mark that is not an RFC 9110 token, sits on a type other than string,
 * integer, number or boolean, or is not reached through "properties" alone
 * is not a declaration (a client must not call such a tool either).
 * Returns NULL, or "out of memory".
 */
extern const char *param_table_read(json_object *tools_list_result, struct param_table *t);

extern void param_table_free(struct param_table *t);

/* does tool declare any Mcp-Param header? */
extern bool param_table_has(const struct param_table *t, const char *tool);

/*
 * Check a tools/call of tool with arguments (may be NULL) against the
 * headers: true when every declared argument with a primitive value has its
 * header, decoded and equal.  Otherwise false and why[n] the message.
 */
extern bool param_headers_check(const struct param_table *t, const char *tool, json_object *arguments,
								const struct mcp_headers *h, char *why, size_t n);

#endif							/* GW_PARAMHEADERS_H */
