/*
 * mcp.c
 *		One MCP request: checks in the order of docs/protocol.md, then dispatch
 *		(docs/contract.md).
 *
 *   JSON parse (-32700) -> JSON-RPC shape (-32600) -> notification? 202
 *   -> required _meta (-32602) -> MCP-Protocol-Version / Mcp-Method /
 *   Mcp-Name headers (-32020) -> protocol version (-32022) -> method known
 *   from features() (-32601, 404) -> for tools/call, the Mcp-Param-* headers
 *   of the tool's x-mcp-header arguments (-32020, paramheaders.c) -> bearer
 *   token present (401, OAuth error)
 *   -> a public result from memory, or one handle() statement.
 *
 * (Origin, path, HTTP method, Content-Type and size are checked in http.c
 * before the body is read.)  The gateway looks at nothing inside params but
 * the header mirrors (Mcp-Name, and the arguments a tool marks x-mcp-header):
 * the extension judges name, arguments, requestState, cursor.  Every error's HTTP status and code come from outcome.c.  All
 * json-c objects here belong to the calling thread.
 */
#include "mcp.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "fileops.h"
#include "extension.h"
#include "jsonrpc.h"
#include "log.h"
#include "loglevel.h"
#include "outcome.h"
#include "paramheaders.h"
#include "prm.h"
#include "text.h"
#include "tokencache.h"
#include "version.h"

#define META_PROTOCOL_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CLIENT_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT_INFO		"io.modelcontextprotocol/clientInfo"

/* one request while it is checked and dispatched */
struct request
{
	json_object *root;
	struct rpc_msg m;
	json_object *meta;
	json_object *version;		/* _meta protocolVersion (a string) */
	char	   *token;			/* the bearer token, wiped when done */
	const char *credential;		/* the token, or the dev principal */
	bool		may_block;
	const struct mcp_headers *h;	/* outlives a deferred request (http.c's request context) */
	int			next;			/* the stage to run (process_request) */
};

static struct mcp_listen_hooks listen_hooks;	/* set once at startup, before any request */

/* ---------- replies ---------- */

static void
set_body(struct mcp_reply *r, json_object *resp)
{
	free(r->body);
	r->body = jsonrpc_serialize(resp);
	json_object_put(resp);
}

/* {"error": code, "error_description": message}: a 401 as RFC 6750 and the MCP SDKs answer it */
static json_object *
oauth_error(const char *code, const char *message)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "error", json_object_new_string(code));
	json_object_object_add(o, "error_description", json_object_new_string(message));
	return o;
}

/* data.scopes (an insufficient_scope outcome's), space-separated into buf; NULL when absent */
static const char *
needed_scopes(json_object *data, char *buf, size_t n)
{
	json_object *scopes;
	size_t		used = 0;

	buf[0] = '\0';
	if (!json_object_object_get_ex(data, "scopes", &scopes) || !json_object_is_type(scopes, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(scopes); i++)
	{
		json_object *s = json_object_array_get_idx(scopes, i);

		if (json_object_is_type(s, json_type_string) && used + (size_t) json_object_get_string_len(s) + 2 < n)
			used += (size_t) snprintf(buf + used, n - used, "%s%s", used ? " " : "", json_object_get_string(s));
	}
	return buf[0] ? buf : NULL;
}

/* An error of kind: status, code and headers from the outcome table; data is consumed. */
static void
reply_outcome(struct mcp_reply *r, json_object *id, enum outcome_kind kind, const char *message,
			  json_object *data)
{
	const struct outcome *o = outcome_of(kind);
	char		scopes[256];

	if (message == NULL)
		message = o->message;
	outcome_wire(kind, r->era, &r->http_status, &r->log.code);
	r->retry_after = o->retry_after;
	r->www_authenticate = o->challenge == NULL ? NULL
		: prm_challenge(o->challenge[0] ? o->challenge : NULL, needed_scopes(data, scopes, sizeof(scopes)),
						r->challenge, sizeof(r->challenge));
	str_copy(r->log.detail, sizeof(r->log.detail), message);
	if (o->oauth_error != NULL)
	{
		json_object_put(data);
		if (r->log.reason[0] == '\0')
			str_copy(r->log.reason, sizeof(r->log.reason), o->oauth_error);
		set_body(r, oauth_error(o->oauth_error, message));
		return;
	}
	set_body(r, jsonrpc_error(id, r->log.code, message, data));
}

static void
reply_result(struct mcp_reply *r, json_object *id, json_object *result)
{
	jsonrpc_add_server_info(result);
	r->http_status = 200;
	set_body(r, jsonrpc_result(id, result));
}

/* A failed database call: the client gets the table's words, the log the database's. */
static void
reply_db_error(struct mcp_reply *r, json_object *id, const struct db_error *e)
{
	char		msg[320];
	const char *text;

	if (e->kind == OUT_INVALID_PARAMS)
	{
		snprintf(msg, sizeof(msg), "Invalid params: %s", e->message);
		text = msg;
	}
	else if (e->kind == OUT_INCOMPATIBLE_EXTENSION)
		text = e->message;
	else
		text = outcome_message(e->kind, msg, sizeof(msg));
	reply_outcome(r, id, e->kind, text, NULL);
	str_copy(r->log.reason, sizeof(r->log.reason), e->sqlstate);
	if (e->message[0])
		str_copy(r->log.detail, sizeof(r->log.detail), e->message);
}

static void
reply_internal(struct mcp_reply *r, json_object *id, const char *why)
{
	struct db_error e = {OUT_INTERNAL, "", ""};

	str_copy(e.message, sizeof(e.message), why);
	reply_db_error(r, id, &e);
}

/*
 * A result that is the same for every caller, serialized once (extension.c):
 * {"jsonrpc":"2.0","id":<id>,"result":<text>} is spliced around it.
 */
static void
reply_spliced(struct mcp_reply *r, json_object *id, const char *result_text)
{
	const char *id_text;
	size_t		n;

	if (result_text == NULL)
	{
		reply_internal(r, id, "out of memory serializing a result");
		return;
	}
	id_text = json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	n = strlen(id_text) + strlen(result_text) + 40;
	free(r->body);
	r->body = malloc(n);
	if (r->body == NULL)
	{
		r->http_status = 500;
		return;
	}
	snprintf(r->body, n, "{\"jsonrpc\":\"2.0\",\"id\":%s,\"result\":%s}", id_text, result_text);
	r->http_status = 200;
}

/* ---------- envelope checks: each answers and returns false on failure ---------- */

static bool
parse_body(struct request *q, const char *body, size_t len, struct mcp_reply *r)
{
	const char *why = NULL;
	char		msg[256];

	if (jsonrpc_parse(body, len, GW_JSON_MAX_DEPTH, &q->root, &why) == 0)
		return true;
	snprintf(msg, sizeof(msg), "Parse error: %s", why);
	reply_outcome(r, NULL, OUT_PARSE_ERROR, msg, NULL);
	return false;
}

/* the JSON-RPC 2.0 shape; a notification is acknowledged (202) and never executed */
bool
mcp_check_shape(json_object *root, struct rpc_msg *m, struct mcp_reply *r)
{
	const char *why = NULL;
	int			rc = jsonrpc_check(root, m, &why);

	if (m->id)
		str_copy(r->log.rpc_id, sizeof(r->log.rpc_id), json_object_to_json_string_ext(m->id, JSON_C_TO_STRING_PLAIN));
	if (m->method)
		str_copy(r->log.rpc_method, sizeof(r->log.rpc_method), m->method);
	if (rc != 0)
	{
		reply_outcome(r, m->id, rc == RPC_INVALID_PARAMS ? OUT_INVALID_META : OUT_INVALID_REQUEST, why, NULL);
		return false;
	}
	if (!m->has_id)
	{
		r->log.notification = true;
		r->http_status = 202;
		if (strcmp(m->method, "tools/call") == 0)
			snprintf(r->log.detail, sizeof(r->log.detail), "tools/call without an id: not executed");
		return false;
	}
	return true;
}

static bool
check_shape(struct request *q, struct mcp_reply *r)
{
	return mcp_check_shape(q->root, &q->m, r);
}

static bool
check_meta(struct request *q, struct mcp_reply *r)
{
	json_object *v;

	if (q->m.params == NULL || !json_object_object_get_ex(q->m.params, "_meta", &q->meta) ||
		!json_object_is_type(q->meta, json_type_object))
	{
		reply_outcome(r, q->m.id, OUT_INVALID_META, "Invalid params: params._meta is required", NULL);
		return false;
	}
	if (!json_object_object_get_ex(q->meta, META_PROTOCOL_VERSION, &q->version) ||
		!json_object_is_type(q->version, json_type_string))
	{
		reply_outcome(r, q->m.id, OUT_INVALID_META,
					  "Invalid params: _meta[\"" META_PROTOCOL_VERSION "\"] must be a string", NULL);
		return false;
	}
	if (!json_object_object_get_ex(q->meta, META_CLIENT_CAPS, &v) || !json_object_is_type(v, json_type_object))
	{
		reply_outcome(r, q->m.id, OUT_INVALID_META,
					  "Invalid params: _meta[\"" META_CLIENT_CAPS "\"] must be an object", NULL);
		return false;
	}
	/* the deprecated per-request log level: optional, one of the eight names (SEP-2577) */
	if (json_object_object_get_ex(q->meta, META_LOG_LEVEL, &v) &&
		(!json_object_is_type(v, json_type_string) || !log_level_known(json_object_get_string(v))))
	{
		reply_outcome(r, q->m.id, OUT_INVALID_META, "Invalid params: _meta[\"" META_LOG_LEVEL "\"] must be "
					  "one of debug, info, notice, warning, error, critical, alert, emergency", NULL);
		return false;
	}
	return true;
}

static bool
header_mismatch(struct mcp_reply *r, json_object *id, const char *fmt, const char *hname)
{
	char		msg[200];

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(msg, sizeof(msg), fmt, hname);
#pragma GCC diagnostic pop
	reply_outcome(r, id, OUT_HEADER_MISMATCH, msg, NULL);
	return false;
}

/*
 * Compare a mirrored header with the body value.  body may be NULL (absent
 * or not a string): then the header must be absent too.
 */
static bool
check_header(struct mcp_reply *r, json_object *id, const char *hname, const char *raw, int count,
			 bool allow_base64, bool required, json_object *body)
{
	char	   *value = NULL;
	enum hdr_status hs;
	bool		ok;

	if (count > 1)
		return header_mismatch(r, id, "Header mismatch: %s header appears more than once", hname);
	if (count == 0 || raw == NULL)
	{
		if (!required && body == NULL)
			return true;
		return header_mismatch(r, id, "Header mismatch: required %s header is missing", hname);
	}
	hs = header_value(raw, allow_base64, &value);
	if (hs == HDR_INVALID)
		return header_mismatch(r, id, "Header mismatch: %s header contains invalid characters", hname);
	if (hs != HDR_OK)
		return header_mismatch(r, id, "Header mismatch: %s header has an invalid =?base64?...?= encoding", hname);
	ok = body != NULL && strlen(value) == (size_t) json_object_get_string_len(body) &&
		memcmp(value, json_object_get_string(body), strlen(value)) == 0;
	free(value);
	if (!ok)
		return header_mismatch(r, id, "Header mismatch: %s header does not match the request body", hname);
	return true;
}

/* params.name (tools/call, prompts/get) or params.uri (resources/read) when a string */
static json_object *
mirrored_name(struct request *q, const char **key)
{
	json_object *v;

	*key = NULL;
	if (strcmp(q->m.method, "tools/call") == 0 || strcmp(q->m.method, "prompts/get") == 0)
		*key = "name";
	else if (strcmp(q->m.method, "resources/read") == 0)
		*key = "uri";
	if (*key == NULL || !json_object_object_get_ex(q->m.params, *key, &v) ||
		!json_object_is_type(v, json_type_string))
		return NULL;
	return v;
}

static bool
check_headers(struct request *q, struct mcp_reply *r)
{
	const struct mcp_headers *h = q->h;
	json_object *method = json_object_new_string(q->m.method);
	const char *key;
	json_object *name = mirrored_name(q, &key);
	bool		ok;

	if (h->stdio)
	{
		/* stdio has no headers to mirror the body */
		json_object_put(method);
		return true;
	}
	ok = check_header(r, q->m.id, "MCP-Protocol-Version", h->protocol_version, h->n_protocol_version,
					  false, true, q->version) &&
		check_header(r, q->m.id, "Mcp-Method", h->method, h->n_method, false, true, method);
	json_object_put(method);
	if (!ok || key == NULL)
		return ok;
	if (name && strcmp(q->m.method, "tools/call") == 0)
		str_copy(r->log.tool, sizeof(r->log.tool), json_object_get_string(name));
	return check_header(r, q->m.id, "Mcp-Name", h->name, h->n_name, true, name != NULL, name);
}

static bool
check_version(struct request *q, struct mcp_reply *r)
{
	json_object *data;
	json_object *supported;

	if (strcmp(json_object_get_string(q->version), GW_PROTOCOL_VERSION) == 0)
		return true;
	data = json_object_new_object();
	supported = json_object_new_array();
	json_object_array_add(supported, json_object_new_string(GW_PROTOCOL_VERSION));
	json_object_object_add(data, "supported", supported);
	json_object_object_add(data, "requested", json_object_get(q->version));
	reply_outcome(r, q->m.id, OUT_UNSUPPORTED_VERSION, NULL, data);
	return false;
}

/* known methods: server/discover and features().methods (read once, on a worker) */
static bool
check_method(struct request *q, struct mcp_reply *r)
{
	char		msg[160];

	if (!features_ready())
	{
		struct db_error err = {0};

		if (!q->may_block)
		{
			r->needs_database = true;
			return false;
		}
		if (features_ensure(&err) != OUT_OK)
		{
			reply_db_error(r, q->m.id, &err);
			return false;
		}
	}
	if (features_era_method_known(q->m.method, false))
		return true;
	snprintf(msg, sizeof(msg), "Method not found: %.100s", q->m.method);
	reply_outcome(r, q->m.id, OUT_METHOD_NOT_FOUND, msg, NULL);
	return false;
}

/*
 * tools/call of a tool with x-mcp-header arguments: their Mcp-Param-*
 * mirrors.  After the method check because it needs features() (the tool's
 * inputSchema); still before authentication, like the other header checks.
 */
static bool
check_param_headers(struct request *q, struct mcp_reply *r)
{
	const struct mcp_headers *h = q->h;
	json_object *name;
	json_object *arguments = NULL;
	char		why[200];

	if (h->stdio || strcmp(q->m.method, "tools/call") != 0 ||
		!json_object_object_get_ex(q->m.params, "name", &name) || !json_object_is_type(name, json_type_string) ||
		!param_table_has(features_param_table(), json_object_get_string(name)))
		return true;
	json_object_object_get_ex(q->m.params, "arguments", &arguments);
	if (param_headers_check(features_param_table(), json_object_get_string(name), arguments, h, why, sizeof(why)))
		return true;
	reply_outcome(r, q->m.id, OUT_HEADER_MISMATCH, why, NULL);
	return false;
}

/* a well-formed bearer token (or the dev principal); its validity is the database's */
bool
mcp_take_credential(const struct mcp_headers *h, json_object *id, char **token, const char **credential,
					struct mcp_reply *r)
{
	enum auth_result ar;

	*token = NULL;
	if (gw_cfg.insecure_dev_principal)
	{
		*credential = gw_cfg.insecure_dev_principal;
		return true;
	}
	ar = auth_bearer_token(h->authorization, h->n_authorization, token);
	if (ar == AUTH_MALFORMED)
		reply_outcome(r, id, OUT_UNAUTHENTICATED,
					  "Unauthorized: the Authorization header must be one \"Bearer <token>\"", NULL);
	else if (ar != AUTH_OK)
		reply_outcome(r, id, OUT_CREDENTIALS_MISSING, NULL, NULL);
	*credential = *token;
	return ar == AUTH_OK;
}

void
mcp_free_token(char *token)
{
	if (token == NULL)
		return;
	memset(token, 0, strlen(token));
	free(token);
}

static bool
take_credential(struct request *q, struct mcp_reply *r)
{
	return mcp_take_credential(q->h, q->m.id, &q->token, &q->credential, r);
}

/* ---------- dispatch ---------- */

/* the token proves a principal: the token cache, else mcp_notes.authenticate() */
static bool
authenticate(struct request *q, struct mcp_reply *r)
{
	uint64_t	epoch = 0;
	char	   *principal = NULL;
	struct db_error err = {0};

	if (gw_cfg.insecure_dev_principal || tokencache_lookup(q->token, &epoch))
		return true;
	if (!q->may_block)
	{
		r->needs_database = true;
		return false;
	}
	if (db_authenticate(q->token, &principal, &err) != OUT_OK)
	{
		reply_db_error(r, q->m.id, &err);
		return false;
	}
	if (principal == NULL)
	{
		reply_outcome(r, q->m.id, OUT_UNAUTHENTICATED, NULL, NULL);
		return false;
	}
	free(principal);
	tokencache_store(q->token, epoch);
	return true;
}

/* params has no member but _meta: a publicResults entry answers it */
static bool
params_only_meta(struct request *q)
{
	json_object_object_foreach(q->m.params, key, val)
	{
		(void) val;
		if (strcmp(key, "_meta") != 0)
			return false;
	}
	return true;
}

json_object *
mcp_request_object(const char *method, json_object *params, json_object *meta, json_object *caps,
				   json_object *info, json_object *id)
{
	json_object *o = json_object_new_object();
	json_object *copy = json_object_new_object();
	json_object *v;

	if (params)
	{
		json_object_object_foreach(params, key, val)
			if (strcmp(key, "_meta") != 0)
				json_object_object_add(copy, key, json_object_get(val));
	}
	json_object_object_add(o, "method", json_object_new_string(method));
	json_object_object_add(o, "params", copy);
	if (caps)
		json_object_object_add(o, "clientCapabilities", json_object_get(caps));
	if (info && !json_object_is_type(info, json_type_null))
		json_object_object_add(o, "clientInfo", json_object_get(info));
	/* a progress token lets the handler report progress (notifications) */
	if (meta && json_object_object_get_ex(meta, "progressToken", &v) &&
		(json_object_is_type(v, json_type_string) || json_object_is_type(v, json_type_int)))
		json_object_object_add(o, "progressToken", json_object_get(v));
	if (meta && json_object_object_get_ex(meta, META_LOG_LEVEL, &v) && json_object_is_type(v, json_type_string))
		json_object_object_add(o, "logLevel", json_object_get(v));
	if (id)
		json_object_object_add(o, "requestId", json_object_get(id));
	json_object_object_add(o, "gatewayId", json_object_new_string(gw_cfg.gateway_id));
	return o;
}

/* The request object of this request, serialized; NULL when out of memory. */
static char *
request_object(struct request *q)
{
	json_object *caps = NULL;
	json_object *info = NULL;
	json_object *o;
	char	   *text;

	json_object_object_get_ex(q->meta, META_CLIENT_CAPS, &caps);
	json_object_object_get_ex(q->meta, META_CLIENT_INFO, &info);
	o = mcp_request_object(q->m.method, q->m.params, q->meta, caps, info, q->m.id);
	/* this gateway holds streams over HTTP (not on stdio, not without the hooks) */
	if (strcmp(q->m.method, "subscriptions/listen") == 0 && q->h && !q->h->stdio && listen_hooks.producer)
		json_object_object_add(o, "streamable", json_object_new_boolean(1));
	text = jsonrpc_serialize(o);
	json_object_put(o);
	return text;
}

/* {"error": {"kind", "message", "data"}} -> the JSON-RPC error of the outcome table */
static void
copy_error(struct mcp_reply *r, json_object *id, json_object *error)
{
	json_object *kind;
	json_object *message;
	json_object *data = NULL;
	json_object *reason;
	enum outcome_kind k;
	bool		known = false;
	char		why[160];

	if (!json_object_object_get_ex(error, "kind", &kind) || !json_object_is_type(kind, json_type_string) ||
		!json_object_object_get_ex(error, "message", &message) || !json_object_is_type(message, json_type_string))
	{
		reply_internal(r, id, "handle() returned a malformed error");
		return;
	}
	k = outcome_from_extension(json_object_get_string(kind), &known);
	if (!known)
	{
		snprintf(why, sizeof(why), "handle() returned an unknown error kind \"%.60s\"", json_object_get_string(kind));
		reply_internal(r, id, why);
		str_copy(r->log.reason, sizeof(r->log.reason), json_object_get_string(kind));
		return;
	}
	if (json_object_object_get_ex(error, "data", &data) && data &&
		json_object_object_get_ex(data, "reason", &reason) && json_object_is_type(reason, json_type_string))
		str_copy(r->log.reason, sizeof(r->log.reason), json_object_get_string(reason));
	reply_outcome(r, id, k, json_object_get_string(message), data ? json_object_get(data) : NULL);
}

/*
 * A result with notifications before it (progress the handler reported):
 * the reply becomes an SSE stream of the notifications, then the response,
 * one "message" event each.  Entries that are not {method: string, ...}
 * are dropped.
 */
void
mcp_reply_with_notifications(struct mcp_reply *r, json_object *notifications)
{
	size_t		cap = strlen(r->body) + 32;
	size_t		n = json_object_array_length(notifications);
	char	  **events = calloc(n + 1, sizeof(char *));
	char	   *out;
	size_t		used = 0;

	if (events == NULL)
		return;
	for (size_t i = 0; i < n; i++)
	{
		json_object *src = json_object_array_get_idx(notifications, i);
		json_object *method, *params, *msg;

		if (!json_object_is_type(src, json_type_object) ||
			!json_object_object_get_ex(src, "method", &method) || !json_object_is_type(method, json_type_string))
			continue;
		msg = json_object_new_object();
		json_object_object_add(msg, "jsonrpc", json_object_new_string("2.0"));
		json_object_object_add(msg, "method", json_object_get(method));
		if (json_object_object_get_ex(src, "params", &params) && json_object_is_type(params, json_type_object))
			json_object_object_add(msg, "params", json_object_get(params));
		events[i] = jsonrpc_serialize(msg);
		json_object_put(msg);
		if (events[i])
			cap += strlen(events[i]) + 32;
	}
	out = malloc(cap);
	if (out != NULL)
	{
		for (size_t i = 0; i < n; i++)
			if (events[i])
				used += (size_t) snprintf(out + used, cap - used, "event: message\ndata: %s\n\n", events[i]);
		snprintf(out + used, cap - used, "event: message\ndata: %s\n\n", r->body);
		free(r->body);
		r->body = out;
		r->content_type = "text/event-stream";
	}
	for (size_t i = 0; i < n; i++)
		free(events[i]);
	free(events);
}

void
mcp_set_listen_hooks(const struct mcp_listen_hooks *hooks)
{
	listen_hooks = *hooks;
}

/* {"stream": {...}}: the extension opened a listen stream; the reply is its producer */
static void
open_stream(struct request *q, struct mcp_reply *r, json_object *stream)
{
	if (listen_hooks.producer)
		r->producer = listen_hooks.producer(stream, q->m.id, gw_cfg.insecure_dev_principal != NULL,
											q->credential, NULL);
	if (r->producer.cls == NULL)
		reply_internal(r, q->m.id, "the stream could not be opened");
	else
		r->http_status = 200;
}

/* the notifications of a result, but log messages below the request's level (all without one) */
static void
add_notifications(struct request *q, struct mcp_reply *r, json_object *notifications)
{
	json_object *level = NULL;
	json_object *kept;

	if (!json_object_is_type(notifications, json_type_array) || json_object_array_length(notifications) == 0)
		return;
	json_object_object_get_ex(q->meta, META_LOG_LEVEL, &level);
	kept = log_level_filter(notifications, level ? json_object_get_string(level) : NULL);
	if (kept)
		mcp_reply_with_notifications(r, kept);
	json_object_put(kept);
}

/* the outcome object handle() returned (text) -> the reply */
static void
copy_outcome(struct request *q, struct mcp_reply *r, const char *text)
{
	json_tokener *tok = json_tokener_new_ex(128);
	json_object *answer = NULL;
	json_object *id = q->m.id;
	json_object *v;

	if (text && tok)
		answer = json_tokener_parse_ex(tok, text, (int) strlen(text));
	json_tokener_free(tok);
	if (answer == NULL || !json_object_is_type(answer, json_type_object))
		reply_internal(r, id, "handle() returned no JSON object");
	else if (json_object_object_get_ex(answer, "result", &v) && json_object_is_type(v, json_type_object))
	{
		reply_result(r, id, json_object_get(v));
		if (r->body && json_object_object_get_ex(answer, "notifications", &v))
			add_notifications(q, r, v);
	}
	else if (json_object_object_get_ex(answer, "stream", &v) && json_object_is_type(v, json_type_object))
		open_stream(q, r, v);
	else if (json_object_object_get_ex(answer, "error", &v) && json_object_is_type(v, json_type_object))
		copy_error(r, id, v);
	else
		reply_internal(r, id, "handle() returned neither result nor error");
	json_object_put(answer);
}

/* one statement: SELECT mcp_notes.handle($1, $2) (handle_as in dev mode) */
static void
call_handle(struct request *q, struct mcp_reply *r)
{
	char	   *request = request_object(q);
	char	   *text = NULL;
	struct db_error err = {0};

	if (request == NULL)
	{
		reply_internal(r, q->m.id, "out of memory building the request object");
		return;
	}
	if (strcmp(q->m.method, "subscriptions/listen") == 0 && listen_hooks.room && !listen_hooks.room())
	{
		free(request);
		reply_outcome(r, q->m.id, OUT_STREAM_LIMIT, "Too many open streams on this gateway: close one and "
					  "listen again (or through another gateway)", NULL);
		return;
	}
	if (fileops_handle(gw_cfg.insecure_dev_principal != NULL, q->credential, request, &text, &r->log.retries, &err) != OUT_OK)
		reply_db_error(r, q->m.id, &err);
	else
		copy_outcome(q, r, text);
	free(request);
	free(text);
}

static bool
dispatch(struct request *q, struct mcp_reply *r)
{
	const char *public_text = NULL;

	if (strcmp(q->m.method, "server/discover") == 0)
		public_text = features_discover_result();
	else if (params_only_meta(q))
		public_text = features_public_result(q->m.method);
	if (public_text != NULL)
	{
		if (authenticate(q, r))
			reply_spliced(r, q->m.id, public_text);
		return false;
	}
	if (!q->may_block)
		r->needs_database = true;
	else
		call_handle(q, r);
	return false;
}

/*
 * The stages after parsing, in protocol order; each answers and returns
 * false when the request ends there.  A stage that needs the database on
 * an event thread (features() not read yet, a token to authenticate, the
 * handle() call) sets needs_database instead, with no side effect: the
 * request is then kept, checked as far as it got, and a worker resumes it
 * at that stage (mcp_reply_resume) without parsing or checking it again.
 */
typedef bool (*stage_fn) (struct request *q, struct mcp_reply *r);

static const stage_fn stages[] = {
	check_shape, check_meta, check_headers, check_version, check_method, check_param_headers,
	take_credential, dispatch
};

static void
free_request(struct request *q)
{
	mcp_free_token(q->token);
	json_object_put(q->root);
}

static void resume_request(void *state, struct mcp_reply *r);

static void
discard_request(void *state)
{
	free_request(state);
	free(state);
}

bool
mcp_reply_defer(struct mcp_reply *r, json_object *id, const void *state, size_t size,
				void (*resume) (void *, struct mcp_reply *), void (*discard) (void *))
{
	void	   *kept;

	if (!r->needs_database)
		return false;
	if ((kept = malloc(size)) == NULL)
	{
		r->needs_database = false;
		reply_internal(r, id, "out of memory");
		return false;
	}
	memcpy(kept, state, size);
	r->call = (struct pending_call) {resume, discard, kept};
	return true;
}

static void
process_request(struct request *q, struct mcp_reply *r)
{
	while (q->next < (int) (sizeof(stages) / sizeof(stages[0])) && stages[q->next](q, r))
		q->next++;
	if (!mcp_reply_defer(r, q->m.id, q, sizeof(*q), resume_request, discard_request))
		free_request(q);
}

static void
resume_request(void *state, struct mcp_reply *r)
{
	struct request *q = state;

	q->may_block = true;
	process_request(q, r);
	free(q);
}

void
mcp_reply_resume(struct mcp_reply *r)
{
	struct pending_call c = r->call;

	r->call = (struct pending_call) {0};
	r->needs_database = false;
	if (c.state)
		c.resume(c.state, r);
}

void
mcp_reply_discard(struct mcp_reply *r)
{
	if (r->call.state)
		r->call.discard(r->call.state);
	r->call = (struct pending_call) {0};
}

void
mcp_process(const char *body, size_t len, const struct mcp_headers *h, bool may_block,
			struct mcp_reply *r)
{
	struct request q = {.may_block = may_block, .h = h};

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	if (parse_body(&q, body, len, r))
		process_request(&q, r);
}

void
mcp_process_parsed(json_object *root, const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	struct request q = {.may_block = may_block, .root = root, .h = h};

	memset(r, 0, sizeof(*r));
	r->http_status = 200;
	process_request(&q, r);
}

void
mcp_reply_parse_error(struct mcp_reply *r, const char *why)
{
	char		msg[256];

	memset(r, 0, sizeof(*r));
	snprintf(msg, sizeof(msg), "Parse error: %s", why);
	reply_outcome(r, NULL, OUT_PARSE_ERROR, msg, NULL);
}

void
mcp_reply_error(struct mcp_reply *r, json_object *id, enum outcome_kind kind, const char *message,
				json_object *data)
{
	reply_outcome(r, id, kind, message, data);
}

void
mcp_reply_db_error(struct mcp_reply *r, json_object *id, const struct db_error *e)
{
	reply_db_error(r, id, e);
}

void
mcp_reply_internal(struct mcp_reply *r, json_object *id, const char *why)
{
	reply_internal(r, id, why);
}

void
mcp_reply_extension_error(struct mcp_reply *r, json_object *id, json_object *error)
{
	copy_error(r, id, error);
}

void
mcp_reply_message(struct mcp_reply *r, json_object *msg)
{
	set_body(r, msg);
}
