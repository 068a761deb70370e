/*
 * mcp.c
 *		One MCP request: checks in the order of PROTOCOL.md, then dispatch.
 *
 *   JSON parse (-32700) -> JSON-RPC shape (-32600) -> notification? 202
 *   -> required _meta (-32602) -> MCP-Protocol-Version / Mcp-Method /
 *   Mcp-Name headers (-32020) -> protocol version (-32022) -> method
 *   (-32601, 404) -> bearer token (-32001, 401) -> handler.
 *
 * (Origin, path, HTTP method, Content-Type and size are checked in http.c
 * before the body is read.)  The gateway decides nothing about notes: the
 * handlers make one SQL call and copy its answer.  All json-c objects here
 * belong to the calling thread; the shared state is the serialized
 * discover and tools/list results (results_lock) and the accepted-token
 * cache (tokencache.c).
 */
#include "mcp.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "auth.h"
#include "config.h"
#include "db.h"
#include "http.h"
#include "jsonrpc.h"
#include "log.h"
#include "tokencache.h"

#define META_PROTOCOL_VERSION	"io.modelcontextprotocol/protocolVersion"
#define META_CLIENT_CAPS		"io.modelcontextprotocol/clientCapabilities"
#define META_CLIENT_INFO		"io.modelcontextprotocol/clientInfo"
#define META_SERVER_INFO		"io.modelcontextprotocol/serverInfo"

#define DISCOVER_TTL_MS		3600000 /* capabilities change only with a new gateway */
#define TOOLS_TTL_MS		600000	/* descriptors change only with an extension upgrade */

#define INSTRUCTIONS \
	"Notes server. notes_delete deletes one note by title inside a workspace you name " \
	"explicitly (workspaceUri, a file: URI you were granted). It always asks the user to " \
	"pick and confirm the note through a form elicitation (declare " \
	"clientCapabilities.elicitation) and then expects the same call again with " \
	"inputResponses.delete_choice and the exact requestState."

/*
 * The serialized results of server/discover and tools/list, built on first
 * use and kept until shutdown (descriptors change only with an extension
 * upgrade, and a gateway restart picks that up).
 */
static pthread_mutex_t results_lock = PTHREAD_MUTEX_INITIALIZER;
static char *discover_result;	/* guarded by results_lock */
static char *tools_list_result;	/* guarded by results_lock */

static const char *const known_methods[] = {"server/discover", "tools/list", "tools/call"};

/* ---------- reply helpers ---------- */

static void
set_body(struct mcp_reply *r, json_object *resp)
{
	free(r->body);
	r->body = jsonrpc_serialize(resp);
	json_object_put(resp);
}

static void
reply_error(struct mcp_reply *r, unsigned status, json_object *id, int code,
			const char *message, json_object *data)
{
	r->http_status = status;
	r->code = code;
	str_copy(r->detail, sizeof(r->detail), message);
	set_body(r, jsonrpc_error(id, code, message, data));
}

static json_object *
server_info(void)
{
	json_object *info = json_object_new_object();

	json_object_object_add(info, "name", json_object_new_string(GW_SERVER_NAME));
	json_object_object_add(info, "version", json_object_new_string(GW_VERSION));
	return info;
}

/* result._meta[serverInfo], keeping any _meta the result already has */
static void
add_result_meta(json_object *result)
{
	json_object *meta;

	if (!json_object_object_get_ex(result, "_meta", &meta) || !json_object_is_type(meta, json_type_object))
	{
		meta = json_object_new_object();
		json_object_object_add(result, "_meta", meta);
	}
	json_object_object_add(meta, META_SERVER_INFO, server_info());
	if (!json_object_object_get_ex(result, "resultType", NULL))
		json_object_object_add(result, "resultType", json_object_new_string("complete"));
}

static void
reply_result(struct mcp_reply *r, json_object *id, json_object *result)
{
	add_result_meta(result);
	r->http_status = 200;
	set_body(r, jsonrpc_result(id, result));
}

static void
reply_db_error(struct mcp_reply *r, json_object *id, const struct db_error *e)
{
	str_copy(r->reason, sizeof(r->reason), e->sqlstate);
	switch (e->status)
	{
		case DB_UNAVAILABLE:
			r->retry_after = true;
			reply_error(r, 503, id, RPC_INTERNAL_ERROR, "Database unavailable; try again later", NULL);
			break;
		case DB_BUSY:
			r->retry_after = true;
			reply_error(r, 503, id, RPC_INTERNAL_ERROR,
						"Gateway busy: no database connection became free in time; try again later", NULL);
			break;
		case DB_RETRIES_EXHAUSTED:
			{
				char		msg[160];

				snprintf(msg, sizeof(msg),
						 "Concurrent requests kept conflicting (serialization failure) after %ld attempts; try again",
						 gw_cfg.tool_call_attempts);
				r->retry_after = true;
				reply_error(r, 503, id, RPC_INTERNAL_ERROR, msg, NULL);
				break;
			}
		case DB_SHUTTING_DOWN:
			r->retry_after = true;
			reply_error(r, 503, id, RPC_INTERNAL_ERROR, "Gateway shutting down; try again", NULL);
			break;
		case DB_INVALID_INPUT:
			{
				char		msg[300];

				snprintf(msg, sizeof(msg), "Invalid params: %s", e->message);
				reply_error(r, 200, id, RPC_INVALID_PARAMS, msg, NULL);
				break;
			}
		default:
			reply_error(r, 500, id, RPC_INTERNAL_ERROR, "Internal error", NULL);
			break;
	}
	/* the log keeps the database's own words; the client gets the summary */
	if (e->message[0])
		str_copy(r->detail, sizeof(r->detail), e->message);
}

static void
reply_unauthorized(struct mcp_reply *r, json_object *id, bool missing)
{
	r->www_authenticate = missing ? AUTH_CHALLENGE_MISSING : AUTH_CHALLENGE_INVALID;
	reply_error(r, 401, id, RPC_UNAUTHORIZED,
				missing ? "Unauthorized: send Authorization: Bearer <token>"
				: "Unauthorized: the bearer token is invalid, expired or revoked", NULL);
}

/* ---------- header checks ---------- */

/*
 * Compare a mirrored header with the body value.  body may be NULL (absent
 * or not a string): then the header must be absent too.  Returns true when
 * consistent; otherwise replies -32020.
 */
static bool
check_header(struct mcp_reply *r, json_object *id, const char *hname, const char *raw, int count,
			 bool allow_base64, bool required, const char *body, size_t body_len)
{
	char		msg[200];
	char	   *value = NULL;
	enum hdr_status hs;
	bool		ok;

	if (count > 1)
	{
		snprintf(msg, sizeof(msg), "Header mismatch: %s header appears more than once", hname);
		reply_error(r, 400, id, RPC_HEADER_MISMATCH, msg, NULL);
		return false;
	}
	if (count == 0 || raw == NULL)
	{
		if (!required && body == NULL)
			return true;
		snprintf(msg, sizeof(msg), "Header mismatch: required %s header is missing", hname);
		reply_error(r, 400, id, RPC_HEADER_MISMATCH, msg, NULL);
		return false;
	}
	hs = http_header_value(raw, allow_base64, &value);
	if (hs != HDR_OK)
	{
		snprintf(msg, sizeof(msg), "Header mismatch: %s header %s", hname,
				 hs == HDR_INVALID ? "contains invalid characters" : "has an invalid =?base64?...?= encoding");
		reply_error(r, 400, id, RPC_HEADER_MISMATCH, msg, NULL);
		return false;
	}
	ok = body != NULL && strlen(value) == body_len && memcmp(value, body, body_len) == 0;
	free(value);
	if (!ok)
	{
		snprintf(msg, sizeof(msg), "Header mismatch: %s header does not match the request body", hname);
		reply_error(r, 400, id, RPC_HEADER_MISMATCH, msg, NULL);
		return false;
	}
	return true;
}

/* ---------- handlers ---------- */

/*
 * server/discover and tools/list answer the same result to every caller, so
 * each is serialized once and every answer is spliced around it:
 * {"jsonrpc":"2.0","id":<id>,"result":<text>} -- byte for byte what building
 * the tree each time gave, without the per-request parse, tree and
 * serialization.
 */
static void
reply_spliced(struct mcp_reply *r, json_object *id, const char *result_text)
{
	const char *id_text;
	size_t		n;

	if (result_text == NULL)
	{
		struct db_error e = {DB_INTERNAL, "", "out of memory serializing a result"};

		reply_db_error(r, id, &e);
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

/* Serialize a finished result once; returns the shared copy (never freed before shutdown). */
static const char *
remember_result(char **slot, json_object *result)
{
	char	   *text;
	const char *kept;

	add_result_meta(result);
	text = jsonrpc_serialize(result);
	json_object_put(result);
	if (text == NULL)
		return NULL;
	pthread_mutex_lock(&results_lock);
	if (*slot == NULL)
		*slot = text;
	else
		free(text);				/* another thread built it first */
	kept = *slot;
	pthread_mutex_unlock(&results_lock);
	return kept;
}

static const char *
cached_result(char **slot)
{
	const char *kept;

	pthread_mutex_lock(&results_lock);
	kept = *slot;
	pthread_mutex_unlock(&results_lock);
	return kept;
}

static void
handle_discover(struct mcp_reply *r, json_object *id)
{
	const char *text = cached_result(&discover_result);

	if (text == NULL)
	{
		json_object *result = json_object_new_object();
		json_object *versions = json_object_new_array();
		json_object *caps = json_object_new_object();

		json_object_object_add(result, "resultType", json_object_new_string("complete"));
		json_object_array_add(versions, json_object_new_string(GW_PROTOCOL_VERSION));
		json_object_object_add(result, "supportedVersions", versions);
		json_object_object_add(caps, "tools", json_object_new_object());
		json_object_object_add(result, "capabilities", caps);
		json_object_object_add(result, "ttlMs", json_object_new_int(DISCOVER_TTL_MS));
		json_object_object_add(result, "cacheScope", json_object_new_string("public"));
		json_object_object_add(result, "instructions", json_object_new_string(INSTRUCTIONS));
		text = remember_result(&discover_result, result);
	}
	reply_spliced(r, id, text);
}

static void
handle_tools_list(struct mcp_reply *r, json_object *id, json_object *params, bool may_block)
{
	const char *text;
	json_object *cursor;

	if (json_object_object_get_ex(params, "cursor", &cursor) && cursor != NULL)
	{
		reply_error(r, 200, id, RPC_INVALID_PARAMS, "Invalid params: unknown cursor (tools/list has one page)", NULL);
		return;
	}

	text = cached_result(&tools_list_result);
	if (text == NULL && !may_block)
	{
		r->needs_database = true;
		return;
	}
	if (text == NULL)
	{
		char	   *descriptors = NULL;
		json_object *tools;
		json_object *result;
		struct db_error err = {0};
		enum db_status st = db_tool_descriptors(&descriptors, &err);

		if (st != DB_OK)
		{
			reply_db_error(r, id, &err);
			return;
		}
		tools = descriptors ? json_tokener_parse(descriptors) : NULL;
		free(descriptors);
		if (tools == NULL || !json_object_is_type(tools, json_type_array))
		{
			struct db_error e = {DB_INTERNAL, "", "tool_descriptors() is not a JSON array"};

			json_object_put(tools);
			reply_db_error(r, id, &e);
			return;
		}
		result = json_object_new_object();
		json_object_object_add(result, "resultType", json_object_new_string("complete"));
		json_object_object_add(result, "tools", tools);
		json_object_object_add(result, "ttlMs", json_object_new_int(TOOLS_TTL_MS));
		json_object_object_add(result, "cacheScope", json_object_new_string("public"));
		text = remember_result(&tools_list_result, result);
	}
	reply_spliced(r, id, text);
}

static char *
member_json(json_object *obj, const char *key)
{
	json_object *v;

	if (obj == NULL || !json_object_object_get_ex(obj, key, &v))
		return NULL;			/* absent: SQL NULL */
	if (v == NULL)
		return strdup("null");	/* present JSON null: jsonb 'null', the database judges it */
	return jsonrpc_serialize(v);
}

static void
handle_tools_call(struct mcp_reply *r, json_object *id, json_object *params, json_object *meta,
				  const char *credential)
{
	json_object *name = NULL;
	json_object *state = NULL;
	json_object *answer = NULL;
	json_object *v;
	char	   *args[9] = {0};
	char	   *text = NULL;
	struct db_error err = {0};
	enum db_status st;
	json_tokener *tok;

	if (!json_object_object_get_ex(params, "name", &name) || !json_object_is_type(name, json_type_string))
	{
		reply_error(r, 200, id, RPC_INVALID_PARAMS, "Invalid params: params.name must be a string", NULL);
		return;
	}
	if (json_object_object_get_ex(params, "requestState", &state) && !json_object_is_type(state, json_type_string))
	{
		json_object *data = json_object_new_object();

		json_object_object_add(data, "reason", json_object_new_string("state_malformed"));
		snprintf(r->reason, sizeof(r->reason), "state_malformed");
		reply_error(r, 200, id, RPC_INVALID_PARAMS, "Invalid params: requestState must be a string", data);
		return;
	}

	args[0] = strdup(credential);
	args[1] = strdup(json_object_get_string(name));
	args[2] = member_json(params, "arguments");
	args[3] = member_json(params, "inputResponses");
	args[4] = state ? strdup(json_object_get_string(state)) : NULL;
	args[5] = member_json(meta, META_CLIENT_CAPS);
	args[6] = jsonrpc_id_text(id);
	args[7] = member_json(meta, META_CLIENT_INFO);
	args[8] = strdup(gw_cfg.gateway_id);

	st = db_call_tool(gw_cfg.insecure_dev_principal != NULL, (const char *const *) args, &text, &r->retries, &err);
	for (int i = 0; i < 9; i++)
		free(args[i]);
	if (st != DB_OK)
	{
		reply_db_error(r, id, &err);
		free(text);
		return;
	}

	tok = json_tokener_new_ex(128);
	if (text && tok)
		answer = json_tokener_parse_ex(tok, text, (int) strlen(text));
	json_tokener_free(tok);
	free(text);
	if (answer == NULL || !json_object_is_type(answer, json_type_object))
	{
		struct db_error e = {DB_INTERNAL, "", "call_tool() returned no JSON object"};

		json_object_put(answer);
		reply_db_error(r, id, &e);
		return;
	}

	if (json_object_object_get_ex(answer, "result", &v) && json_object_is_type(v, json_type_object))
	{
		json_object *result = json_object_get(v);

		json_object_put(answer);
		reply_result(r, id, result);
		return;
	}
	if (json_object_object_get_ex(answer, "error", &v) && json_object_is_type(v, json_type_object))
	{
		json_object *code;
		json_object *message;
		json_object *data = NULL;
		json_object *reason;
		json_object *hs;
		int			status = 200;

		if (!json_object_object_get_ex(v, "code", &code) || !json_object_is_type(code, json_type_int) ||
			!json_object_object_get_ex(v, "message", &message) || !json_object_is_type(message, json_type_string))
		{
			struct db_error e = {DB_INTERNAL, "", "call_tool() returned a malformed error"};

			json_object_put(answer);
			reply_db_error(r, id, &e);
			return;
		}
		if (json_object_object_get_ex(answer, "httpStatus", &hs) && json_object_is_type(hs, json_type_int))
			status = json_object_get_int(hs);
		if (status < 200 || status > 599)
			status = 500;
		if (json_object_object_get_ex(v, "data", &data))
		{
			if (data && json_object_object_get_ex(data, "reason", &reason) &&
				json_object_is_type(reason, json_type_string))
				str_copy(r->reason, sizeof(r->reason), json_object_get_string(reason));
			data = json_object_get(data);
		}
		if (status == 401)
			r->www_authenticate = AUTH_CHALLENGE_INVALID;
		reply_error(r, (unsigned) status, id, json_object_get_int(code), json_object_get_string(message), data);
		json_object_put(answer);
		return;
	}
	json_object_put(answer);
	{
		struct db_error e = {DB_INTERNAL, "", "call_tool() returned neither result nor error"};

		reply_db_error(r, id, &e);
	}
}

/* ---------- the pipeline ---------- */

void
mcp_process(const char *body, size_t len, const struct mcp_headers *h, bool may_block,
			struct mcp_reply *r)
{
	json_object *root = NULL;
	json_object *meta = NULL;
	json_object *v;
	json_object *name_body = NULL;
	struct rpc_msg m;
	const char *why = NULL;
	const char *name_key = NULL;
	char	   *token = NULL;
	char	   *principal = NULL;
	const char *credential;
	bool		known = false;
	uint64_t	epoch = 0;
	int			rc;
	char		msg[256];

	memset(r, 0, sizeof(*r));
	r->http_status = 200;

	/* 1. JSON */
	if (jsonrpc_parse(body, len, GW_JSON_MAX_DEPTH, &root, &why) != 0)
	{
		snprintf(msg, sizeof(msg), "Parse error: %s", why);
		reply_error(r, 400, NULL, RPC_PARSE_ERROR, msg, NULL);
		return;
	}

	/* 2. JSON-RPC 2.0 shape */
	rc = jsonrpc_check(root, &m, &why);
	if (m.id)
		str_copy(r->rpc_id, sizeof(r->rpc_id), json_object_to_json_string_ext(m.id, JSON_C_TO_STRING_PLAIN));
	if (m.method)
		str_copy(r->rpc_method, sizeof(r->rpc_method), m.method);
	if (rc != 0)
	{
		reply_error(r, 400, m.id, rc, why, NULL);
		goto done;
	}

	/* notifications are acknowledged and never answered, nor executed */
	if (!m.has_id)
	{
		r->notification = true;
		r->http_status = 202;
		if (strcmp(m.method, "tools/call") == 0)
			snprintf(r->detail, sizeof(r->detail), "tools/call without an id: not executed");
		goto done;
	}

	/* 3. required _meta */
	if (m.params == NULL || !json_object_object_get_ex(m.params, "_meta", &meta) ||
		!json_object_is_type(meta, json_type_object))
	{
		reply_error(r, 400, m.id, RPC_INVALID_PARAMS, "Invalid params: params._meta is required", NULL);
		goto done;
	}
	if (!json_object_object_get_ex(meta, META_PROTOCOL_VERSION, &v) || !json_object_is_type(v, json_type_string))
	{
		reply_error(r, 400, m.id, RPC_INVALID_PARAMS,
					"Invalid params: _meta[\"" META_PROTOCOL_VERSION "\"] must be a string", NULL);
		goto done;
	}
	if (!json_object_object_get_ex(meta, META_CLIENT_CAPS, &v) || !json_object_is_type(v, json_type_object))
	{
		reply_error(r, 400, m.id, RPC_INVALID_PARAMS,
					"Invalid params: _meta[\"" META_CLIENT_CAPS "\"] must be an object", NULL);
		goto done;
	}
	json_object_object_get_ex(meta, META_PROTOCOL_VERSION, &v);

	/* 4. mirrored headers */
	if (!check_header(r, m.id, "MCP-Protocol-Version", h->protocol_version, h->n_protocol_version,
					  false, true, json_object_get_string(v), (size_t) json_object_get_string_len(v)))
		goto done;
	if (!check_header(r, m.id, "Mcp-Method", h->method, h->n_method, false, true,
					  m.method, strlen(m.method)))
		goto done;
	if (strcmp(m.method, "tools/call") == 0 || strcmp(m.method, "prompts/get") == 0)
		name_key = "name";
	else if (strcmp(m.method, "resources/read") == 0)
		name_key = "uri";
	if (name_key)
	{
		if (!json_object_object_get_ex(m.params, name_key, &name_body) ||
			!json_object_is_type(name_body, json_type_string))
			name_body = NULL;
		if (name_body && strcmp(m.method, "tools/call") == 0)
			str_copy(r->tool, sizeof(r->tool), json_object_get_string(name_body));
		if (!check_header(r, m.id, "Mcp-Name", h->name, h->n_name, true, name_body != NULL,
						  name_body ? json_object_get_string(name_body) : NULL,
						  name_body ? (size_t) json_object_get_string_len(name_body) : 0))
			goto done;
	}

	/* 5. protocol version */
	if (strcmp(json_object_get_string(v), GW_PROTOCOL_VERSION) != 0)
	{
		json_object *data = json_object_new_object();
		json_object *supported = json_object_new_array();

		json_object_array_add(supported, json_object_new_string(GW_PROTOCOL_VERSION));
		json_object_object_add(data, "supported", supported);
		json_object_object_add(data, "requested", json_object_get(v));
		reply_error(r, 400, m.id, RPC_UNSUPPORTED_VERSION, "Unsupported protocol version", data);
		goto done;
	}

	/* 6. method */
	for (size_t i = 0; i < sizeof(known_methods) / sizeof(known_methods[0]); i++)
		if (strcmp(m.method, known_methods[i]) == 0)
			known = true;
	if (!known)
	{
		snprintf(msg, sizeof(msg), "Method not found: %.100s", m.method);
		reply_error(r, 404, m.id, RPC_METHOD_NOT_FOUND, msg, NULL);
		goto done;
	}

	/* 7. authentication */
	if (gw_cfg.insecure_dev_principal)
		credential = gw_cfg.insecure_dev_principal;
	else
	{
		enum auth_result ar = auth_bearer_token(h->authorization, h->n_authorization, &token);

		if (ar == AUTH_MALFORMED)
		{
			r->www_authenticate = AUTH_CHALLENGE_INVALID;
			reply_error(r, 401, m.id, RPC_UNAUTHORIZED,
						"Unauthorized: the Authorization header must be one \"Bearer <token>\"", NULL);
			goto done;
		}
		if (ar != AUTH_OK)
		{
			reply_unauthorized(r, m.id, true);
			goto done;
		}
		credential = token;

		/*
		 * tools/call authenticates inside call_tool: one round trip.  The
		 * public answers may use a recent acceptance (tokencache.h).
		 */
		if (strcmp(m.method, "tools/call") != 0 && !tokencache_lookup(token, &epoch))
		{
			struct db_error err = {0};
			enum db_status st;

			if (!may_block)
			{
				r->needs_database = true;
				goto done;
			}
			st = db_authenticate(token, &principal, &err);

			if (st != DB_OK)
			{
				reply_db_error(r, m.id, &err);
				goto done;
			}
			if (principal == NULL)
			{
				reply_unauthorized(r, m.id, false);
				goto done;
			}
			tokencache_store(token, epoch);
		}
	}

	/* 8. dispatch */
	if (strcmp(m.method, "server/discover") == 0)
		handle_discover(r, m.id);
	else if (strcmp(m.method, "tools/list") == 0)
		handle_tools_list(r, m.id, m.params, may_block);
	else if (!may_block)
		r->needs_database = true;
	else
		handle_tools_call(r, m.id, m.params, meta, credential);

done:
	if (token)
	{
		memset(token, 0, strlen(token));
		free(token);
	}
	free(principal);
	json_object_put(root);
}

void
mcp_shutdown(void)
{
	pthread_mutex_lock(&results_lock);
	free(discover_result);
	free(tools_list_result);
	discover_result = tools_list_result = NULL;
	pthread_mutex_unlock(&results_lock);
}
