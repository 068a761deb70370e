/*
 * legacy_fuzz.c
 *		libFuzzer target for the gateway's 2025-era adapter without a server
 *		or a database: endpoint.c (era routing), era.c, legacy.c (initialize,
 *		sessions, answers, DELETE), legacyask.c (the retry loop a stdio
 *		session runs inline), legacywire.c (outcomes as 2025-era messages),
 *		legacystream.c (the stream producer, discarded here), with mcp.c,
 *		jsonrpc.c, auth.c, headers.c, outcome.c, extension.c and the small
 *		modules they use, all compiled unchanged; neither libmicrohttpd nor
 *		libpq is linked.  The database is replaced by the stubs below, whose
 *		answer the input chooses.  envelope_fuzz.c covers the 2026-07-28 era.
 *
 *	Input:	byte 0 = mode: bit 0 dev principal, bit 1 the stdio session
 *			(legacy_local, answered inline) instead of HTTP, bit 2 DELETE /mcp
 *			instead of POST, bits 3-7 pick the handle() answer (answers[]).
 *			Then header lines "Name: value" up to the first empty line, then
 *			the body (no empty line: no headers).
 *
 *	Invariants (a violation prints the input and aborts):
 *	 1. No crash, no undefined behaviour, no leak (ASan + UBSan + LSan),
 *		the stream producer included (it is discarded, never started).
 *	 2. A message routed to the 2025 era gets a 2025-era answer: 202 with no
 *		body, or a JSON-RPC message that re-parses with the gateway's strict
 *		parser, with HTTP 200, 400, 401, 404, 500 or 503; a JSON-RPC error
 *		code is one of -32700, -32600, -32601, -32602, -32603, -32001 (never
 *		the 2026-07-28 codes -32020..-32022); a result has no resultType,
 *		ttlMs or cacheScope; an answer with a producer has no body.
 *	 3. Over HTTP the database is reached for a request other than
 *		initialize only with exactly one Mcp-Session-Id header, and the
 *		request object's "session" is that header's trimmed value, shorter
 *		than 200 bytes (docs/legacy-era.md); on stdio
 *		it never carries "session".  Every request object is JSON text
 *		PostgreSQL can read (strict, no \u0000).
 *	 4. Mcp-Session-Id is sent back only on a 200 answer to initialize over
 *		HTTP, and only the id handle() returned.
 *	 5. On stdio every final response and notification handed to the asker
 *		is a JSON-RPC message in the 2025 shape (as 2).
 *
 *	Found by this target: when the statement itself failed (database
 *	unavailable, retries exhausted) call_handle() in gateway/src/legacy.c
 *	freed a legacy_outcome that was never filled, so a 2025-era request
 *	during a database outage crashed the gateway.  The seeds
 *	tools-call-unavailable and tools-call-retries keep that path covered.
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
#include "endpoint.h"
#include "era.h"
#include "extension.h"
#include "fileops.h"
#include "jsonrpc.h"
#include "legacy.h"
#include "legacyask.h"
#include "log.h"
#include "mcp.h"
#include "notify.h"
#include "sse.h"
#include "text.h"
#include "tokencache.h"
#include "watchstream.h"
#include "work.h"

#define DEV_PRINCIPAL	"fuzz-dev"
#define STUB_SESSION	"c2Vzc2lvbi1mcm9tLWhhbmRsZQ"
#define MAX_BODY		8400

static const uint8_t *cur_data;
static size_t cur_size;

static void fail(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));

static void
fail(const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "INVARIANT VIOLATED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	fprintf(stderr, "  input (%zu bytes):", cur_size);
	for (size_t i = 0; i < cur_size && i < 512; i++)
		fprintf(stderr, " %02x", cur_data[i]);
	fputc('\n', stderr);
	abort();
}

/* ------------------------------------------------------------ database stubs */

enum answer_kind
{
	ANS_SESSION_OPENED,
	ANS_RESULT_COMPLETE,
	ANS_INPUT_REQUIRED,
	ANS_EMPTY_RESULT,
	ANS_SESSION_NOT_FOUND,
	ANS_NO_PENDING,
	ANS_INPUT_PENDING,
	ANS_MISSING_CAPABILITY,
	ANS_UNAUTHENTICATED,
	ANS_INVALID_PARAMS,
	ANS_UNKNOWN_KIND,
	ANS_NOT_JSON,
	ANS_NEITHER,
	ANS_SQL_NULL,
	ANS_UNAVAILABLE,
	ANS_RETRIES_EXHAUSTED,
	ANS_SESSION_ID_NOT_A_STRING,
	N_ANSWERS
};

static const char *const answer_text[N_ANSWERS] = {
	[ANS_SESSION_OPENED] = "{\"result\": {\"sessionId\": \"" STUB_SESSION "\"}}",
	[ANS_RESULT_COMPLETE] = "{\"result\": {\"content\": [{\"type\": \"text\", \"text\": \"ok\"}], \"isError\": false, "
	"\"resultType\": \"complete\", \"ttlMs\": 5, \"cacheScope\": \"private\"}, "
	"\"notifications\": [{\"method\": \"notifications/message\", \"params\": {\"level\": \"info\"}}, 7]}",
	[ANS_INPUT_REQUIRED] = "{\"result\": {\"resultType\": \"input_required\", \"inputRequests\": "
	"{\"delete_choice\": {\"method\": \"elicitation/create\", \"params\": {\"mode\": \"form\", \"message\": \"Pick\", "
	"\"requestedSchema\": {\"type\": \"object\", \"properties\": {}}}}}, \"requestState\": \"v1.1.e30.AAAA\"}, "
	"\"pending\": {\"delete_choice\": {\"pendingId\": 17, \"id\": \"srv-1\"}}}",
	[ANS_EMPTY_RESULT] = "{\"result\": {}}",
	[ANS_SESSION_NOT_FOUND] = "{\"error\": {\"kind\": \"session_not_found\", \"message\": \"Session not found\"}}",
	[ANS_NO_PENDING] = "{\"error\": {\"kind\": \"no_pending_request\"}}",
	[ANS_INPUT_PENDING] = "{\"error\": {\"kind\": \"input_pending\", \"message\": \"wait\"}}",
	[ANS_MISSING_CAPABILITY] = "{\"error\": {\"kind\": \"missing_capability\", \"message\": \"needs elicitation\", "
	"\"data\": {\"requiredCapabilities\": {\"elicitation\": {}}}}}",
	[ANS_UNAUTHENTICATED] = "{\"error\": {\"kind\": \"unauthenticated\", \"message\": \"Unauthorized\"}}",
	[ANS_INVALID_PARAMS] = "{\"error\": {\"kind\": \"invalid_params\", \"message\": \"bad\", "
	"\"data\": {\"reason\": \"capabilities_too_large\"}}}",
	[ANS_UNKNOWN_KIND] = "{\"error\": {\"kind\": \"database_busy\", \"message\": \"not one handle() may give\"}}",
	[ANS_NOT_JSON] = "this is not JSON",
	[ANS_NEITHER] = "{\"result\": 5, \"error\": \"x\"}",
	[ANS_SESSION_ID_NOT_A_STRING] = "{\"result\": {\"sessionId\": 12}}",
};

#define FEATURES_TEXT \
	"{\"extensionVersion\": \"1.4\", \"contract\": 2, \"methods\": [\"tools/list\", \"tools/call\"], " \
	"\"publicResults\": {\"tools/list\": {\"tools\": [{\"name\": \"notes_delete\", " \
	"\"inputSchema\": {\"type\": \"object\", \"properties\": {\"title\": {\"type\": \"string\"}}}}], " \
	"\"ttlMs\": 600000, \"cacheScope\": \"public\"}}, \"capabilities\": {\"tools\": {}}, " \
	"\"instructions\": \"Notes server.\", \"tokenChannel\": \"mcp_notes_tokens\", \"internalMethods\": {" \
	"\"mcp_notes/session/open\": {}, \"mcp_notes/session/close\": {}, " \
	"\"mcp_notes/pending/answer\": {\"channel\": \"mcp_notes_legacy\"}, \"mcp_notes/pending/take\": {}}}"

/* answer a, one of the N_ANSWERS the stub knows */
static int
usable_answer(int a)
{
	return a % N_ANSWERS;
}

static struct
{
	int			answer;
	int			n_handle;
	bool		features_loading;
	bool		saw_session;	/* a request object carried "session" */
	char		session[1024];	/* ... with this value */
} stub;

enum outcome_kind
db_features(char **json, struct db_error *err)
{
	(void) err;
	if (!stub.features_loading)
		fail("features() read again: it is read once per process");
	*json = strdup(FEATURES_TEXT);
	return OUT_OK;
}

enum outcome_kind
db_extension_version(char **version, struct db_error *err)
{
	(void) err;
	*version = strdup("1.4");
	return OUT_OK;
}

enum outcome_kind
db_authenticate(const char *token, char **principal, struct db_error *err)
{
	(void) token;
	(void) err;
	*principal = strdup(DEV_PRINCIPAL);
	return OUT_OK;
}

/* a \u0000 escape in JSON text (an escaped backslash before "u0000" is not one) */
static bool
has_nul_escape(const char *text)
{
	for (const char *p = text; *p; p++)
		if (*p == '\\')
		{
			if (strncmp(p + 1, "u0000", 5) == 0)
				return true;
			if (p[1] != '\0')
				p++;
		}
	return false;
}

/* invariant 3: the request object as handle() receives it */
static void
check_request_object(const char *request)
{
	json_object *root = NULL;
	json_object *session;
	const char *why = NULL;

	if (request == NULL || jsonrpc_parse(request, strlen(request), 64, &root, &why) != 0)
		fail("handle() got a request object that is not strict JSON: %s", why ? why : "NULL");
	if (has_nul_escape(request))
		fail("handle() got \\u0000, which jsonb refuses");
	if (json_object_object_get_ex(root, "session", &session))
	{
		stub.saw_session = true;
		str_copy(stub.session, sizeof(stub.session), json_object_get_string(session));
	}
	json_object_put(root);
}

enum outcome_kind
db_handle(bool dev, const char *credential, const char *request, char **json, int *retries,
		  struct db_error *err)
{
	(void) dev;
	(void) credential;
	stub.n_handle++;
	check_request_object(request);
	*json = NULL;
	*retries = 0;
	if (stub.answer == ANS_UNAVAILABLE || stub.answer == ANS_RETRIES_EXHAUSTED)
	{
		err->kind = stub.answer == ANS_UNAVAILABLE ? OUT_DATABASE_UNAVAILABLE : OUT_RETRIES_EXHAUSTED;
		str_copy(err->sqlstate, sizeof(err->sqlstate), stub.answer == ANS_UNAVAILABLE ? "08006" : "40001");
		str_copy(err->message, sizeof(err->message), "stub failure");
		return err->kind;
	}
	if (stub.answer != ANS_SQL_NULL)
		*json = strdup(answer_text[stub.answer]);
	/* the next statement (a retry, a take) gets the next answer: the loop must end all the same */
	stub.answer = usable_answer(stub.answer + 1);
	return OUT_OK;
}

enum outcome_kind
fileops_handle(bool dev, const char *credential, const char *request, char **json, int *retries,
			   struct db_error *err)
{
	return db_handle(dev, credential, request, json, retries, err);
}

/* no LISTEN connection, no token cache, no threads, no streams here */
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

int
notify_register(const struct notify_sub *sub)
{
	(void) sub;
	return 0;
}

int
work_submit(void (*fn) (void *), void *arg)
{
	(void) fn;
	(void) arg;
	fail("work_submit: a stream was started; the target only discards producers");
}

bool
sse_send(struct sse_stream *s, const char *json)
{
	(void) s;
	(void) json;
	fail("sse_send without a stream");
}

bool
sse_comment(struct sse_stream *s)
{
	(void) s;
	fail("sse_comment without a stream");
}

enum sse_wake
sse_wait(struct sse_stream *s, int ms)
{
	(void) s;
	(void) ms;
	fail("sse_wait without a stream");
}

void
sse_notify(struct sse_stream *s)
{
	(void) s;
}

void
sse_release(struct sse_stream *s)
{
	(void) s;
}

/* the 2025 GET stream: room always, and a producer that could not be made
 * (the out-of-memory answer), so no stream outlives the input */
bool
watch_stream_room(void)
{
	return true;
}

struct reply_producer
watch_stream_producer(json_object *stream, json_object *rpc_id, bool dev, const char *credential,
					  const char *session)
{
	struct reply_producer none = {0};

	(void) stream;
	(void) rpc_id;
	(void) dev;
	(void) credential;
	(void) session;
	return none;
}

/* ------------------------------------------------------------ the input */

struct request
{
	int			mode;
	struct mcp_headers h;
	char	   *lines;			/* the header block, NUL-separated (h points into it) */
	char	   *body;
	size_t		body_len;
};

static void
take_header(struct mcp_headers *h, char *line)
{
	char	   *colon = strchr(line, ':');
	char	   *value;

	if (colon == NULL)
		return;
	*colon = '\0';
	value = colon + 1;
#define TAKE(name, field, count) \
	if (strcasecmp(line, name) == 0) { if (h->count++ == 0) h->field = value; return; }
	TAKE("MCP-Protocol-Version", protocol_version, n_protocol_version);
	TAKE("Mcp-Method", method, n_method);
	TAKE("Mcp-Name", name, n_name);
	TAKE("Authorization", authorization, n_authorization);
	TAKE("Mcp-Session-Id", session_id, n_session_id);
#undef TAKE
	if (strncasecmp(line, GW_PARAM_HEADER_PREFIX, strlen(GW_PARAM_HEADER_PREFIX)) == 0)
		header_param_take(h, line, value);
}

static void
split_input(const uint8_t *data, size_t size, struct request *rq)
{
	const uint8_t *end = data + size;
	const uint8_t *p = data + 1;
	const uint8_t *blank = NULL;

	memset(rq, 0, sizeof(*rq));
	rq->mode = data[0];
	for (const uint8_t *q = p; q + 1 < end; q++)
		if (q[0] == '\n' && q[1] == '\n')
		{
			blank = q;
			break;
		}
	if (blank != NULL)
	{
		size_t		n = (size_t) (blank - p);

		rq->lines = malloc(n + 1);
		memcpy(rq->lines, p, n);
		rq->lines[n] = '\0';
		for (char *line = rq->lines, *next; line != NULL; line = next)
		{
			next = strchr(line, '\n');
			if (next)
				*next++ = '\0';
			take_header(&rq->h, line);
		}
		p = blank + 2;
	}
	rq->body_len = (size_t) (end - p);
	rq->body = malloc(rq->body_len + 1);
	memcpy(rq->body, p, rq->body_len);
	rq->body[rq->body_len] = '\0';
}

/* ------------------------------------------------------------ checks */

/* invariant 2 on one JSON-RPC message (text); what names where it came from */
static void
check_message(const char *text, const char *what)
{
	json_object *root = NULL;
	json_object *v;
	json_object *result;
	const char *why = NULL;

	if (jsonrpc_parse(text, strlen(text), 64, &root, &why) != 0)
		fail("%s does not re-parse (%s): %.300s", what, why, text);
	if (!json_object_object_get_ex(root, "jsonrpc", &v) || !json_string_equals(v, "2.0"))
		fail("%s is not JSON-RPC 2.0: %.300s", what, text);
	if (json_object_object_get_ex(root, "error", &v))
	{
		int			code;

		if (!json_object_object_get_ex(v, "code", &v))
			fail("%s: an error without a code", what);
		code = json_object_get_int(v);
		if (code != RPC_PARSE_ERROR && code != RPC_INVALID_REQUEST && code != RPC_METHOD_NOT_FOUND &&
			code != RPC_INVALID_PARAMS && code != RPC_INTERNAL_ERROR && code != RPC_SESSION_NOT_FOUND)
			fail("%s: code %d is not a 2025-era code", what, code);
	}
	else if (json_object_object_get_ex(root, "result", &result))
	{
		if (json_object_object_get_ex(result, "resultType", NULL) || json_object_object_get_ex(result, "ttlMs", NULL) ||
			json_object_object_get_ex(result, "cacheScope", NULL))
			fail("%s: a 2026-07-28 member in a 2025-era result", what);
	}
	else if (!json_object_object_get_ex(root, "method", NULL))
		fail("%s: neither result, error nor method", what);
	json_object_put(root);
}

/* a body, or each "data:" line of an SSE body (notifications, then the response) */
static void
check_body(const struct mcp_reply *r)
{
	char	   *copy;
	int			n = 0;

	if (r->content_type == NULL || strcmp(r->content_type, "text/event-stream") != 0)
	{
		check_message(r->body, "the reply");
		return;
	}
	copy = strdup(r->body);
	for (char *line = strtok(copy, "\n"); line != NULL; line = strtok(NULL, "\n"))
		if (strncmp(line, "data: ", 6) == 0)
		{
			check_message(line + 6, "an event of the reply");
			n++;
		}
		else if (strcmp(line, "event: message") != 0)
			fail("a line of an SSE reply that is neither event nor data: %.200s", line);
	free(copy);
	if (n == 0)
		fail("an SSE reply without a message");
}

static bool
is_initialize(const struct request *rq)
{
	return strstr(rq->body, "\"initialize\"") != NULL;
}

static void
check_reply(const struct request *rq, const struct mcp_reply *r, bool http)
{
	static const unsigned statuses[] = {200, 202, 400, 401, 404, 500, 503};
	bool		known = false;

	for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
		known = known || r->http_status == statuses[i];
	if (!known)
		fail("HTTP %u is not a 2025-era status", r->http_status);
	if (r->producer.cls != NULL && r->body != NULL)
		fail("a reply with both a stream and a body");
	if (r->http_status == 202 && r->body != NULL)
		fail("202 with a body");
	if (r->body != NULL && r->http_status != 401)
		check_body(r);
	if (r->session_id[0] != '\0' &&
		(!http || r->http_status != 200 || !is_initialize(rq) || strcmp(r->session_id, STUB_SESSION) != 0))
		fail("Mcp-Session-Id \"%s\" sent on HTTP %u", r->session_id, r->http_status);
}

/* invariant 3 */
static void
check_session_use(const struct request *rq, bool http, bool deleting)
{
	char	   *value = NULL;

	if (stub.n_handle == 0)
		return;
	if (!http)
	{
		if (stub.saw_session)
			fail("a stdio request object carries a session");
		return;
	}
	if (!deleting && is_initialize(rq) && !stub.saw_session)
		return;
	if (rq->h.n_session_id != 1)
		fail("the database was reached with %d Mcp-Session-Id headers", rq->h.n_session_id);
	if (header_value(rq->h.session_id, false, &value) != HDR_OK || !stub.saw_session ||
		strcmp(value, stub.session) != 0)
		fail("the request object's session is not the header's value");
	if (strlen(value) >= 200)
		fail("a session id of %zu bytes reached the database (legacy.c refuses 200 and more)", strlen(value));
	free(value);
}

/* ------------------------------------------------------------ the stdio asker */

static int	asked;

static enum legacy_wait
stdio_ask(void *cls, struct legacy_job *job, char **outcome, struct db_error *err)
{
	(void) cls;
	(void) err;
	*outcome = NULL;
	/* once answered (the retry through legacy_retry and the stub), then the client leaves */
	if (asked++ == 0)
		return legacy_retry(job, NULL, NULL, outcome, err) == OUT_OK ? LEGACY_ANSWERED : LEGACY_GONE;
	return LEGACY_GONE;
}

static void
stdio_finish(void *cls, json_object *response)
{
	(void) cls;
	check_message(json_object_to_json_string_ext(response, JSON_C_TO_STRING_PLAIN), "a stdio response");
	json_object_put(response);
}

static void
stdio_notify(void *cls, json_object *notification)
{
	(void) cls;
	check_message(json_object_to_json_string_ext(notification, JSON_C_TO_STRING_PLAIN), "a stdio notification");
	json_object_put(notification);
}

static const struct legacy_asker stdio_asker = {stdio_ask, stdio_finish, stdio_notify, NULL};

/* ------------------------------------------------------------ libFuzzer */

int			LLVMFuzzerInitialize(int *argc, char ***argv);
int			LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	char	   *args[] = {"legacy_fuzz", "--listen", "127.0.0.1:0", "--gateway-id", "fuzz-gw",
	"--log-level", "error", NULL};
	struct db_error err = {0};

	(void) argc;
	(void) argv;
	if (config_load(7, args) != 0)
		abort();
	log_init(GW_LOG_ERROR, gw_cfg.gateway_id);
	stub.features_loading = true;
	if (features_ensure(&err) != OUT_OK)
	{
		fprintf(stderr, "legacy_fuzz: features() stub refused: %s\n", err.message);
		abort();
	}
	stub.features_loading = false;
	return 0;
}

static void
run_stdio(const struct request *rq)
{
	struct legacy_local local = {.asker = &stdio_asker};
	struct mcp_reply r;
	json_object *root = NULL;
	const char *why = NULL;

	memset(&r, 0, sizeof(r));
	if (jsonrpc_parse(rq->body, rq->body_len, GW_JSON_MAX_DEPTH, &root, &why) != 0)
		return;
	/* the stdio session: initialize first when the input is not one, so later methods are reachable */
	if (!is_initialize(rq))
	{
		json_object *init = json_tokener_parse("{\"jsonrpc\":\"2.0\",\"id\":0,\"method\":\"initialize\",\"params\":"
											   "{\"protocolVersion\":\"2025-11-25\",\"capabilities\":{\"elicitation\":{}},"
											   "\"clientInfo\":{\"name\":\"f\",\"version\":\"1\"}}}");
		struct mcp_reply ri;

		memset(&ri, 0, sizeof(ri));
		endpoint_route(init, &rq->h, true, &local, &ri);
		free(ri.body);
	}
	if (era_of(root, &rq->h) != ERA_LEGACY)
	{
		json_object_put(root);
		json_object_put(local.caps);
		json_object_put(local.info);
		return;
	}
	endpoint_route(root, &rq->h, true, &local, &r);
	/* stdiomcp.c writes an SSE body's events one a line and a 401's OAuth object as -32001 */
	if (r.body != NULL && r.http_status != 401)
		check_body(&r);
	free(r.body);
	json_object_put(local.caps);
	json_object_put(local.info);
}

static void
run_http(const struct request *rq, bool deleting)
{
	struct mcp_reply r;
	json_object *root = NULL;
	const char *why = NULL;

	if (!deleting)
	{
		/* the modern era is envelope_fuzz's */
		if (jsonrpc_parse(rq->body, rq->body_len, GW_JSON_MAX_DEPTH, &root, &why) != 0)
			return;
		if (era_of(root, &rq->h) != ERA_LEGACY)
		{
			json_object_put(root);
			return;
		}
		json_object_put(root);
	}
	memset(&r, 0, sizeof(r));
	if (deleting)
		endpoint_delete(&rq->h, false, &r);
	else
		endpoint_process(rq->body, rq->body_len, &rq->h, false, &r);
	if (stub.n_handle != 0)
		fail("the event thread called the database");
	if (r.needs_database)
	{
		if (r.body != NULL)
			fail("a deferred request already has an answer");
		mcp_reply_resume(&r);
		if (r.needs_database)
			fail("a resumed request still defers");
	}
	check_reply(rq, &r, true);
	check_session_use(rq, true, deleting);
	if (r.producer.cls != NULL)
		r.producer.discard(r.producer.cls);
	free(r.body);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct request rq;

	cur_data = data;
	cur_size = size;
	if (size == 0 || size > MAX_BODY)
		return 0;
	split_input(data, size, &rq);
	gw_cfg.insecure_dev_principal = (rq.mode & 1) ? DEV_PRINCIPAL : NULL;
	memset(&stub, 0, sizeof(stub));
	stub.answer = usable_answer(rq.mode >> 3);
	asked = 0;
	if (rq.mode & 2)
	{
		run_stdio(&rq);
		check_session_use(&rq, false, false);
	}
	else
		run_http(&rq, (rq.mode & 4) != 0);
	free(rq.lines);
	free(rq.body);
	gw_cfg.insecure_dev_principal = NULL;
	return 0;
}
