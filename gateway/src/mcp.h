/*
 * mcp.h
 *		MCP 2026-07-28 over one POST body: envelope checks in protocol order,
 *		authentication and dispatch (docs/contract.md).
 */
#ifndef GW_MCP_H
#define GW_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include "headers.h"

struct mcp_reply
{
	unsigned int http_status;
	char	   *body;			/* malloc'd JSON; NULL = empty body */
	const char *content_type;	/* static; NULL = application/json */
	const char *www_authenticate;	/* static, or NULL */
	bool		retry_after;	/* add Retry-After: 1 */

	/* for the request log line (never secrets) */
	char		rpc_id[72];		/* JSON text of the id, truncated */
	char		rpc_method[64];
	char		tool[64];
	int			code;			/* JSON-RPC error code, 0 = none */
	int			retries;
	bool		notification;
	char		reason[64];		/* short machine reason (data.reason, sqlstate, ...) */
	char		detail[160];	/* short human detail for errors */

	/* set instead of an answer when may_block was false and the answer needs the database */
	bool		needs_database;
};

/*
 * Answer one request.  With may_block false (an HTTP event thread) a request
 * that can be answered from memory is answered, and any other one is left
 * with needs_database set and no side effect, to be run again with may_block
 * true on a thread that may wait for the database.
 */
extern void mcp_process(const char *body, size_t len, const struct mcp_headers *h,
						bool may_block, struct mcp_reply *r);

#endif							/* GW_MCP_H */
