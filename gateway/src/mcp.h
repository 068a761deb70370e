/*
 * mcp.h
 *		MCP 2026-07-28 over one POST body: envelope checks in protocol order,
 *		authentication and dispatch (docs/contract.md).
 */
#ifndef GW_MCP_H
#define GW_MCP_H

#include <stdbool.h>
#include <stddef.h>

#include <json-c/json.h>

#include "headers.h"
#include "outcome.h"

struct elicit_job;

struct mcp_reply
{
	unsigned int http_status;
	char	   *body;			/* malloc'd JSON; NULL = empty body */
	const char *content_type;	/* static; NULL = application/json */
	const char *www_authenticate;	/* NULL, or challenge below */
	char		challenge[512];
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

	/* legacy era (legacy.c) */
	char		session_id[64];	/* Mcp-Session-Id to send, "" = none */
	struct elicit_job *job;		/* answer on an SSE stream instead of body (elicit.h) */
};

/*
 * Answer one request.  With may_block false (an HTTP event thread) a request
 * that can be answered from memory is answered, and any other one is left
 * with needs_database set and no side effect, to be run again with may_block
 * true on a thread that may wait for the database.
 */
extern void mcp_process(const char *body, size_t len, const struct mcp_headers *h,
						bool may_block, struct mcp_reply *r);

/* The same for a body already parsed (root is consumed): the modern era of endpoint.c. */
extern void mcp_process_parsed(json_object *root, const struct mcp_headers *h, bool may_block,
							   struct mcp_reply *r);

/* An error of kind as the outcome table says (data is consumed); message NULL = the table's. */
extern void mcp_reply_error(struct mcp_reply *r, json_object *id, enum outcome_kind kind,
							const char *message, json_object *data);

/* A failed database call: the client gets the table's words, the log the database's. */
struct db_error;
extern void mcp_reply_db_error(struct mcp_reply *r, json_object *id, const struct db_error *e);

/* An internal error (500), why goes to the log. */
extern void mcp_reply_internal(struct mcp_reply *r, json_object *id, const char *why);

/*
 * The JSON-RPC 2.0 shape of root into m (-32600/-32602 replied); a
 * notification gets 202 and false, as every error does.
 */
struct rpc_msg;
extern bool mcp_check_shape(json_object *root, struct rpc_msg *m, struct mcp_reply *r);

/* r->body = the serialization of msg (consumed). */
extern void mcp_reply_message(struct mcp_reply *r, json_object *msg);

/* r->body (a response) becomes an SSE stream: the notifications [{method, params}], then it. */
extern void mcp_reply_with_notifications(struct mcp_reply *r, json_object *notifications);

#endif							/* GW_MCP_H */
