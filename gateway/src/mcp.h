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

struct sse_stream;

/*
 * A body that is produced while it is sent (a text/event-stream): http.c
 * makes the stream and its response, then start() runs on a worker thread
 * and owns cls (and releases s) from then on; discard() frees cls when the
 * client left before the stream began.  The 2025 era's tools/call that asks
 * the client is one; subscriptions/listen is meant to be another.
 */
struct reply_producer
{
	int			(*start) (void *cls, struct sse_stream *s);	/* 0, or -1: nothing started (all released) */
	void		(*discard) (void *cls);
	void	   *cls;				/* NULL = no producer */
};

/*
 * What holds streams of change notifications (watchstream.c; main.c sets
 * it at startup, so mcp.c links without it).  Without hooks
 * subscriptions/listen is refused by the extension as not streamable.
 */
struct mcp_listen_hooks
{
	struct reply_producer (*producer) (json_object *stream, json_object *rpc_id, bool dev,
									   const char *credential, const char *session);
	bool		(*room) (void);
};

extern void mcp_set_listen_hooks(const struct mcp_listen_hooks *hooks);

/*
 * A request checked on an event thread and left for a worker
 * (needs_database): resume() runs the rest on the parsed, checked request
 * and frees state; discard() frees it when no worker will.
 */
struct mcp_reply;

struct pending_call
{
	void		(*resume) (void *state, struct mcp_reply *r);
	void		(*discard) (void *state);
	void	   *state;
};

/* what the request log line says of an MCP request (http.c writes it) */
struct reply_log
{
	char		rpc_id[72];		/* JSON text of the id, truncated */
	char		rpc_method[64];
	char		tool[64];
	int			code;			/* JSON-RPC error code, 0 = none */
	int			retries;
	bool		notification;
	char		reason[64];		/* short machine reason (data.reason, sqlstate, ...) */
	char		detail[160];	/* short human detail for errors */
};

/*
 * A reply: status, headers, and a body or a producer (a stream), with the
 * log fields apart.
 */
struct mcp_reply
{
	unsigned int http_status;
	char	   *body;			/* malloc'd JSON; NULL = empty body */
	const char *content_type;	/* static; NULL = application/json */
	const char *www_authenticate;	/* NULL, or challenge below */
	char		challenge[512];
	const char *allow;			/* static Allow header (a 405), or NULL */
	bool		retry_after;	/* add Retry-After: 1 */

	/* for the request log line, kept apart from what is sent (never secrets) */
	struct reply_log log;

	/* set instead of an answer when may_block was false and the answer needs the database */
	bool		needs_database;
	struct pending_call call;	/* with needs_database: what the worker resumes */

	/* the wire errors go out on: the 2025 era's differs (outcome.h) */
	enum outcome_era era;
	char		session_id[64];	/* Mcp-Session-Id to send (2025-era initialize), "" = none */
	struct reply_producer producer;	/* answer with a stream instead of body */
};

/*
 * Answer one request.  With may_block false (an HTTP event thread) a request
 * that can be answered from memory is answered, and any other one is left
 * with needs_database set, no side effect and r->call holding it, checked as
 * far as it got: mcp_reply_resume(r) on a thread that may wait for the
 * database finishes it (h must live until then).
 */
extern void mcp_process(const char *body, size_t len, const struct mcp_headers *h,
						bool may_block, struct mcp_reply *r);

/* The same for a body already parsed (root is consumed): the modern era of endpoint.c. */
extern void mcp_process_parsed(json_object *root, const struct mcp_headers *h, bool may_block,
							   struct mcp_reply *r);

/*
 * With needs_database set: keep a copy of state (size bytes) in r->call for
 * the worker and return true; otherwise (no need, or out of memory: then an
 * internal error is replied) false, and the caller frees what state holds.
 */
extern bool mcp_reply_defer(struct mcp_reply *r, json_object *id, const void *state, size_t size,
							void (*resume) (void *, struct mcp_reply *), void (*discard) (void *));

/* Finish a deferred request (needs_database) on a thread that may block. */
extern void mcp_reply_resume(struct mcp_reply *r);

/* Free a deferred request nobody will resume. */
extern void mcp_reply_discard(struct mcp_reply *r);

/* A body that is not JSON: the parse error reply (r is reset first). */
extern void mcp_reply_parse_error(struct mcp_reply *r, const char *why);

/* An error of kind as the outcome table says (data is consumed); message NULL = the table's. */
extern void mcp_reply_error(struct mcp_reply *r, json_object *id, enum outcome_kind kind,
							const char *message, json_object *data);

/* A failed database call: the client gets the table's words, the log the database's. */
struct db_error;
extern void mcp_reply_db_error(struct mcp_reply *r, json_object *id, const struct db_error *e);

/* An internal error (500), why goes to the log. */
extern void mcp_reply_internal(struct mcp_reply *r, json_object *id, const char *why);

/* An outcome object's {"kind", "message", "data"} as the outcome table says (error is not consumed). */
extern void mcp_reply_extension_error(struct mcp_reply *r, json_object *id, json_object *error);

/*
 * The request object of docs/contract.md, written once for both eras:
 * method, params without _meta, clientCapabilities and clientInfo when
 * given (the 2025 era over HTTP gives none: handle() takes the session's),
 * meta's progressToken, requestId, gatewayId.  References are taken.
 */
extern json_object *mcp_request_object(const char *method, json_object *params, json_object *meta,
									   json_object *caps, json_object *info, json_object *id);

/* The credential of a request: the bearer token (*token, malloc'd) or the dev principal; false after replying 401. */
struct mcp_headers;
extern bool mcp_take_credential(const struct mcp_headers *h, json_object *id, char **token, const char **credential,
								struct mcp_reply *r);

/* Wipe and free a token mcp_take_credential returned. */
extern void mcp_free_token(char *token);

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
