/*
 * legacy.c
 *		Legacy-era requests (legacy.h).
 *
 * Order, for a request: JSON-RPC shape (-32600/-32602, 400) -> notification
 * (202, never executed) -> MCP-Protocol-Version, when sent, a legacy
 * version (400) -> initialize: bearer token (401), then the session is
 * opened in the database -> anything else: Mcp-Session-Id present (400),
 * bearer token (401), session live and the token's principal's
 * (legacy_session_check, 404 otherwise) -> ping, or a method of
 * features().methods through handle() with the session's capabilities ->
 * -32601.  A posted JSON-RPC response is the answer to a server request
 * (legacy_answer, 202).  JSON-RPC errors of the legacy era are HTTP 200, as
 * 2025-era clients expect; session, token and database failures keep their
 * HTTP status.
 */
#include "legacy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "extension.h"
#include "jsonrpc.h"
#include "legacywire.h"
#include "log.h"
#include "text.h"
#include "version.h"

#define NO_SESSION_MESSAGE "Invalid params: params._meta is required (MCP 2026-07-28), or the Mcp-Session-Id " \
	"header of a session opened by initialize (MCP 2025-11-25 and older)"

/* one legacy request while it is checked and answered */
struct lreq
{
	json_object *root;
	struct rpc_msg m;
	const struct mcp_headers *h;
	char	   *token;			/* the bearer token (wiped), or NULL */
	const char *credential;		/* the token, or the dev principal (stdio only) */
	char	   *session_id;		/* the Mcp-Session-Id header, decoded */
	json_object *session;		/* {protocolVersion, clientCapabilities, clientInfo} */
	bool		may_block;
	struct legacy_local *local;
};

/* a JSON-RPC message as the reply, HTTP status as given */
static void
reply_message(struct mcp_reply *r, unsigned status, json_object *msg)
{
	r->http_status = status;
	mcp_reply_message(r, msg);
}

static void
reply_rpc_error(struct mcp_reply *r, unsigned status, json_object *id, int code, const char *message,
				json_object *data)
{
	r->code = code;
	str_copy(r->detail, sizeof(r->detail), message);
	reply_message(r, status, legacy_error(id, code, message, data));
}

/* the JSON-RPC shape, as the modern era checks it; a notification is acknowledged */
static bool
check_shape(struct lreq *q, struct mcp_reply *r)
{
	return mcp_check_shape(q->root, &q->m, r);
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
		reply_rpc_error(r, 400, q->m.id, RPC_INVALID_REQUEST,
						"Bad Request: unsupported MCP-Protocol-Version header", data);
	}
	free(value);
	return ok;
}

/* the bearer token (stdio: the environment's), or the dev principal */
static bool
take_credential(struct lreq *q, struct mcp_reply *r)
{
	enum auth_result ar;

	if (gw_cfg.insecure_dev_principal)
	{
		q->credential = gw_cfg.insecure_dev_principal;
		return true;
	}
	ar = auth_bearer_token(q->h->authorization, q->h->n_authorization, &q->token);
	if (ar == AUTH_MALFORMED)
		mcp_reply_error(r, q->m.id, OUT_UNAUTHENTICATED,
						"Unauthorized: the Authorization header must be one \"Bearer <token>\"", NULL);
	else if (ar != AUTH_OK)
		mcp_reply_error(r, q->m.id, OUT_CREDENTIALS_MISSING, NULL, NULL);
	q->credential = q->token;
	return ar == AUTH_OK;
}

/* the Mcp-Session-Id header, decoded into q->session_id */
static bool
take_session_id(struct lreq *q, struct mcp_reply *r, int missing_code)
{
	if (q->h->n_session_id == 1 && q->h->session_id &&
		header_value(q->h->session_id, false, &q->session_id) == HDR_OK && q->session_id[0] != '\0' &&
		strlen(q->session_id) < 200)
		return true;
	if (q->h->n_session_id > 1)
		reply_rpc_error(r, 400, q->m.id, RPC_INVALID_REQUEST, "Bad Request: more than one Mcp-Session-Id header", NULL);
	else if (missing_code == RPC_INVALID_PARAMS)
	{
		json_object *data = json_object_new_object();

		json_object_object_add(data, "supported", legacy_all_versions());
		reply_rpc_error(r, 400, q->m.id, RPC_INVALID_PARAMS, NO_SESSION_MESSAGE, data);
	}
	else
		reply_rpc_error(r, 400, q->m.id, missing_code, "Bad Request: a valid Mcp-Session-Id header is required", NULL);
	return false;
}

/* a legacy_* entry point's outcome; NULL after replying when it failed */
static json_object *
call_db(struct lreq *q, struct mcp_reply *r, const char *sql, int n, const char *const *values)
{
	struct db_error err = {0};
	char	   *text = NULL;
	json_object *o = NULL;
	json_object *e;
	json_object *kind;

	if (db_call(sql, n, values, &text, &err) != OUT_OK)
		mcp_reply_db_error(r, q->m.id, &err);
	else if ((o = text ? json_tokener_parse(text) : NULL) == NULL)
		mcp_reply_internal(r, q->m.id, "a legacy session function returned no JSON");
	free(text);
	if (o == NULL || !json_object_object_get_ex(o, "error", &e))
		return o;
	json_object_object_get_ex(e, "kind", &kind);
	if (json_string_equals(kind, "unauthenticated"))
		mcp_reply_error(r, q->m.id, OUT_UNAUTHENTICATED, NULL, NULL);
	else if (json_string_equals(kind, "session_not_found"))
		reply_rpc_error(r, 404, q->m.id, -32001, "Session not found", NULL);
	else
	{
		json_object *reason = NULL;
		json_object *data = NULL;
		json_object *message = NULL;
		char		text[200];

		json_object_object_get_ex(e, "data", &data);
		json_object_object_get_ex(data, "reason", &reason);
		json_object_object_get_ex(e, "message", &message);
		str_copy(r->reason, sizeof(r->reason), reason ? json_object_get_string(reason) : "");
		snprintf(text, sizeof(text), "Bad Request: %.180s", message ? json_object_get_string(message) : "refused");
		reply_rpc_error(r, 400, q->m.id, RPC_INVALID_REQUEST, text, NULL);
	}
	json_object_put(o);
	return NULL;
}

/* the live session of the token's principal: q->session */
static bool
check_session(struct lreq *q, struct mcp_reply *r)
{
	const char *v[2] = {q->credential, q->session_id};

	q->session = call_db(q, r, LEGACY_SQL("legacy_session_check", "$1::text, $2::text"), 2, v);
	return q->session != NULL;
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

/* stdio: the token is checked at initialize too, so a bad one is reported at once */
static bool
local_token_valid(struct lreq *q, struct mcp_reply *r)
{
	char	   *principal = NULL;
	struct db_error err = {0};

	if (gw_cfg.insecure_dev_principal)
		return true;
	if (db_authenticate(q->credential, &principal, &err) != OUT_OK)
	{
		mcp_reply_db_error(r, q->m.id, &err);
		return false;
	}
	if (principal == NULL)
		mcp_reply_error(r, q->m.id, OUT_UNAUTHENTICATED, NULL, NULL);
	free(principal);
	return principal != NULL;
}

/* a session: in the database over HTTP (its id goes in the reply), in memory on stdio */
static bool
open_session(struct lreq *q, struct mcp_reply *r, const char *version, json_object *caps, json_object *info)
{
	const char *caps_text = json_object_to_json_string_ext(caps, JSON_C_TO_STRING_PLAIN);
	char	   *info_text = info ? strdup(json_object_to_json_string_ext(info, JSON_C_TO_STRING_PLAIN)) : NULL;
	char		ttl[24];
	const char *v[5] = {q->credential, version, caps_text, info_text, ttl};
	json_object *o;
	json_object *sid;

	if (q->local && !local_token_valid(q, r))
	{
		free(info_text);
		return false;
	}
	if (q->local)
	{
		json_object_put(q->local->caps);
		json_object_put(q->local->info);
		q->local->caps = json_object_get(caps);
		q->local->info = json_object_get(info);
		str_copy(q->local->version, sizeof(q->local->version), version);
		q->local->initialized = true;
		free(info_text);
		return true;
	}
	snprintf(ttl, sizeof(ttl), "%ld", gw_cfg.legacy_session_ttl);
	o = call_db(q, r, LEGACY_SQL("legacy_session_open", "$1::text, $2::text, $3::jsonb, $4::jsonb, "
								 "make_interval(secs => $5::double precision)"), 5, v);
	free(info_text);
	if (o == NULL)
		return false;
	if (json_object_object_get_ex(o, "sessionId", &sid))
		str_copy(r->session_id, sizeof(r->session_id), json_object_get_string(sid));
	json_object_put(o);
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
	struct db_error err = {0};

	if (!features_ready() && !q->may_block)
	{
		r->needs_database = true;
		return;
	}
	if (!features_ready() && features_ensure(&err) != OUT_OK)
	{
		mcp_reply_db_error(r, q->m.id, &err);
		return;
	}
	if (!take_credential(q, r))
		return;
	if (!q->local && !q->may_block)
	{
		r->needs_database = true;
		return;
	}
	caps = caps ? json_object_get(caps) : json_object_new_object();
	if (open_session(q, r, version, caps, info))
		reply_message(r, 200, legacy_result(q->m.id, initialize_result(version)));
	json_object_put(caps);
}

/* the request object of docs/contract.md, with the session's capabilities and client info */
static json_object *
request_object(struct lreq *q)
{
	json_object *o = json_object_new_object();
	json_object *params = json_object_new_object();
	json_object *caps = NULL;
	json_object *info = NULL;
	json_object *meta = param(q, "_meta", json_type_object);
	json_object *token = NULL;

	if (q->m.params)
	{
		json_object_object_foreach(q->m.params, key, val)
			if (strcmp(key, "_meta") != 0)
				json_object_object_add(params, key, json_object_get(val));
	}
	/* as the modern era: a progress token lets the handler report progress (notifications) */
	if (meta && json_object_object_get_ex(meta, "progressToken", &token) &&
		(json_object_is_type(token, json_type_string) || json_object_is_type(token, json_type_int)))
		json_object_object_add(o, "progressToken", json_object_get(token));
	if (q->local)
		caps = q->local->caps, info = q->local->info;
	else
	{
		json_object_object_get_ex(q->session, "clientCapabilities", &caps);
		json_object_object_get_ex(q->session, "clientInfo", &info);
	}
	json_object_object_add(o, "method", json_object_new_string(q->m.method));
	json_object_object_add(o, "params", params);
	json_object_object_add(o, "clientCapabilities", caps ? json_object_get(caps) : json_object_new_object());
	if (info && !json_object_is_type(info, json_type_null))
		json_object_object_add(o, "clientInfo", json_object_get(info));
	json_object_object_add(o, "requestId", json_object_get(q->m.id));
	json_object_object_add(o, "gatewayId", json_object_new_string(gw_cfg.gateway_id));
	return o;
}

/* the outcome needs the client: a job for the stream (HTTP) or answered now (stdio) */
static void
ask_client(struct lreq *q, struct mcp_reply *r, json_object *request, json_object *asking)
{
	struct elicit_job *job = elicit_job_new(gw_cfg.insecure_dev_principal != NULL, q->credential,
											q->session_id, request, q->m.id, asking);

	if (job == NULL)
	{
		mcp_reply_internal(r, q->m.id, "out of memory");
		return;
	}
	if (q->local)
	{
		elicit_run(job, q->local->asker);
		elicit_job_free(job);
		r->http_status = 200;
		return;
	}
	r->job = job;
	r->http_status = 200;
}

/* a result with notifications before it: an SSE stream of them (HTTP), or lines before it (stdio) */
static void
reply_result(struct lreq *q, struct mcp_reply *r, json_object *message, json_object *notifications)
{
	if (notifications && q->local)
		elicit_notify_all(q->local->asker, notifications);
	reply_message(r, 200, message);
	if (notifications && !q->local && r->body)
		mcp_reply_with_notifications(r, notifications);
	json_object_put(notifications);
}

/* one handle() statement, its outcome in the legacy shape */
static void
call_handle(struct lreq *q, struct mcp_reply *r)
{
	json_object *request = request_object(q);
	char	   *body = jsonrpc_serialize(request);
	char	   *text = NULL;
	struct db_error err = {0};
	struct legacy_out out;

	if (body == NULL ||
		db_handle(gw_cfg.insecure_dev_principal != NULL, q->credential, body, &text, &r->retries, &err) != OUT_OK)
	{
		if (body == NULL)
			mcp_reply_internal(r, q->m.id, "out of memory");
		else
			mcp_reply_db_error(r, q->m.id, &err);
	}
	else
	{
		legacy_translate(q->m.id, text, &out);
		r->code = out.code;
		str_copy(r->reason, sizeof(r->reason), out.reason);
		if (out.input_required)
			ask_client(q, r, request, out.input_required);
		else if (out.message)
			reply_result(q, r, out.message, out.notifications);
		else
			mcp_reply_error(r, q->m.id, out.kind, out.message_text, out.challenge_data);
	}
	json_object_put(request);
	free(body);
	free(text);
}

/* a request inside a session: ping, a method features() lists, or -32601 */
static void
serve_request(struct lreq *q, struct mcp_reply *r)
{
	char		msg[160];
	struct db_error err = {0};

	if (!q->local && !take_session_id(q, r, RPC_INVALID_PARAMS))
		return;
	if (!take_credential(q, r))
		return;
	if (!q->may_block)
	{
		r->needs_database = true;
		return;
	}
	if (!q->local && !check_session(q, r))
		return;
	if (!features_ready() && features_ensure(&err) != OUT_OK)
	{
		mcp_reply_db_error(r, q->m.id, &err);
		return;
	}
	if (strcmp(q->m.method, "ping") == 0)
		reply_message(r, 200, legacy_result(q->m.id, json_object_new_object()));
	else if (strcmp(q->m.method, "server/discover") != 0 && features_method_known(q->m.method))
	{
		json_object *name = param(q, "name", json_type_string);

		if (name && strcmp(q->m.method, "tools/call") == 0)
			str_copy(r->tool, sizeof(r->tool), json_object_get_string(name));
		call_handle(q, r);
	}
	else
	{
		snprintf(msg, sizeof(msg), "Method not found: %.100s", q->m.method);
		reply_rpc_error(r, 200, q->m.id, RPC_METHOD_NOT_FOUND, msg, NULL);
	}
}

/* a posted JSON-RPC response: the answer to a server request, for whichever gateway waits for it */
static void
serve_response(struct lreq *q, struct mcp_reply *r)
{
	json_object *id = NULL;
	const char *text;
	const char *v[3];
	json_object *o;

	json_object_object_get_ex(q->root, "id", &id);
	if (id && (json_object_is_type(id, json_type_string) || json_object_is_type(id, json_type_int)))
		q->m.id = id;
	if (q->m.id)
		str_copy(r->rpc_id, sizeof(r->rpc_id), json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN));
	str_copy(r->rpc_method, sizeof(r->rpc_method), "(response)");
	if (q->local || q->m.id == NULL)
	{
		reply_rpc_error(r, 400, q->m.id, RPC_INVALID_REQUEST, "Bad Request: no request is waiting for this response", NULL);
		return;
	}
	if (!take_session_id(q, r, RPC_INVALID_REQUEST) || !take_credential(q, r))
		return;
	if (!q->may_block)
	{
		r->needs_database = true;
		return;
	}
	text = json_object_to_json_string_ext(q->root, JSON_C_TO_STRING_PLAIN);
	v[0] = q->credential, v[1] = q->session_id, v[2] = text;
	o = call_db(q, r, LEGACY_SQL("legacy_answer", "$1::text, $2::text, $3::jsonb"), 3, v);
	if (o == NULL)
		return;
	json_object_put(o);
	r->http_status = 202;
}

static void
free_request(struct lreq *q)
{
	if (q->token)
	{
		memset(q->token, 0, strlen(q->token));
		free(q->token);
	}
	free(q->session_id);
	json_object_put(q->session);
	json_object_put(q->root);
}

void
legacy_process(json_object *root, const struct mcp_headers *h, bool may_block, struct legacy_local *local,
			   struct mcp_reply *r)
{
	struct lreq q = {.root = root, .h = h, .may_block = may_block, .local = local};

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	if (!json_object_object_get_ex(root, "method", NULL))
		serve_response(&q, r);
	else if (check_shape(&q, r) && check_version_header(&q, r))
	{
		if (strcmp(q.m.method, "initialize") == 0)
			serve_initialize(&q, r);
		else
			serve_request(&q, r);
	}
	free_request(&q);
}

void
legacy_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	struct lreq q = {.h = h, .may_block = may_block};
	const char *v[2];
	json_object *o;

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	str_copy(r->rpc_method, sizeof(r->rpc_method), "(delete session)");
	if (take_session_id(&q, r, RPC_INVALID_REQUEST) && take_credential(&q, r))
	{
		if (!may_block)
			r->needs_database = true;
		else
		{
			v[0] = q.credential, v[1] = q.session_id;
			o = call_db(&q, r, LEGACY_SQL("legacy_session_close", "$1::text, $2::text"), 2, v);
			if (o != NULL)
				r->http_status = 200;
			json_object_put(o);
		}
	}
	free_request(&q);
}
