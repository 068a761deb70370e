/*
 * legacy.c
 *		Legacy-era requests (legacy.h).
 *
 * Order, for a request: JSON-RPC shape (-32600/-32602, 400) -> notification
 * (202, never executed) -> MCP-Protocol-Version, when sent, a legacy
 * version (400) -> initialize: bearer token (401), then the session is
 * opened (mcp_notes/session/open) -> anything else: Mcp-Session-Id present
 * (400), bearer token (401), ping or a method of features().methods
 * (-32601 otherwise) -> one handle() statement whose request object names
 * the session: handle() answers 404 for a session that is not live or not
 * the token's principal's, and renews it.  A posted JSON-RPC response is the
 * answer to a server request (mcp_notes/pending/answer, 202).  Every error's
 * status and code come from the outcome table's 2025 columns (r->era):
 * JSON-RPC errors are HTTP 200 there, as 2025-era clients expect; session,
 * token and database failures keep their HTTP status.
 */
#include "legacy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "db.h"
#include "fileops.h"
#include "extension.h"
#include "jsonrpc.h"
#include "legacystream.h"
#include "legacywire.h"
#include "log.h"
#include "loglevel.h"
#include "text.h"
#include "version.h"
#include "watchstream.h"

/* one legacy request while it is checked and answered */
struct lreq
{
	json_object *root;
	struct rpc_msg m;
	const struct mcp_headers *h;
	char	   *token;			/* the bearer token (wiped), or NULL */
	const char *credential;		/* the token, or the dev principal */
	char	   *session_id;		/* the Mcp-Session-Id header, decoded */
	bool		may_block;
	struct legacy_local *local;
	void		(*serve) (struct lreq *q, struct mcp_reply *r);	/* the branch, resumed on a worker */
};

static void
reply_message(struct mcp_reply *r, unsigned status, json_object *msg)
{
	r->http_status = status;
	mcp_reply_message(r, msg);
}

/* MCP-Protocol-Version, when present (HTTP only), must name a legacy version served */
static bool
check_version_header(struct lreq *q, struct mcp_reply *r)
{
	char	   *value = NULL;
	bool		ok;
	json_object *data;

	if (q->h->stdio || q->h->n_protocol_version == 0)
		return true;
	ok = q->h->n_protocol_version == 1 && header_value(q->h->protocol_version, false, &value) == HDR_OK &&
		legacy_version_supported(value);
	if (!ok)
	{
		data = json_object_new_object();
		json_object_object_add(data, "supported", legacy_all_versions());
		if (value)
			json_object_object_add(data, "requested", json_object_new_string(value));
		mcp_reply_error(r, q->m.id, OUT_INVALID_REQUEST, "Bad Request: unsupported MCP-Protocol-Version header", data);
	}
	free(value);
	return ok;
}

/* taken once: a request resumed on a worker (mcp_reply_resume) has it already */
static bool
take_credential(struct lreq *q, struct mcp_reply *r)
{
	return q->credential != NULL || mcp_take_credential(q->h, q->m.id, &q->token, &q->credential, r);
}

/* the Mcp-Session-Id header, decoded into q->session_id */
static bool
take_session_id(struct lreq *q, struct mcp_reply *r, enum outcome_kind missing)
{
	if (q->session_id != NULL)
		return true;
	if (q->h->n_session_id == 1 && q->h->session_id &&
		header_value(q->h->session_id, false, &q->session_id) == HDR_OK && q->session_id[0] != '\0' &&
		strlen(q->session_id) < 200)
		return true;
	if (q->h->n_session_id > 1)
		mcp_reply_error(r, q->m.id, OUT_INVALID_REQUEST, "Bad Request: more than one Mcp-Session-Id header", NULL);
	else if (missing == OUT_SESSION_REQUIRED)
	{
		json_object *data = json_object_new_object();

		json_object_object_add(data, "supported", legacy_all_versions());
		mcp_reply_error(r, q->m.id, OUT_SESSION_REQUIRED, NULL, data);
	}
	else
		mcp_reply_error(r, q->m.id, missing, "Bad Request: a valid Mcp-Session-Id header is required", NULL);
	return false;
}

/* features() read (the method check, initialize's capabilities) and of 1.4 or later; false after replying */
static bool
features_for_legacy(struct lreq *q, struct mcp_reply *r)
{
	struct db_error err = {0};

	if (!features_ready() && !q->may_block)
	{
		r->needs_database = true;
		return false;
	}
	if (!features_ready() && features_ensure(&err) != OUT_OK)
	{
		mcp_reply_db_error(r, q->m.id, &err);
		return false;
	}
	if (!features_has_internal("mcp_notes/session/open"))
	{
		mcp_reply_error(r, q->m.id, OUT_INCOMPATIBLE_EXTENSION,
						"The 2025-era protocol needs mcp_notes 1.4 or later: run ALTER EXTENSION mcp_notes UPDATE", NULL);
		return false;
	}
	return true;
}

/* the request object (mcp.h), with the session when there is one (params consumed) */
static json_object *
request_object(struct lreq *q, const char *method, json_object *params)
{
	json_object *o = mcp_request_object(method, params, NULL, NULL, NULL, q->m.id);

	json_object_put(params);
	if (q->session_id)
		json_object_object_add(o, "session", json_object_new_string(q->session_id));
	return o;
}

/* one handle() statement: the outcome, parsed; false after replying when the call failed */
static bool
call_handle(struct lreq *q, struct mcp_reply *r, json_object *request, struct legacy_outcome *out)
{
	char	   *body = jsonrpc_serialize(request);
	char	   *text = NULL;
	struct db_error err = {0};
	bool		ok = false;

	/* freed below on every failure, also when the statement itself failed */
	memset(out, 0, sizeof(*out));
	if (body == NULL)
		mcp_reply_internal(r, q->m.id, "out of memory");
	else if (fileops_handle(gw_cfg.insecure_dev_principal != NULL, q->credential, body, &text, &r->log.retries, &err) != OUT_OK)
		mcp_reply_db_error(r, q->m.id, &err);
	else
	{
		legacy_outcome_read(text, out);
		ok = out->kind == OUT_OK;
		if (out->error)
			mcp_reply_extension_error(r, q->m.id, out->error);
		else if (!ok)
			mcp_reply_internal(r, q->m.id, "handle() returned neither result nor error");
	}
	if (!ok)
		legacy_outcome_free(out);
	free(body);
	free(text);
	return ok;
}

/* params[key] when it is of type t, else NULL */
static json_object *
param(struct lreq *q, const char *key, json_type t)
{
	json_object *v;

	if (q->m.params && json_object_object_get_ex(q->m.params, key, &v) && json_object_is_type(v, t))
		return v;
	return NULL;
}

/* the initialize result: the negotiated version, features() capabilities and instructions */
static json_object *
initialize_result(const char *version)
{
	json_object *discover = json_tokener_parse(features_discover_result());
	json_object *result = json_object_new_object();
	json_object *info = json_object_new_object();
	json_object *v;

	json_object_object_add(result, "protocolVersion", json_object_new_string(version));
	json_object_object_add(result, "capabilities",
						   json_object_object_get_ex(discover, "capabilities", &v) ? json_object_get(v)
						   : json_object_new_object());
	json_object_object_add(info, "name", json_object_new_string(GW_SERVER_NAME));
	json_object_object_add(info, "version", json_object_new_string(GW_VERSION));
	json_object_object_add(result, "serverInfo", info);
	if (json_object_object_get_ex(discover, "instructions", &v))
		json_object_object_add(result, "instructions", json_object_get(v));
	json_object_put(discover);
	return result;
}

/* stdio: the session is the process, kept in memory; the token is checked at once all the same */
static bool
open_local_session(struct lreq *q, struct mcp_reply *r, const char *version, json_object *caps, json_object *info)
{
	char	   *principal = NULL;
	struct db_error err = {0};

	if (!gw_cfg.insecure_dev_principal)
	{
		if (db_authenticate(q->credential, &principal, &err) != OUT_OK)
		{
			mcp_reply_db_error(r, q->m.id, &err);
			return false;
		}
		if (principal == NULL)
		{
			mcp_reply_error(r, q->m.id, OUT_UNAUTHENTICATED, NULL, NULL);
			return false;
		}
		free(principal);
	}
	json_object_put(q->local->caps);
	json_object_put(q->local->info);
	q->local->caps = caps ? json_object_get(caps) : json_object_new_object();
	q->local->info = json_object_get(info);
	str_copy(q->local->version, sizeof(q->local->version), version);
	q->local->initialized = true;
	return true;
}

/* HTTP: mcp_notes/session/open, one statement; the id goes in the reply */
static bool
open_session(struct lreq *q, struct mcp_reply *r, const char *version, json_object *caps, json_object *info)
{
	json_object *params = json_object_new_object();
	json_object *request;
	struct legacy_outcome out;
	json_object *sid;
	bool		ok;

	json_object_object_add(params, "protocolVersion", json_object_new_string(version));
	json_object_object_add(params, "capabilities", caps ? json_object_get(caps) : json_object_new_object());
	if (info)
		json_object_object_add(params, "clientInfo", json_object_get(info));
	json_object_object_add(params, "ttlSeconds", json_object_new_int64(gw_cfg.legacy_session_ttl));
	request = request_object(q, "mcp_notes/session/open", params);
	ok = call_handle(q, r, request, &out);
	json_object_put(request);
	if (!ok)
		return false;
	if (json_object_object_get_ex(out.result, "sessionId", &sid) && json_object_is_type(sid, json_type_string))
		str_copy(r->session_id, sizeof(r->session_id), json_object_get_string(sid));
	legacy_outcome_free(&out);
	return r->session_id[0] != '\0' || (mcp_reply_internal(r, q->m.id, "no session id"), false);
}

static void
serve_initialize(struct lreq *q, struct mcp_reply *r)
{
	json_object *asked = param(q, "protocolVersion", json_type_string);
	const char *version = asked && legacy_version_supported(json_object_get_string(asked))
		? json_object_get_string(asked) : LEGACY_LATEST_VERSION;
	json_object *caps = param(q, "capabilities", json_type_object);
	json_object *info = param(q, "clientInfo", json_type_object);
	bool		opened;

	if (!features_for_legacy(q, r) || !take_credential(q, r))
		return;
	if (!q->local && !q->may_block)
	{
		r->needs_database = true;
		return;
	}
	opened = q->local ? open_local_session(q, r, version, caps, info) : open_session(q, r, version, caps, info);
	if (opened)
		reply_message(r, 200, legacy_result(q->m.id, initialize_result(version)));
}

/*
 * A request of the session: on stdio with the capabilities the process's
 * initialize declared (over HTTP handle() takes them from the session).
 */
static json_object *
session_request(struct lreq *q)
{
	json_object *o = mcp_request_object(q->m.method, q->m.params, param(q, "_meta", json_type_object),
										q->local ? q->local->caps : NULL, q->local ? q->local->info : NULL,
										q->m.id);

	if (q->session_id)
		json_object_object_add(o, "session", json_object_new_string(q->session_id));
	if (!q->local)
		json_object_object_add(o, "inputWaitMs", json_object_new_int64(gw_cfg.legacy_wait_ms + 5000));
	else if (q->local->log_level[0])
		json_object_object_add(o, "logLevel", json_object_new_string(q->local->log_level));
	return o;
}

/* the outcome asks the client: a stream (HTTP) or answered now (stdio) */
static void
ask_client(struct lreq *q, struct mcp_reply *r, json_object *request, struct legacy_outcome *out)
{
	struct legacy_job *job = legacy_job_new(gw_cfg.insecure_dev_principal != NULL, q->credential, request, q->m.id,
											json_object_get(out->input_required), json_object_get(out->pending));

	r->http_status = 200;
	if (job == NULL)
		mcp_reply_internal(r, q->m.id, "out of memory");
	else if (q->local)
	{
		legacy_ask_run(job, q->local->asker);
		legacy_job_free(job);
	}
	else if (out->pending == NULL)
	{
		legacy_job_free(job);
		mcp_reply_internal(r, q->m.id, "an input_required outcome without pending requests");
	}
	else
		r->producer = legacy_stream_producer(job);
}

/* a result: notifications before it as an SSE stream (HTTP) or as lines before it (stdio) */
static void
reply_result(struct lreq *q, struct mcp_reply *r, struct legacy_outcome *out)
{
	if (out->notifications && q->local)
		legacy_notify_all(q->local->asker, out->notifications);
	reply_message(r, 200, legacy_result(q->m.id, json_object_get(out->result)));
	if (out->notifications && !q->local && r->body)
		mcp_reply_with_notifications(r, out->notifications);
}

static void
call_method(struct lreq *q, struct mcp_reply *r)
{
	json_object *request = session_request(q);
	struct legacy_outcome out;

	if (call_handle(q, r, request, &out))
	{
		if (out.input_required)
			ask_client(q, r, request, &out);
		else
			reply_result(q, r, &out);
		legacy_outcome_free(&out);
	}
	json_object_put(request);
}

/* stdio: logging/setLevel of the process's one session, kept in memory; exactly {} */
static void
set_local_level(struct lreq *q, struct mcp_reply *r)
{
	json_object *level = param(q, "level", json_type_string);

	if (level == NULL || !log_level_known(json_object_get_string(level)))
	{
		mcp_reply_error(r, q->m.id, OUT_INVALID_PARAMS, "Invalid params: level must be one of debug, info, "
						"notice, warning, error, critical, alert, emergency", NULL);
		return;
	}
	str_copy(q->local->log_level, sizeof(q->local->log_level), json_object_get_string(level));
	reply_message(r, 200, legacy_result(q->m.id, json_object_new_object()));
}

/* a request inside a session: a method of features() for this era (legacyMethods too), or -32601 */
static void
serve_request(struct lreq *q, struct mcp_reply *r)
{
	char		msg[160];
	json_object *name = param(q, "name", json_type_string);

	if (name && strcmp(q->m.method, "tools/call") == 0)
		str_copy(r->log.tool, sizeof(r->log.tool), json_object_get_string(name));
	if ((!q->local && !take_session_id(q, r, OUT_SESSION_REQUIRED)) || !take_credential(q, r))
		return;
	if (!q->may_block)
	{
		r->needs_database = true;
		return;
	}
	if (!features_for_legacy(q, r))
		return;
	if (q->local && strcmp(q->m.method, "ping") == 0)
		reply_message(r, 200, legacy_result(q->m.id, json_object_new_object()));
	else if (q->local && strcmp(q->m.method, "logging/setLevel") == 0)
		set_local_level(q, r);
	else if (features_era_method_known(q->m.method, true))
		call_method(q, r);
	else
	{
		snprintf(msg, sizeof(msg), "Method not found: %.100s", q->m.method);
		mcp_reply_error(r, q->m.id, OUT_METHOD_NOT_FOUND, msg, NULL);
	}
}

/* an internal method of the session (answer, close): 202 or 200, or the outcome table's error */
static void
call_internal(struct lreq *q, struct mcp_reply *r, const char *method, json_object *params, unsigned ok_status)
{
	json_object *request;
	struct legacy_outcome out;

	if (!take_session_id(q, r, OUT_INVALID_REQUEST) || !take_credential(q, r))
	{
		json_object_put(params);
		return;
	}
	if (!q->may_block)
	{
		r->needs_database = true;
		json_object_put(params);
		return;
	}
	if (!features_for_legacy(q, r))
	{
		json_object_put(params);
		return;
	}
	request = request_object(q, method, params);
	if (call_handle(q, r, request, &out))
	{
		r->http_status = ok_status;
		legacy_outcome_free(&out);
	}
	json_object_put(request);
}

/* a posted JSON-RPC response: the answer to a server request, for whichever gateway waits for it */
static void
serve_response(struct lreq *q, struct mcp_reply *r)
{
	json_object *id = NULL;
	json_object *params;

	json_object_object_get_ex(q->root, "id", &id);
	if (id && (json_object_is_type(id, json_type_string) || json_object_is_type(id, json_type_int)))
		q->m.id = id;
	if (q->m.id)
		str_copy(r->log.rpc_id, sizeof(r->log.rpc_id), json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN));
	str_copy(r->log.rpc_method, sizeof(r->log.rpc_method), "(response)");
	if (q->local || q->m.id == NULL)
	{
		mcp_reply_error(r, q->m.id, OUT_NO_PENDING_REQUEST, NULL, NULL);
		return;
	}
	params = json_object_new_object();
	json_object_object_add(params, "response", json_object_get(q->root));
	call_internal(q, r, "mcp_notes/pending/answer", params, 202);
}

/* a GET stream cannot be held (this gateway's cap, the principal's): 405, which 2025-era clients accept */
static void
no_stream(struct mcp_reply *r)
{
	r->http_status = 405;
	r->allow = "POST, DELETE";
	str_copy(r->log.reason, sizeof(r->log.reason), "stream_limit");
}

/* the outcome of mcp_notes/listen/open -> the stream, or the error */
static void
open_get_stream(struct lreq *q, struct mcp_reply *r, const char *text)
{
	json_object *answer = text ? json_tokener_parse(text) : NULL;
	json_object *v = NULL;
	json_object *kind = NULL;

	if (json_object_object_get_ex(answer, "stream", &v))
	{
		r->producer = watch_stream_producer(v, NULL, gw_cfg.insecure_dev_principal != NULL, q->credential,
											q->session_id);
		if (r->producer.cls == NULL)
			mcp_reply_internal(r, NULL, "the stream could not be opened");
	}
	else if (json_object_object_get_ex(answer, "error", &v) && json_object_object_get_ex(v, "kind", &kind) &&
			 strcmp(json_object_get_string(kind), "stream_limit") == 0)
		no_stream(r);
	else if (v)
		mcp_reply_extension_error(r, NULL, v);
	else
		mcp_reply_internal(r, NULL, "handle() returned neither stream nor error");
	json_object_put(answer);
}

/* GET /mcp: the session's stream of resources/updated for what it subscribed to */
static void
serve_get(struct lreq *q, struct mcp_reply *r)
{
	json_object *request;
	char	   *body;
	char	   *text = NULL;
	struct db_error err = {0};

	if (!take_session_id(q, r, OUT_INVALID_REQUEST) || !take_credential(q, r))
		return;
	if (!q->may_block)
	{
		r->needs_database = true;
		return;
	}
	if (!features_for_legacy(q, r))
		return;
	if (!watch_stream_room())
	{
		no_stream(r);
		return;
	}
	request = request_object(q, "mcp_notes/listen/open", json_object_new_object());
	json_object_object_add(request, "streamable", json_object_new_boolean(1));
	body = jsonrpc_serialize(request);
	json_object_put(request);
	if (body == NULL)
		mcp_reply_internal(r, NULL, "out of memory");
	else if (db_handle(gw_cfg.insecure_dev_principal != NULL, q->credential, body, &text, &r->log.retries, &err) != OUT_OK)
		mcp_reply_db_error(r, NULL, &err);
	else
		open_get_stream(q, r, text);
	free(body);
	free(text);
}

static void
serve_delete(struct lreq *q, struct mcp_reply *r)
{
	call_internal(q, r, "mcp_notes/session/close", json_object_new_object(), 200);
}

static void
free_request(struct lreq *q)
{
	mcp_free_token(q->token);
	free(q->session_id);
	json_object_put(q->root);
}

static void
discard_request(void *state)
{
	free_request(state);
	free(state);
}

static void
resume_request(void *state, struct mcp_reply *r)
{
	struct lreq *q = state;

	q->may_block = true;
	q->serve(q, r);
	free_request(q);
	free(q);
}

/* run the branch; a branch that needs the database on an event thread is kept for a worker */
static void
serve(struct lreq *q, struct mcp_reply *r, void (*branch) (struct lreq *, struct mcp_reply *))
{
	q->serve = branch;
	branch(q, r);
	if (!mcp_reply_defer(r, q->m.id, q, sizeof(*q), resume_request, discard_request))
		free_request(q);
}

void
legacy_process(json_object *root, const struct mcp_headers *h, bool may_block, struct legacy_local *local,
			   struct mcp_reply *r)
{
	struct lreq q = {.root = root, .h = h, .may_block = may_block, .local = local};

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	r->era = ERA_WIRE_LEGACY;
	if (!json_object_object_get_ex(root, "method", NULL))
		serve(&q, r, serve_response);
	else if (mcp_check_shape(q.root, &q.m, r) && check_version_header(&q, r))
		serve(&q, r, strcmp(q.m.method, "initialize") == 0 ? serve_initialize : serve_request);
	else
		free_request(&q);
}

void
legacy_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	struct lreq q = {.h = h, .may_block = may_block};

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	r->era = ERA_WIRE_LEGACY;
	str_copy(r->log.rpc_method, sizeof(r->log.rpc_method), "(delete session)");
	serve(&q, r, serve_delete);
}

void
legacy_get(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	struct lreq q = {.h = h, .may_block = may_block};

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	r->era = ERA_WIRE_LEGACY;
	str_copy(r->log.rpc_method, sizeof(r->log.rpc_method), "(session stream)");
	serve(&q, r, serve_get);
}
