/*
 * envelope_fuzz.c
 *		libFuzzer target for the gateway's request pipeline without a server
 *		or a database: gateway/src/mcp.c (mcp_process: checks in protocol
 *		order, dispatch, copying the outcome object), jsonrpc.c (strict JSON
 *		scan, json-c parse, JSON-RPC shape), auth.c (bearer token), headers.c
 *		(trimming, =?base64?...?= decoding), paramheaders.c (the Mcp-Param-*
 *		mirrors of x-mcp-header arguments), outcome.c (the outcome table),
 *		extension.c (features() and the public results), text.c, clock.c,
 *		log.c and config.c, all compiled unchanged; neither libmicrohttpd nor
 *		libpq is linked.  The database is replaced by the stubs below (db.h,
 *		tokencache.h), whose answers the input chooses.
 *
 *	Input:	byte 0 = mode: bit 0 dev principal (no tokens), bit 1 the token is
 *			unknown to the database, bits 2-7 pick the handle() answer
 *			(answers[] below).  Then header lines "Name: value" up to the
 *			first empty line, then the body.  Without an empty line there are
 *			no headers and everything after byte 0 is the body.  Header names
 *			are matched case-insensitively and counted as http.c does (first
 *			value kept); a value ends at a NUL byte as a C string would.
 *
 *	Invariants (any violation prints the input and aborts):
 *	 1. No crash, no undefined behaviour, no leak (ASan + UBSan + LSan).
 *	 2. The outcome is one docs/protocol.md / docs/gateway.md defines: 202 with no
 *		body for a notification, 200 with a result, or an error whose (HTTP
 *		status, JSON-RPC code) pair is in allowed[]; 401 carries
 *		WWW-Authenticate and is the OAuth error object {error: invalid_token,
 *		error_description}, not JSON-RPC; 503 carries Retry-After.  Never
 *		-32002, -32042, a legacy code (-32000..-32019) or another code in
 *		-32020..-32099.
 *	 3. Every body re-parses with the gateway's own strict parser (valid
 *		UTF-8, no duplicate names, ...) and, but for a 401, is a JSON-RPC 2.0
 *		response: an error has no result and no resultType; a result has
 *		resultType complete or input_required and _meta.serverInfo.
 *	 4. The id is echoed: absent (never null: the 2026-07-28 schema has no
 *		null id) for -32700 and when the request's id is not a string or an
 *		integer, the request's id otherwise.  -32022 carries
 *		data {supported: ["2026-07-28"], requested: <the _meta version>}.
 *	 5. The database is reached only by a request that passed every envelope
 *		check (JSON-RPC 2.0, an id, _meta, matching headers, version
 *		2026-07-28, a method features() names); in dev mode authenticate()
 *		is never called; handle() gets the bearer token (token68, <= 1024
 *		bytes) or the dev principal and the request object of
 *		docs/contract.md as JSON text PostgreSQL can read (strict JSON, no
 *		\u0000): method, params without _meta, clientCapabilities,
 *		clientInfo when sent, requestId, gatewayId.  A public result
 *		(tools/list with nothing but _meta) is served from memory.
 *	 5a. A tools/call of "tagged" (its region and n arguments are marked
 *		x-mcp-header Region and N) reaches the database only when each such
 *		argument that has a string or integer value came with exactly one
 *		Mcp-Param-Region / Mcp-Param-N header that is either the value
 *		itself (trimmed) or a =?base64?...?= whose payload is padded (a
 *		multiple of four characters); an argument absent or null needs none.
 *	 6. The outcome object is copied faithfully (result, data, data.reason;
 *		HTTP status and code from the kind), and a malformed one or an
 *		unknown kind is a 500.
 *	 7. The fields of the request log line (rpc_id, rpc_method, tool, reason,
 *		detail) are NUL-terminated valid UTF-8, so the JSON log line is too.
 *	 8. The same input gives byte-identical replies twice in a row
 *		(statelessness: nothing of one request survives into the next).
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "config.h"
#include "db.h"
#include "extension.h"
#include "fileops.h"
#include "tokencache.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp.h"
#include "text.h"

#define PROTOCOL_VERSION	"2026-07-28"
#define META_VERSION		"io.modelcontextprotocol/protocolVersion"
#define META_CAPS			"io.modelcontextprotocol/clientCapabilities"
#define META_INFO			"io.modelcontextprotocol/clientInfo"
#define META_SERVER			"io.modelcontextprotocol/serverInfo"
#define DEV_PRINCIPAL		"alice"
#define MAX_HEADERS			64

/* ------------------------------------------------------------ reporting */

static const uint8_t *cur_data;
static size_t cur_size;

static void
print_bytes(const char *label, const void *p, size_t n)
{
	const unsigned char *s = p;

	fprintf(stderr, "  %s (%zu bytes): \"", label, n);
	for (size_t i = 0; i < n && i < 600; i++)
	{
		if (s[i] >= 0x20 && s[i] < 0x7F && s[i] != '"' && s[i] != '\\')
			fputc(s[i], stderr);
		else
			fprintf(stderr, "\\x%02x", s[i]);
	}
	fprintf(stderr, "%s\"\n", n > 600 ? "..." : "");
}

static void fail(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));

static const struct mcp_reply *cur_reply;

static void
fail(const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "INVARIANT VIOLATED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	print_bytes("input", cur_data, cur_size);
	if (cur_reply)
	{
		fprintf(stderr, "  reply: HTTP %u, code %d\n", cur_reply->http_status, cur_reply->log.code);
		if (cur_reply->body)
			print_bytes("body", cur_reply->body, strlen(cur_reply->body));
	}
	abort();
}

/* ------------------------------------------------------------ database stubs */

enum answer_kind
{
	ANS_RESULT_COMPLETE,
	ANS_RESULT_INPUT_REQUIRED,
	ANS_ERROR_STATE,
	ANS_ERROR_CAPABILITY,
	ANS_ERROR_TOKEN,
	ANS_UNAVAILABLE,			/* every call: cannot connect */
	ANS_BUSY,
	ANS_RETRIES_EXHAUSTED,
	ANS_INVALID_INPUT,			/* class 22, message quoting the method */
	ANS_INTERNAL,
	ANS_SHUTTING_DOWN,
	ANS_NOT_JSON,
	ANS_ARRAY,
	ANS_NEITHER,
	ANS_ERROR_MALFORMED,
	ANS_SQL_NULL,
	ANS_ERROR_UNKNOWN_KIND,
	ANS_ERROR_METHOD,
	ANS_TIMEOUT,
	N_ANSWERS
};

static const char *const answer_text[N_ANSWERS] = {
	[ANS_RESULT_COMPLETE] = "{\"result\": {\"content\": [{\"type\": \"text\", \"text\": \"Deleted.\"}], "
	"\"isError\": false, \"structuredContent\": {\"deleted\": true, \"noteId\": \"n1\"}, \"resultType\": \"complete\"}}",
	[ANS_RESULT_INPUT_REQUIRED] = "{\"result\": {\"resultType\": \"input_required\", \"inputRequests\": "
	"{\"delete_choice\": {\"method\": \"elicitation/create\", \"params\": {\"mode\": \"form\", \"message\": \"Pick\", "
	"\"requestedSchema\": {\"type\": \"object\", \"properties\": {\"confirm\": {\"type\": \"boolean\"}}, "
	"\"required\": [\"confirm\"]}}}}, \"requestState\": \"v1.1.e30.AAAA\"}}",
	[ANS_ERROR_STATE] = "{\"error\": {\"kind\": \"invalid_params\", \"message\": \"Invalid params: invalid requestState\", "
	"\"data\": {\"reason\": \"state_bad_signature\"}}}",
	[ANS_ERROR_CAPABILITY] = "{\"error\": {\"kind\": \"missing_capability\", \"message\": \"Missing required client capability\", "
	"\"data\": {\"requiredCapabilities\": {\"elicitation\": {\"form\": {}}}}}}",
	[ANS_ERROR_TOKEN] = "{\"error\": {\"kind\": \"unauthenticated\", \"message\": \"Unauthorized\"}}",
	[ANS_NOT_JSON] = "this is not JSON",
	[ANS_ARRAY] = "[1, 2]",
	[ANS_NEITHER] = "{\"result\": 5, \"error\": \"x\"}",
	[ANS_ERROR_MALFORMED] = "{\"error\": {\"kind\": 7, \"message\": \"m\"}}",
	[ANS_ERROR_UNKNOWN_KIND] = "{\"error\": {\"kind\": \"parse_error\", \"message\": \"not one handle() may give\"}}",
	[ANS_ERROR_METHOD] = "{\"error\": {\"kind\": \"method_not_found\", \"message\": \"Method not found\"}}",
};

#define FEATURES_TEXT \
	"{\"extensionVersion\": \"1.2\", \"contract\": 2, \"methods\": [\"tools/list\", \"tools/call\"], " \
	"\"publicResults\": {\"tools/list\": {\"tools\": [{\"name\": \"notes_delete\", \"title\": \"Delete a note\", " \
	"\"inputSchema\": {\"type\": \"object\", \"properties\": {\"workspaceUri\": {\"type\": \"string\"}, " \
	"\"title\": {\"type\": \"string\"}}, \"required\": [\"workspaceUri\", \"title\"]}}, " \
	"{\"name\": \"tagged\", \"inputSchema\": {\"type\": \"object\", \"properties\": {" \
	"\"region\": {\"type\": \"string\", \"x-mcp-header\": \"Region\"}, " \
	"\"n\": {\"type\": \"integer\", \"x-mcp-header\": \"N\"}, " \
	"\"bad\": {\"type\": \"object\", \"x-mcp-header\": \"Bad\"}}}}], " \
	"\"ttlMs\": 600000, \"cacheScope\": \"public\"}}, \"capabilities\": {\"tools\": {}}, " \
	"\"instructions\": \"Notes server.\", \"tokenChannel\": \"mcp_notes_tokens\"}"

static struct
{
	int			answer;
	bool		token_known;
	int			n_auth;
	int			n_handle;
	bool		handle_dev;
	char	   *credential;
	char	   *request;
} stub;

static void
stub_reset(void)
{
	free(stub.credential);
	free(stub.request);
	memset(&stub, 0, sizeof(stub));
}

static enum outcome_kind
stub_failure(struct db_error *err)
{
	static const struct
	{
		int			answer;
		enum outcome_kind kind;
		const char *sqlstate;
	}			map[] = {
		{ANS_UNAVAILABLE, OUT_DATABASE_UNAVAILABLE, "08006"},
		{ANS_BUSY, OUT_DATABASE_BUSY, ""},
		{ANS_RETRIES_EXHAUSTED, OUT_RETRIES_EXHAUSTED, "40001"},
		{ANS_INTERNAL, OUT_INTERNAL, "42501"},
		{ANS_SHUTTING_DOWN, OUT_SHUTTING_DOWN, "57014"},
		{ANS_TIMEOUT, OUT_STATEMENT_TIMEOUT, "57014"},
	};

	for (size_t i = 0; i < sizeof(map) / sizeof(map[0]); i++)
		if (map[i].answer == stub.answer)
		{
			err->kind = map[i].kind;
			str_copy(err->sqlstate, sizeof(err->sqlstate), map[i].sqlstate);
			str_copy(err->message, sizeof(err->message), "stub failure");
			return map[i].kind;
		}
	return OUT_OK;
}

/* features(): read once by LLVMFuzzerInitialize, as a gateway does on its first request */
static bool features_loading;

enum outcome_kind
db_features(char **json, struct db_error *err)
{
	(void) err;
	if (!features_loading)
		fail("features() read again: it is read once per process");
	*json = strdup(FEATURES_TEXT);
	return OUT_OK;
}

enum outcome_kind
db_extension_version(char **version, struct db_error *err)
{
	(void) err;
	*version = strdup("1.2");
	return OUT_OK;
}

enum outcome_kind
db_authenticate(const char *token, char **principal, struct db_error *err)
{
	stub.n_auth++;
	*principal = NULL;
	if (stub.answer == ANS_UNAVAILABLE)
		return stub_failure(err);
	if (token == NULL)
		fail("authenticate(NULL)");
	if (stub.token_known)
		*principal = strdup(DEV_PRINCIPAL);
	return OUT_OK;
}

enum outcome_kind
db_handle(bool dev, const char *credential, const char *request, char **json, int *retries,
		  struct db_error *err)
{
	enum outcome_kind kind;

	stub.n_handle++;
	stub.handle_dev = dev;
	stub.credential = credential ? strdup(credential) : NULL;
	stub.request = request ? strdup(request) : NULL;
	*json = NULL;
	*retries = 0;
	if (stub.answer == ANS_INVALID_INPUT)
	{
		/* as db.c does: PostgreSQL's words, truncated into a fixed buffer */
		char		msg[600];

		snprintf(msg, sizeof(msg), "invalid input syntax for type json: request \"%s\"", request ? request : "");
		err->kind = OUT_INVALID_PARAMS;
		str_copy(err->sqlstate, sizeof(err->sqlstate), "22P02");
		str_copy(err->message, sizeof(err->message), msg);
		return OUT_INVALID_PARAMS;
	}
	kind = stub_failure(err);
	if (kind != OUT_OK)
	{
		if (kind == OUT_RETRIES_EXHAUSTED)
			*retries = 7;
		return kind;
	}
	if (stub.answer != ANS_SQL_NULL)
		*json = strdup(answer_text[stub.answer] ? answer_text[stub.answer] : answer_text[ANS_RESULT_COMPLETE]);
	return OUT_OK;
}

/*
 * fileops.c (the bounded wait for a file operation) needs a LISTEN
 * connection and is not linked: the pipeline's call goes straight to the
 * stubbed db_handle, whose answers never carry "await".
 */
enum outcome_kind
fileops_handle(bool dev, const char *credential, const char *request, char **json, int *retries,
			   struct db_error *err)
{
	return db_handle(dev, credential, request, json, retries, err);
}

/*
 * tokencache.h: the cache is never warm here (it trusts nothing without its
 * LISTEN connection, and there is no database), so every token goes to the
 * db_authenticate stub above and the invariants on its calls still hold.
 * tests/e2e/test_auth.py tests the cache against a real database.
 */
bool
tokencache_lookup(const char *token, uint64_t *epoch)
{
	(void) token;
	*epoch = 0;
	return false;
}

void
tokencache_store(const char *token, uint64_t epoch)
{
	(void) token;
	(void) epoch;
}

/* ------------------------------------------------------------ helpers */

static bool
utf8_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t		i = 0;

	while (i < n)
	{
		unsigned char c = p[i];
		int			k;
		unsigned char lo = 0x80,
					hi = 0xBF;

		if (c < 0x80)
		{
			i++;
			continue;
		}
		if (c >= 0xC2 && c <= 0xDF)
			k = 1;
		else if (c >= 0xE0 && c <= 0xEF)
		{
			k = 2;
			lo = c == 0xE0 ? 0xA0 : 0x80;
			hi = c == 0xED ? 0x9F : 0xBF;
		}
		else if (c >= 0xF0 && c <= 0xF4)
		{
			k = 3;
			lo = c == 0xF0 ? 0x90 : 0x80;
			hi = c == 0xF4 ? 0x8F : 0xBF;
		}
		else
			return false;
		if (i + (size_t) k >= n || p[i + 1] < lo || p[i + 1] > hi)
			return false;
		for (int j = 2; j <= k; j++)
			if (p[i + j] < 0x80 || p[i + j] > 0xBF)
				return false;
		i += (size_t) k + 1;
	}
	return true;
}

static void
check_field(const char *name, const char *field, size_t size)
{
	size_t		n = strnlen(field, size);

	if (n == size)
		fail("log field %s is not NUL-terminated", name);
	if (!utf8_ok(field, n))
		fail("log field %s is not valid UTF-8", name);
}

/*
 * Does JSON text hold the escape \u0000?  Only a backslash that is not itself
 * escaped starts one: in "a\\u0000" the backslash is a character and "u0000"
 * plain text, which jsonb accepts.
 */
static bool
has_nul_escape(const char *text)
{
	for (const char *p = strstr(text, "u0000"); p != NULL; p = strstr(p + 1, "u0000"))
	{
		const char *q = p;

		while (q > text && q[-1] == '\\')
			q--;
		if ((p - q) % 2 == 1)	/* an odd run of backslashes ends in an escaping one */
			return true;
	}
	return false;
}

/* strict JSON text, as PostgreSQL's jsonb would need it (no \u0000) */
static void
check_sql_json(const char *what, const char *text)
{
	json_object *o = NULL;
	const char *why = NULL;

	if (text == NULL)
		return;
	if (has_nul_escape(text))
		fail("call_tool %s contains \\u0000, which jsonb refuses: %s", what, text);
	if (jsonrpc_parse(text, strlen(text), 100000, &o, &why) != 0)
		fail("call_tool %s is not strict JSON (%s): %s", what, why, text);
	json_object_put(o);
}

static bool
is_token68(const char *t)
{
	size_t		i = 0,
				n = strlen(t);

	while (i < n && (strchr("-._~+/", t[i]) != NULL || (t[i] >= 'a' && t[i] <= 'z') ||
					 (t[i] >= 'A' && t[i] <= 'Z') || (t[i] >= '0' && t[i] <= '9')))
		i++;
	if (i == 0)
		return false;
	while (i < n && t[i] == '=')
		i++;
	return i == n && n <= GW_MAX_TOKEN_LEN;
}

/* the header value as sent: spaces and tabs trimmed (no base64) */
static bool
header_equals(const char *raw, const char *want)
{
	size_t		n;

	if (raw == NULL)
		return false;
	while (*raw == ' ' || *raw == '\t')
		raw++;
	n = strlen(raw);
	while (n > 0 && (raw[n - 1] == ' ' || raw[n - 1] == '\t'))
		n--;
	return n == strlen(want) && memcmp(raw, want, n) == 0;
}

struct allowed_pair
{
	unsigned	status;
	int			code;
};

static const struct allowed_pair allowed[] = {
	{400, RPC_PARSE_ERROR}, {400, RPC_INVALID_REQUEST}, {400, RPC_INVALID_PARAMS},
	{400, RPC_HEADER_MISMATCH}, {400, RPC_UNSUPPORTED_VERSION}, {400, RPC_MISSING_CAPABILITY},
	{404, RPC_METHOD_NOT_FOUND}, {200, RPC_INVALID_PARAMS},
	{503, RPC_INTERNAL_ERROR}, {500, RPC_INTERNAL_ERROR},
};

/* ------------------------------------------------------------ one request */

struct request
{
	int			mode;
	struct mcp_headers h;
	char	   *values[MAX_HEADERS];
	int			n_values;
	char	   *body;			/* exactly body_len bytes, no NUL: overreads show */
	size_t		body_len;
};

static void
take_header(struct request *rq, const char *line, size_t len)
{
	const char *colon = memchr(line, ':', len);
	size_t		nlen;
	const char *v;
	char	   *value;

	if (colon == NULL || rq->n_values >= MAX_HEADERS)
		return;
	nlen = (size_t) (colon - line);
	v = colon + 1;
	while (v < line + len && (*v == ' ' || *v == '\t'))
		v++;
	value = strndup(v, (size_t) (line + len - v));	/* ends at a NUL, as a C string */
	if (value == NULL)
		abort();
	rq->values[rq->n_values++] = value;
#define TAKE(hname, field, counter) \
	if (nlen == strlen(hname) && strncasecmp(line, hname, nlen) == 0) \
	{ if (rq->h.counter++ == 0) rq->h.field = value; return; }
	TAKE("MCP-Protocol-Version", protocol_version, n_protocol_version);
	TAKE("Mcp-Method", method, n_method);
	TAKE("Mcp-Name", name, n_name);
	TAKE("Authorization", authorization, n_authorization);
#undef TAKE
	if (nlen >= strlen(GW_PARAM_HEADER_PREFIX) && strncasecmp(line, GW_PARAM_HEADER_PREFIX, strlen(GW_PARAM_HEADER_PREFIX)) == 0 &&
		rq->n_values < MAX_HEADERS)
	{
		/* the name as http.c gets it from libmicrohttpd: a C string of its own */
		char	   *key = strndup(line, nlen);

		if (key == NULL)
			abort();
		rq->values[rq->n_values++] = key;
		header_param_take(&rq->h, key, value);
	}
}

static void
split_input(const uint8_t *data, size_t size, struct request *rq)
{
	const char *p = (const char *) data + 1;
	const char *end = (const char *) data + size;
	const char *sep = NULL;

	memset(rq, 0, sizeof(*rq));
	rq->mode = size > 0 ? data[0] : 0;
	for (const char *q = p; q + 1 < end; q++)
		if (q[0] == '\n' && q[1] == '\n')
		{
			sep = q;
			break;
		}
	if (sep != NULL)
	{
		const char *line = p;

		while (line < sep)
		{
			const char *nl = memchr(line, '\n', (size_t) (sep - line));
			const char *le = nl ? nl : sep;

			take_header(rq, line, (size_t) (le - line));
			line = le + 1;
		}
		p = sep + 2;
	}
	if (p > end)
		p = end;
	rq->body_len = (size_t) (end - p);
	rq->body = malloc(rq->body_len ? rq->body_len : 1);
	if (rq->body == NULL)
		abort();
	memcpy(rq->body, p, rq->body_len);
}

static void
free_request(struct request *rq)
{
	for (int i = 0; i < rq->n_values; i++)
		free(rq->values[i]);
	free(rq->body);
}

/* what the request says, read independently of mcp.c (with the strict parser) */
struct view
{
	bool		parsed;
	json_object *root;
	json_object *id;			/* valid id or NULL */
	bool		has_id;
	const char *method;
	json_object *params;
	const char *version;		/* _meta protocolVersion when a string */
	json_object *name;			/* params.name (tools/call) when a string */
	bool		public;			/* server/discover, or tools/list with nothing but _meta */
};

static void
read_view(const struct request *rq, struct view *v)
{
	const char *why;
	json_object *x;

	memset(v, 0, sizeof(*v));
	v->parsed = jsonrpc_parse(rq->body, rq->body_len, GW_JSON_MAX_DEPTH, &v->root, &why) == 0;
	if (!v->parsed || !json_object_is_type(v->root, json_type_object))
		return;
	v->has_id = json_object_object_get_ex(v->root, "id", &x);
	if (v->has_id && (json_object_is_type(x, json_type_string) || json_object_is_type(x, json_type_int)))
		v->id = x;
	if (json_object_object_get_ex(v->root, "method", &x) && json_object_is_type(x, json_type_string))
		v->method = json_object_get_string(x);
	if (json_object_object_get_ex(v->root, "params", &x) && json_object_is_type(x, json_type_object))
	{
		json_object *meta;

		v->params = x;
		if (json_object_object_get_ex(x, "_meta", &meta) && json_object_is_type(meta, json_type_object) &&
			json_object_object_get_ex(meta, META_VERSION, &x) && json_object_is_type(x, json_type_string))
			v->version = json_object_get_string(x);
		if (json_object_object_get_ex(v->params, "name", &x) && json_object_is_type(x, json_type_string))
			v->name = x;
		if (v->method && (strcmp(v->method, "server/discover") == 0 ||
						  (strcmp(v->method, "tools/list") == 0 && json_object_object_length(v->params) == 1)))
			v->public = true;
	}
}

/* the request object of docs/contract.md: what the request said, _meta taken apart */
static void
check_request_object(const struct view *v)
{
	json_object *o = NULL;
	json_object *x;
	json_object *meta;
	json_object *want;
	const char *why;

	check_sql_json("request object", stub.request);
	if (jsonrpc_parse(stub.request, strlen(stub.request), 100000, &o, &why) != 0 ||
		!json_object_is_type(o, json_type_object))
		fail("the request object is not a JSON object");
	if (!json_object_object_get_ex(o, "method", &x) || !json_string_equals(x, v->method))
		fail("request.method differs from the JSON-RPC method");
	if (!json_object_object_get_ex(o, "requestId", &x) || !json_object_equal(x, v->id))
		fail("request.requestId differs from the JSON-RPC id");
	if (!json_object_object_get_ex(o, "gatewayId", &x) || !json_string_equals(x, gw_cfg.gateway_id))
		fail("request.gatewayId is not --gateway-id");
	json_object_object_get_ex(v->params, "_meta", &meta);
	if (!json_object_object_get_ex(o, "clientCapabilities", &x) || !json_object_object_get_ex(meta, META_CAPS, &want) ||
		!json_object_equal(x, want))
		fail("request.clientCapabilities is not _meta's");
	if (json_object_object_get_ex(meta, META_INFO, &want) !=
		json_object_object_get_ex(o, "clientInfo", &x) || (x && !json_object_equal(x, want)))
		fail("request.clientInfo is not _meta's");
	if (json_object_object_get_ex(meta, "progressToken", &want) &&
		(json_object_is_type(want, json_type_string) || json_object_is_type(want, json_type_int))
		? !json_object_object_get_ex(o, "progressToken", &x) || !json_object_equal(x, want)
		: json_object_object_get_ex(o, "progressToken", NULL))
		fail("request.progressToken is not _meta's string or integer progressToken");
	if (!json_object_object_get_ex(o, "params", &x) || !json_object_is_type(x, json_type_object) ||
		json_object_object_get_ex(x, "_meta", NULL) ||
		json_object_object_length(x) + 1 != json_object_object_length(v->params))
		fail("request.params must be params without _meta");
	json_object_object_foreach(x, key, val)
	{
		if (!json_object_object_get_ex(v->params, key, &want) || !json_object_equal(val, want))
			fail("request.params.%s differs from the request's", key);
	}
	json_object_put(o);
}

/* handle() was called once, with the right credential and request, and its outcome copied */
static void
check_handle_call(const struct request *rq, const struct view *v, const struct mcp_reply *r)
{
	bool		dev = rq->mode & 1;
	static const struct
	{
		int			answer;
		unsigned	status;
		int			code;
	}			expect[] = {
		{ANS_RESULT_COMPLETE, 200, 0}, {ANS_RESULT_INPUT_REQUIRED, 200, 0},
		{ANS_ERROR_STATE, 200, RPC_INVALID_PARAMS}, {ANS_ERROR_CAPABILITY, 400, RPC_MISSING_CAPABILITY},
		{ANS_ERROR_TOKEN, 401, 0}, {ANS_ERROR_METHOD, 404, RPC_METHOD_NOT_FOUND},
		{ANS_INVALID_INPUT, 200, RPC_INVALID_PARAMS},
		{ANS_UNAVAILABLE, 503, RPC_INTERNAL_ERROR}, {ANS_BUSY, 503, RPC_INTERNAL_ERROR},
		{ANS_RETRIES_EXHAUSTED, 503, RPC_INTERNAL_ERROR}, {ANS_SHUTTING_DOWN, 503, RPC_INTERNAL_ERROR},
		{ANS_TIMEOUT, 503, RPC_INTERNAL_ERROR},
	};
	unsigned	status = 500;
	int			code = RPC_INTERNAL_ERROR;

	if (stub.n_handle != 1 || stub.n_auth != 0)
		fail("a request to handle() must be one database call");
	if (stub.handle_dev != dev)
		fail("handle vs handle_as chosen wrongly");
	if (stub.credential == NULL ||
		(dev ? strcmp(stub.credential, DEV_PRINCIPAL) != 0 : !is_token68(stub.credential)))
		fail("handle() credential is not the dev principal / a token68 token");
	check_request_object(v);
	for (size_t i = 0; i < sizeof(expect) / sizeof(expect[0]); i++)
		if (expect[i].answer == stub.answer)
		{
			status = expect[i].status;
			code = expect[i].code;
		}
	if (r->http_status != status || r->log.code != code)
		fail("outcome %d must be HTTP %u code %d, not HTTP %u code %d", stub.answer, status, code,
			 r->http_status, r->log.code);
	if (stub.answer == ANS_ERROR_STATE &&
		(strcmp(r->log.reason, "state_bad_signature") != 0 || strstr(r->body, "\"reason\":\"state_bad_signature\"") == NULL))
		fail("the extension's invalid_params must be copied with its data.reason");
	if (stub.answer == ANS_ERROR_CAPABILITY &&
		strstr(r->body, "\"requiredCapabilities\":{\"elicitation\":{\"form\":{}}}") == NULL)
		fail("the extension's missing_capability must be copied with its data");
}

/*
 * A 401: the OAuth error object of RFC 6750 (what the official SDKs' bearer
 * auth answers), {"error": "invalid_token", "error_description": <string>},
 * not a JSON-RPC message, and no JSON-RPC code logged.
 */
static void
check_oauth_body(const struct mcp_reply *r, json_object *resp)
{
	json_object *x;

	if (r->log.code != 0)
		fail("a 401 must carry no JSON-RPC code, not %d", r->log.code);
	if (json_object_object_length(resp) != 2 ||
		!json_object_object_get_ex(resp, "error", &x) || !json_string_equals(x, "invalid_token") ||
		!json_object_object_get_ex(resp, "error_description", &x) || !json_object_is_type(x, json_type_string))
		fail("a 401 body must be {\"error\": \"invalid_token\", \"error_description\": <string>}");
}

/* Every other answer with a body is a JSON-RPC 2.0 response (invariants 2-4). */
static void
check_jsonrpc_body(const struct view *v, const struct mcp_reply *r, json_object *resp, bool db_reached, bool dev)
{
	json_object *x;
	json_object *err;
	json_object *idv;

	if (!json_object_object_get_ex(resp, "jsonrpc", &x) || !json_string_equals(x, "2.0"))
		fail("the response lacks \"jsonrpc\": \"2.0\"");
	/* id echo: absent when it could not be read, never null */
	if (r->log.code == RPC_PARSE_ERROR || v->id == NULL)
	{
		if (json_object_object_get_ex(resp, "id", NULL))
			fail("id must be absent (%s)", r->log.code == RPC_PARSE_ERROR ? "parse error" : "no valid request id");
	}
	else if (!json_object_object_get_ex(resp, "id", &idv) || idv == NULL)
		fail("the response has no id member, or a null one");
	else if (!json_object_equal(idv, v->id))
		fail("the response id is not the request id");

	if (json_object_object_get_ex(resp, "error", &err))
	{
		bool		ok = false;
		json_object *code;

		if (r->log.code == 0)
			fail("error body but no code recorded for the log");
		if (json_object_object_get_ex(resp, "result", NULL))
			fail("an error with a result");
		if (!json_object_is_type(err, json_type_object) ||
			!json_object_object_get_ex(err, "code", &code) || !json_object_is_type(code, json_type_int) ||
			json_object_get_int(code) != r->log.code ||
			!json_object_object_get_ex(err, "message", &x) || !json_object_is_type(x, json_type_string))
			fail("malformed error object, or its code differs from the logged one");
		if (json_object_object_get_ex(err, "resultType", NULL))
			fail("an error with resultType");
		for (size_t i = 0; i < sizeof(allowed) / sizeof(allowed[0]); i++)
			if (allowed[i].status == r->http_status && allowed[i].code == r->log.code)
				ok = true;
		if (!ok)
			fail("undefined outcome: HTTP %u with code %d", r->http_status, r->log.code);

		if (r->log.code == RPC_UNSUPPORTED_VERSION)
		{
			json_object *data,
					   *sup,
					   *req;

			if (!json_object_object_get_ex(err, "data", &data) ||
				!json_object_object_get_ex(data, "supported", &sup) ||
				!json_object_is_type(sup, json_type_array) || json_object_array_length(sup) != 1 ||
				!json_string_equals(json_object_array_get_idx(sup, 0), PROTOCOL_VERSION) ||
				!json_object_object_get_ex(data, "requested", &req) || v->version == NULL ||
				!json_string_equals(req, v->version))
				fail("-32022 data must be {supported:[\"%s\"], requested:<sent version>}", PROTOCOL_VERSION);
			if (strcmp(v->version, PROTOCOL_VERSION) == 0)
				fail("-32022 for the supported version");
		}
	}
	else
	{
		json_object *meta;
		json_object *info;

		if (r->log.code != 0)
			fail("code %d logged for a result", r->log.code);
		if (r->http_status != 200)
			fail("a result with HTTP %u", r->http_status);
		if (!json_object_object_get_ex(resp, "result", &x) || !json_object_is_type(x, json_type_object))
			fail("neither error nor result object");
		if (!json_object_object_get_ex(x, "resultType", &idv) ||
			!(json_string_equals(idv, "complete") || json_string_equals(idv, "input_required")))
			fail("a result without resultType complete|input_required");
		if (!json_object_object_get_ex(x, "_meta", &meta) ||
			!json_object_object_get_ex(meta, META_SERVER, &info) ||
			!json_object_object_get_ex(info, "name", &idv) || !json_string_equals(idv, "mcp-notes") ||
			!json_object_object_get_ex(info, "version", &idv) || !json_object_is_type(idv, json_type_string))
			fail("a result without _meta.serverInfo {name: mcp-notes, version}");
		if (!db_reached && !(dev && v->public))
			fail("a result without asking the database");
	}

}

/* invariant 5a: the Mcp-Param-<header> mirror of arguments.<key> of a "tagged" call that reached handle() */
static void
check_param_mirror(const struct request *rq, const struct view *v, const char *key, const char *header)
{
	json_object *args;
	json_object *val;
	char		num[32];
	const char *text = NULL;
	const char *raw = NULL;
	int			count = 0;
	size_t		n;

	if (!json_object_object_get_ex(v->params, "arguments", &args) || !json_object_is_type(args, json_type_object) ||
		!json_object_object_get_ex(args, key, &val) || val == NULL)
		return;
	if (json_object_is_type(val, json_type_string))
		text = json_object_get_string(val);
	else if (json_object_is_type(val, json_type_int) && llabs((long long) json_object_get_int64(val)) < (1LL << 53))
		snprintf(num, sizeof(num), "%lld", (long long) json_object_get_int64(val));
	else
		return;
	if (rq->h.params_overflow)
		fail("a tagged call reached the database with more Mcp-Param headers than the gateway reads");
	for (int i = 0; i < rq->h.n_params; i++)
		if (strcasecmp(rq->h.params[i].name, header) == 0 && count++ == 0)
			raw = rq->h.params[i].value;
	if (count != 1)
		fail("a tagged call reached the database with %d Mcp-Param-%s headers", count, header);
	while (*raw == ' ' || *raw == '\t')
		raw++;
	n = strlen(raw);
	while (n > 0 && (raw[n - 1] == ' ' || raw[n - 1] == '\t'))
		n--;
	if (n >= 11 && strncmp(raw, "=?base64?", 9) == 0 && strncmp(raw + n - 2, "?=", 2) == 0)
	{
		if ((n - 11) % 4 != 0)
			fail("a tagged call reached the database with an unpadded Mcp-Param-%s", header);
	}
	else if (text != NULL && (n != strlen(text) || memcmp(raw, text, n) != 0))
		fail("a tagged call reached the database with a literal Mcp-Param-%s unlike the argument", header);
}

static void
check_reply(const struct request *rq, const struct view *v, const struct mcp_reply *r)
{
	json_object *resp = NULL;
	const char *why;
	bool		dev = rq->mode & 1;
	bool		db_reached = stub.n_auth + stub.n_handle > 0;

	cur_reply = r;
	check_field("rpc_id", r->log.rpc_id, sizeof(r->log.rpc_id));
	check_field("rpc_method", r->log.rpc_method, sizeof(r->log.rpc_method));
	check_field("tool", r->log.tool, sizeof(r->log.tool));
	check_field("reason", r->log.reason, sizeof(r->log.reason));
	check_field("detail", r->log.detail, sizeof(r->log.detail));

	if ((r->http_status == 401 || r->http_status == 403) != (r->www_authenticate != NULL))
		fail("WWW-Authenticate must come with 401 or 403 and only with it");
	if ((r->http_status == 503) != r->retry_after)
		fail("Retry-After must come with 503 and only with it");
	if (r->log.code != 0 && (r->log.code == -32002 || r->log.code == -32042 || (r->log.code <= -32000 && r->log.code >= -32019) ||
						 (r->log.code <= -32020 && r->log.code >= -32099 && r->log.code != RPC_HEADER_MISMATCH &&
						  r->log.code != RPC_MISSING_CAPABILITY && r->log.code != RPC_UNSUPPORTED_VERSION)))
		fail("forbidden error code %d", r->log.code);

	/* parse outcome agrees with an independent parse of the same bytes */
	if (!v->parsed && r->log.code != RPC_PARSE_ERROR)
		fail("body does not parse but the code is %d", r->log.code);
	if (v->parsed && r->log.code == RPC_PARSE_ERROR)
		fail("-32700 for a body that parses");

	/* 202: a notification, nothing executed */
	if (r->http_status == 202)
	{
		if (r->body != NULL || !r->log.notification || r->log.code != 0)
			fail("202 must have no body and be a notification");
		if (!v->parsed || !json_object_is_type(v->root, json_type_object) || v->has_id)
			fail("202 for a request that has an id or is not an object");
		if (db_reached)
			fail("a notification reached the database");
		return;
	}
	if (r->log.notification)
		fail("notification flag without 202");
	if (r->body == NULL)
		fail("HTTP %u without a body", r->http_status);

	if (jsonrpc_parse(r->body, strlen(r->body), 1000, &resp, &why) != 0)
		fail("the response is not strict JSON: %s", why);
	if (!json_object_is_type(resp, json_type_object))
		fail("the response is not an object");
	if (r->http_status == 401)
		check_oauth_body(r, resp);
	else
		check_jsonrpc_body(v, r, resp, db_reached, dev);

	/* the database only after every envelope check */
	if (db_reached)
	{
		const char *m = v->method;

		if (!v->parsed || v->id == NULL || m == NULL || v->params == NULL || v->version == NULL)
			fail("the database was reached by a request without a valid envelope");
		if (strcmp(v->version, PROTOCOL_VERSION) != 0)
			fail("the database was reached with protocol version \"%s\"", v->version);
		if (strcmp(m, "server/discover") != 0 && strcmp(m, "tools/list") != 0 && strcmp(m, "tools/call") != 0)
			fail("the database was reached for method \"%s\"", m);
		if (rq->h.n_protocol_version != 1 || !header_equals(rq->h.protocol_version, v->version))
			fail("the database was reached without a matching MCP-Protocol-Version header");
		if (rq->h.n_method != 1 || !header_equals(rq->h.method, m))
			fail("the database was reached without a matching Mcp-Method header");
		if (strcmp(m, "tools/call") == 0 && (rq->h.n_name > 1 || (rq->h.n_name == 1) != (v->name != NULL)))
			fail("the database was reached with an Mcp-Name header that cannot match");
		if (r->log.code == RPC_PARSE_ERROR || r->log.code == RPC_INVALID_REQUEST || r->log.code == RPC_HEADER_MISMATCH ||
			r->log.code == RPC_UNSUPPORTED_VERSION ||
			(r->log.code == RPC_METHOD_NOT_FOUND && !(stub.n_handle > 0 && stub.answer == ANS_ERROR_METHOD)) ||
			(r->log.code == RPC_INVALID_PARAMS && r->http_status == 400))
			fail("an envelope error (%d) after a database call", r->log.code);
		if (dev && stub.n_auth > 0)
			fail("authenticate() called in dev mode");
		if (!dev && (rq->h.n_authorization != 1 || rq->h.authorization == NULL))
			fail("the database was reached without exactly one Authorization header");
		if (strcmp(m, "tools/call") == 0 && v->name != NULL && json_string_equals(v->name, "tagged"))
		{
			check_param_mirror(rq, v, "region", "Region");
			check_param_mirror(rq, v, "n", "N");
		}
	}

	if (stub.n_handle > 0)
		check_handle_call(rq, v, r);
	else if (stub.n_auth > 0 && !stub.token_known && stub.answer != ANS_UNAVAILABLE &&
			 (r->http_status != 401 || r->log.code != 0))
		fail("an unknown token must be a 401");
	if (v->public && stub.n_handle > 0)
		fail("a public result (nothing but _meta in params) went to handle()");
	json_object_put(resp);
}

/* ------------------------------------------------------------ libFuzzer */

int			LLVMFuzzerInitialize(int *argc, char ***argv);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	   *args[] = {"envelope_fuzz", "--listen", "127.0.0.1:0", "--gateway-id", "fuzz-gw",
	"--log-level", "error", NULL};

	(void) argc;
	(void) argv;
	if (config_load(7, args) != 0)
	{
		fprintf(stderr, "envelope_fuzz: config_load failed\n");
		abort();
	}
	log_init(GW_LOG_ERROR, gw_cfg.gateway_id);
	{
		struct db_error err = {0};

		features_loading = true;
		if (features_ensure(&err) != OUT_OK)
		{
			fprintf(stderr, "envelope_fuzz: features() stub refused: %s\n", err.message);
			abort();
		}
		features_loading = false;
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct request rq;
	struct view v;
	struct mcp_reply r1,
				r2;

	cur_data = data;
	cur_size = size;
	cur_reply = NULL;
	if (size == 0)
		return 0;
	split_input(data, size, &rq);
	gw_cfg.insecure_dev_principal = (rq.mode & 1) ? DEV_PRINCIPAL : NULL;
	read_view(&rq, &v);

	stub_reset();
	stub.answer = (rq.mode >> 2) % N_ANSWERS;
	stub.token_known = !(rq.mode & 2);

	/*
	 * As an HTTP event thread runs it first: never a database call; either
	 * an answer, or needs_database and nothing else, then the worker
	 * resumes the checked request (mcp_reply_resume).
	 */
	mcp_process(rq.body, rq.body_len, &rq.h, false, &r1);
	cur_reply = &r1;
	if (stub.n_auth + stub.n_handle != 0)
		fail("mcp_process called the database although it may not block");
	if (r1.needs_database)
	{
		if (r1.body != NULL)
			fail("a request deferred to a worker already has an answer");
		mcp_reply_resume(&r1);
		if (r1.needs_database)
			fail("a resumed request still defers");
	}
	check_reply(&rq, &v, &r1);

	/* statelessness: the same request again gives the same reply */
	{
		int			answer = stub.answer;
		bool		known = stub.token_known;

		stub_reset();
		stub.answer = answer;
		stub.token_known = known;
	}
	mcp_process(rq.body, rq.body_len, &rq.h, true, &r2);
	cur_reply = &r2;
	if (r1.http_status != r2.http_status || r1.log.code != r2.log.code ||
		(r1.body == NULL) != (r2.body == NULL) || (r1.body && strcmp(r1.body, r2.body) != 0))
		fail("the same request answered differently the second time");

	free(r1.body);
	free(r2.body);
	stub_reset();
	json_object_put(v.root);
	free_request(&rq);
	gw_cfg.insecure_dev_principal = NULL;
	cur_reply = NULL;
	return 0;
}
