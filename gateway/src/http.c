/*
 * http.c
 *		libmicrohttpd front end: routing and the HTTP-level checks.
 *
 * Threading: --io-threads event threads (libmicrohttpd's epoll loop, one per
 * CPU by default) read, check and answer requests, and never block: what can
 * be answered from memory (every check before the database, server/discover
 * and tools/list with a cached token acceptance, /healthz) is answered there.
 * A request that needs the database is suspended (MHD_suspend_connection)
 * and run on a worker thread (work.c), which may block in libpq for as long
 * as it needs; the worker stores the answer and resumes the connection, and
 * the event thread sends it.  One thread per connection, as before, made
 * every request pay two context switches and left the gateway at half of a
 * static web server's rate (docs/performance.md).
 *
 * At most --threads connections are open (so at most that many requests wait
 * on workers), idle keep-alive connections are closed after
 * --connection-timeout seconds, and one client address may hold at most
 * --max-connections-per-ip of them (default half), so idle or slow
 * connections from one host cannot take every slot from the others.
 * MHD_USE_ITC lets MHD_quiesce_daemon() stop the listener for draining and
 * MHD_resume_connection() wake an event thread.
 *
 * Per request, in this order: Origin (403; not for the public Protected
 * Resource Metadata, prm.c) -> path (404) -> HTTP method
 * (405 + Allow) -> Content-Type (415) -> Content-Length (413) -> body read
 * under the cap (beyond it nothing more is stored; see on_request for 413)
 * -> mcp_process().  Rejections of /mcp are queued on the first callback,
 * before any body is read (the connection is then closed); everything else,
 * probes and 404 included, on the last callback, which keeps keep-alive.
 */
#include "http.h"

#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <microhttpd.h>

#include "clientaddr.h"
#include "clock.h"
#include "config.h"
#include "db.h"
#include "endpoint.h"
#include "extension.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp.h"
#include "metrics.h"
#include "prm.h"
#include "sse.h"
#include "text.h"
#include "version.h"
#include "work.h"

/* where a request is; on_request() is called several times per request */
enum req_phase
{
	PHASE_BODY = 0,				/* headers accepted: body chunks arrive, then the final call */
	PHASE_DISCARD,				/* the body exceeded --max-body: chunks are dropped, 413 at the end */
	PHASE_WAITING,				/* suspended: a worker runs the job */
	PHASE_DONE,					/* the worker finished and resumed the connection: answer */
	PHASE_RESPONDED				/* a response is queued (or the request was cut off) */
};

enum req_route
{
	ROUTE_MCP,
	ROUTE_HEALTHZ,
	ROUTE_READYZ,
	ROUTE_PRM,					/* Protected Resource Metadata (prm.c) */
	ROUTE_OTHER					/* 404 */
};

struct req_ctx
{
	enum req_phase phase;
	enum req_route route;
	double		start;
	unsigned long seq;
	size_t		discarded;		/* bytes dropped in PHASE_DISCARD */
	char	   *body;
	size_t		len;
	size_t		cap;
	struct mcp_headers mh;
	const char *origin;
	int			n_origin;
	const char *content_type;
	int			n_content_type;
	/* framing: refused before anything else, and the connection closed */
	const char *content_length;
	bool		content_lengths_differ;
	const char *transfer_encoding;
	int			n_transfer_encoding;
	int			n_host;
	bool		http_1_0;
	const char *bad_field;		/* why a header line is not one the gateway will guess at */
	bool		close_after;	/* send Connection: close with the answer */
	bool		is_delete;		/* DELETE /mcp: the legacy era's end of a session */
	const char *metadata;		/* ROUTE_PRM: the document (prm.c's, static) */
	bool		is_get;			/* GET /mcp: the legacy era's session stream */
	const char *forwarded_for;	/* the last X-Forwarded-For line, for clientaddr_resolve() */
	char		peer[GW_ADDR_TEXT];	/* the client address: the TCP peer or, behind a trusted proxy, its last hop */
	char		proxy[GW_ADDR_TEXT];	/* the trusted proxy that named peer, or "" */
	char		method[16];
	char		url[104];

	/* a request handed to a worker; written by it before it resumes conn */
	struct MHD_Connection *conn;
	struct mcp_reply reply;		/* ROUTE_MCP */
	bool		ready;			/* ROUTE_READYZ */
	struct db_error ready_err;	/* ROUTE_READYZ, when not ready */
};

static struct MHD_Daemon *daemon_;	/* set before requests, cleared after stop */

/* request accounting and drain state */
static pthread_mutex_t state_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cv;	/* CLOCK_MONOTONIC, initialised by http_start() */
static int	inflight;			/* guarded by state_mu */
static bool draining;			/* guarded by state_mu */
static unsigned long next_seq;	/* guarded by state_mu */

static bool
is_draining(void)
{
	bool		d;

	pthread_mutex_lock(&state_mu);
	d = draining;
	pthread_mutex_unlock(&state_mu);
	return d;
}

/* ---------- checks ---------- */

static bool
host_is_loopback(const char *h, size_t n)
{
	return (n == 9 && strncasecmp(h, "localhost", 9) == 0) ||
		(n == 9 && strncmp(h, "127.0.0.1", 9) == 0) ||
		(n == 5 && strncmp(h, "[::1]", 5) == 0);
}

/* no Origin: allowed; otherwise the allow-list, or loopback origins by default */
static bool
origin_allowed(const char *origin, int count)
{
	const char *p;
	const char *host;
	const char *end;

	if (count == 0)
		return true;
	if (count > 1 || origin == NULL)
		return false;
	if (gw_cfg.n_origins > 0)
	{
		for (size_t i = 0; i < gw_cfg.n_origins; i++)
			if (strcasecmp(origin, gw_cfg.origins[i]) == 0)
				return true;
		return false;
	}
	if (strncasecmp(origin, "http://", 7) == 0)
		p = origin + 7;
	else if (strncasecmp(origin, "https://", 8) == 0)
		p = origin + 8;
	else
		return false;
	host = p;
	if (*p == '[')
		p = strchr(p, ']') ? strchr(p, ']') + 1 : p + strlen(p);
	else
		while (*p && *p != ':' && *p != '/')
			p++;
	end = p;
	if (!host_is_loopback(host, (size_t) (end - host)))
		return false;
	if (*p == ':')
	{
		p++;
		if (*p == '\0')
			return false;
		while (*p >= '0' && *p <= '9')
			p++;
	}
	return *p == '\0';
}

/* application/json, optionally with parameters (charset, ...) */
static bool
content_type_ok(const char *ct, int count)
{
	const char *p;

	if (count != 1 || ct == NULL)
		return false;
	p = ct;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncasecmp(p, "application/json", 16) != 0)
		return false;
	p += 16;
	while (*p == ' ' || *p == '\t')
		p++;
	return *p == '\0' || *p == ';';
}

/* the headers whose meaning the gateway depends on: a fold of one of them is refused */
static const char *const read_headers[] = {
	MHD_HTTP_HEADER_CONTENT_LENGTH, MHD_HTTP_HEADER_TRANSFER_ENCODING, MHD_HTTP_HEADER_HOST,
	"Content-Type", "Origin", "Authorization", "MCP-Protocol-Version", "Mcp-Method", "Mcp-Name",
	"Mcp-Session-Id",
};

/*
 * NULL, or why this header line is refused.  libmicrohttpd 0.9.75 accepts
 * whitespace between a field name and its colon as part of the name, and
 * appends an obs-fold continuation line to the NAME ("Content-Length: 34"
 * then " 0" arrives as "Content-Length0: 34"): either way a framing header
 * would silently vanish, and a front end that reads the line otherwise would
 * frame the body differently (RFC 9112 sections 5.1 and 5.2).
 */
static const char *
field_problem(const char *key)
{
	if (!header_is_token(key))
		return "Bad Request: a header field name with whitespace or a separator in it";
	for (size_t i = 0; i < sizeof(read_headers) / sizeof(read_headers[0]); i++)
	{
		size_t		n = strlen(read_headers[i]);

		if (strlen(key) > n && strncasecmp(key, read_headers[i], n) == 0)
			return "Bad Request: a folded header line (obs-fold) is not accepted";
	}
	return NULL;
}

static enum MHD_Result
collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct req_ctx *rc = cls;
	const char *problem = field_problem(key);

	(void) kind;
	if (problem != NULL && rc->bad_field == NULL)
		rc->bad_field = problem;
	if (strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0)
		rc->n_host++;
	if (strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0)
	{
		if (rc->content_length == NULL)
			rc->content_length = value;
		else if (value == NULL || strcmp(rc->content_length, value) != 0)
			rc->content_lengths_differ = true;
		return MHD_YES;
	}
	if (strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0)
	{
		/* libmicrohttpd frames by the first, so the count matters, not the last value */
		if (rc->n_transfer_encoding++ == 0)
			rc->transfer_encoding = value ? value : "";
		return MHD_YES;
	}
	if (strncasecmp(key, GW_PARAM_HEADER_PREFIX, strlen(GW_PARAM_HEADER_PREFIX)) == 0)
	{
		header_param_take(&rc->mh, key, value);
		return MHD_YES;
	}
#define TAKE(hname, field, counter) \
	if (strcasecmp(key, hname) == 0) { if (rc->counter++ == 0) rc->field = value; return MHD_YES; }
	TAKE("Origin", origin, n_origin);
	TAKE("Content-Type", content_type, n_content_type);
	TAKE("MCP-Protocol-Version", mh.protocol_version, mh.n_protocol_version);
	TAKE("Mcp-Method", mh.method, mh.n_method);
	TAKE("Mcp-Name", mh.name, mh.n_name);
	TAKE("Authorization", mh.authorization, mh.n_authorization);
	TAKE("Mcp-Session-Id", mh.session_id, mh.n_session_id);
#undef TAKE
	if (strcasecmp(key, "X-Forwarded-For") == 0)
		rc->forwarded_for = value ? value : "";	/* a proxy appends its hop as the last line */
	return MHD_YES;
}

/*
 * Message framing the gateway will not guess at (RFC 9112 section 6): the
 * answer is an error and the connection is closed, because what follows on
 * it could be read as another request.  NULL when the framing is sound.
 */
static const char *
framing_problem(struct req_ctx *rc, unsigned *status)
{
	*status = MHD_HTTP_BAD_REQUEST;
	if (rc->bad_field != NULL)
		return rc->bad_field;
	if (rc->content_lengths_differ)
		return "Bad Request: conflicting Content-Length headers";
	if (rc->n_transfer_encoding > 1)
		return "Bad Request: more than one Transfer-Encoding header";
	if (rc->n_host > 1)
		return "Bad Request: more than one Host header";
	if (rc->transfer_encoding != NULL && rc->http_1_0)
		return "Bad Request: Transfer-Encoding in an HTTP/1.0 request";
	if (rc->transfer_encoding != NULL && rc->content_length != NULL)
		return "Bad Request: both Transfer-Encoding and Content-Length";
	if (rc->transfer_encoding != NULL && strcasecmp(rc->transfer_encoding, "chunked") != 0)
	{
		*status = MHD_HTTP_NOT_IMPLEMENTED;
		return "Not Implemented: the only transfer coding accepted is chunked";
	}
	return NULL;
}

/* ---------- responses and the request log ---------- */

static void
log_request(struct req_ctx *rc, unsigned status, const struct mcp_reply *r, const char *detail)
{
	struct log_line line;
	int			level = GW_LOG_INFO;
	bool		probe = rc->route == ROUTE_HEALTHZ || rc->route == ROUTE_READYZ;
	char		ms_text[32];

	if (rc->route == ROUTE_MCP)
		metrics_request(r ? r->log.rpc_method : NULL, status, r ? r->log.code : 0, clock_mono() - rc->start);
	if (probe && status < 500)
		level = GW_LOG_DEBUG;
	if (r && r->log.notification && r->log.detail[0])
		level = GW_LOG_WARN;
	/* built in place, not as a json-c tree: this line is on every request */
	if (!log_line_begin(&line, level, "request"))
		return;
	log_line_int(&line, "req", (long long) rc->seq);
	log_line_str(&line, "peer", rc->peer);
	if (rc->proxy[0])
		log_line_str(&line, "proxy", rc->proxy);
	log_line_str(&line, "http_method", rc->method);
	log_line_strn(&line, "path", rc->url, 100);
	log_line_int(&line, "status", (long long) status);
	snprintf(ms_text, sizeof(ms_text), "%.1f", (clock_mono() - rc->start) * 1000.0);
	log_line_raw_number(&line, "duration_ms", ms_text);
	if (r)
	{
		if (r->log.rpc_id[0])
			log_line_str(&line, "rpc_id", r->log.rpc_id);
		if (r->log.rpc_method[0])
			log_line_str(&line, "rpc_method", r->log.rpc_method);
		if (r->log.tool[0])
			log_line_str(&line, "tool", r->log.tool);
		if (r->log.notification)
			log_line_bool(&line, "notification", true);
		if (r->log.code)
			log_line_int(&line, "code", r->log.code);
		log_line_int(&line, "retries", r->log.retries);
		if (r->log.reason[0])
			log_line_str(&line, "reason", r->log.reason);
		if (r->log.detail[0])
			log_line_str(&line, "detail", r->log.detail);
	}
	else if (detail)
		log_line_str(&line, "detail", detail);
	log_line_end(&line);
}

/* the headers of a response beyond the status */
struct resp_extra
{
	const char *ctype;			/* NULL = application/json */
	const char *allow;
	const char *www_auth;
	bool		retry_after;
	const char *session_id;		/* Mcp-Session-Id (legacy initialize) */
	bool		cors;			/* public metadata: any origin may read it */
};

static enum MHD_Result
respond(struct MHD_Connection *conn, struct req_ctx *rc, unsigned status, const char *body,
		const struct resp_extra *x)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t		len = body ? strlen(body) : 0;

	rc->phase = PHASE_RESPONDED;
	resp = MHD_create_response_from_buffer(len, (void *) (body ? body : ""), MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	if (len > 0)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, x && x->ctype ? x->ctype : "application/json");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (x && x->allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, x->allow);
	if (x && x->www_auth)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, x->www_auth);
	if (x && x->retry_after)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	if (x && x->session_id && x->session_id[0])
		MHD_add_response_header(resp, "Mcp-Session-Id", x->session_id);
	if (x && x->cors)
	{
		MHD_add_response_header(resp, "Access-Control-Allow-Origin", "*");
		MHD_add_response_header(resp, "Access-Control-Allow-Methods", "GET, HEAD, OPTIONS");
		MHD_add_response_header(resp, "Access-Control-Allow-Headers", "MCP-Protocol-Version");
	}
	if (is_draining() || rc->close_after)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

/* An HTTP-level rejection of /mcp: a JSON-RPC error without an id (none was read). */
static enum MHD_Result
reject(struct MHD_Connection *conn, struct req_ctx *rc, unsigned status, const char *message,
	   const char *allow)
{
	json_object *e = jsonrpc_error(NULL, RPC_INVALID_REQUEST, message, NULL);
	char	   *body = jsonrpc_serialize(e);
	struct resp_extra x = {.allow = allow};
	enum MHD_Result ret;

	json_object_put(e);
	log_request(rc, status, NULL, message);
	ret = respond(conn, rc, status, body, &x);
	free(body);
	return ret;
}

static enum MHD_Result
reject_too_large(struct MHD_Connection *conn, struct req_ctx *rc)
{
	rc->close_after = true;
	return reject(conn, rc, MHD_HTTP_CONTENT_TOO_LARGE,
				  "Payload Too Large: the request body exceeds --max-body", NULL);
}

/* /readyz on a worker: a pooled connection runs SELECT 1, and features() is compatible */
static void
check_ready(struct req_ctx *rc)
{
	int			t = gw_cfg.pool_acquire_timeout_ms < 1000 ? (int) gw_cfg.pool_acquire_timeout_ms : 1000;

	rc->ready = db_ping(t, &rc->ready_err) && features_ensure(&rc->ready_err) == OUT_OK;
}

/* the blocking part of a request, on a worker thread (work.c) */
static void
run_job(void *arg)
{
	struct req_ctx *rc = arg;

	if (rc->route == ROUTE_MCP)
		mcp_reply_resume(&rc->reply);	/* checked on the event thread: not parsed or checked again */
	else
		check_ready(rc);
	rc->phase = PHASE_DONE;
	MHD_resume_connection(rc->conn);
}

/*
 * Suspend the request and hand it to a worker; the handler is called again
 * once the worker resumed the connection, in PHASE_DONE.  Should no worker
 * thread start, the job runs here: slower for everyone on this event
 * thread, but the request is still answered.
 */
static enum MHD_Result
run_blocking(struct MHD_Connection *conn, struct req_ctx *rc)
{
	rc->conn = conn;
	rc->phase = PHASE_WAITING;
	MHD_suspend_connection(conn);
	if (work_submit(run_job, rc) != 0)
		run_job(rc);
	return MHD_YES;
}

/* {"status":...,"gateway":...,"extension":...[,"reason":...]} of /readyz */
static char *
ready_body(const char *status, const char *reason)
{
	json_object *o = json_object_new_object();
	char		ext[32];
	char	   *text;

	features_extension_version(ext, sizeof(ext));
	json_object_object_add(o, "status", json_object_new_string(status));
	if (reason)
		json_object_object_add(o, "reason", json_object_new_string(reason));
	json_object_object_add(o, "gateway", json_object_new_string(GW_VERSION));
	if (ext[0])
		json_object_object_add(o, "extension", json_object_new_string(ext));
	text = jsonrpc_serialize(o);
	json_object_put(o);
	return text;
}

/* the answer to /readyz once the worker checked the database */
static enum MHD_Result
answer_ready(struct MHD_Connection *conn, struct req_ctx *rc)
{
	const char *reason = NULL;
	char	   *body;
	enum MHD_Result ret;

	if (!rc->ready)
		reason = rc->ready_err.kind == OUT_DATABASE_BUSY ? "database pool exhausted"
			: rc->ready_err.kind == OUT_INCOMPATIBLE_EXTENSION ? "incompatible extension"
			: "database unreachable";
	body = ready_body(rc->ready ? "ready" : "unavailable", reason);
	log_request(rc, rc->ready ? 200 : 503, NULL, rc->ready ? NULL : rc->ready_err.message);
	ret = respond(conn, rc, rc->ready ? 200 : 503, body, NULL);
	free(body);
	return ret;
}

static enum MHD_Result
serve_probe(struct MHD_Connection *conn, struct req_ctx *rc)
{
	static const struct resp_extra get_only = {.allow = "GET, HEAD"};

	if (strcmp(rc->method, "GET") != 0 && strcmp(rc->method, "HEAD") != 0)
	{
		log_request(rc, 405, NULL, "method not allowed");
		return respond(conn, rc, MHD_HTTP_METHOD_NOT_ALLOWED, "{\"status\":\"method not allowed\"}", &get_only);
	}
	if (rc->route == ROUTE_HEALTHZ)
	{
		log_request(rc, 200, NULL, NULL);
		return respond(conn, rc, 200, "{\"status\":\"ok\"}", NULL);
	}
	if (is_draining())
	{
		log_request(rc, 503, NULL, "draining");
		return respond(conn, rc, 503, "{\"status\":\"unavailable\",\"reason\":\"draining\"}", NULL);
	}
	return run_blocking(conn, rc);
}

/* Protected Resource Metadata: configuration, the same for everyone, so any origin may read it */
static enum MHD_Result
serve_prm(struct MHD_Connection *conn, struct req_ctx *rc)
{
	static const struct resp_extra metadata = {.allow = "GET, HEAD, OPTIONS", .cors = true};

	if (strcmp(rc->method, "OPTIONS") == 0)
	{
		log_request(rc, 204, NULL, NULL);
		return respond(conn, rc, MHD_HTTP_NO_CONTENT, NULL, &metadata);
	}
	if (strcmp(rc->method, "GET") != 0 && strcmp(rc->method, "HEAD") != 0)
	{
		log_request(rc, 405, NULL, "method not allowed");
		return respond(conn, rc, MHD_HTTP_METHOD_NOT_ALLOWED, "{\"error\":\"method not allowed\"}", &metadata);
	}
	log_request(rc, 200, NULL, NULL);
	return respond(conn, rc, 200, rc->metadata, &metadata);
}

/*
 * A reply produced while it is sent (mcp.h): an event stream, written by a
 * worker while the connection stays open.  The request line is logged now;
 * how the exchange ended is the producer's to log.
 */
static enum MHD_Result
answer_stream(struct MHD_Connection *conn, struct req_ctx *rc)
{
	struct sse_stream *s = sse_new();
	struct MHD_Response *resp = s ? sse_response(s, conn) : NULL;
	struct reply_producer p = rc->reply.producer;
	enum MHD_Result ret;

	rc->reply.producer = (struct reply_producer) {0};
	rc->phase = PHASE_RESPONDED;
	log_request(rc, 200, &rc->reply, NULL);
	if (resp == NULL)
	{
		if (s)
			sse_release(s);
		p.discard(p.cls);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, "text/event-stream");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	ret = MHD_queue_response(conn, 200, resp);
	MHD_destroy_response(resp);
	if (p.start(p.cls, s) != 0)
		log_event(GW_LOG_ERROR, "stream", "no worker thread for a streamed reply");
	return ret;
}

/* the MCP answer, from memory or from the worker */
static enum MHD_Result
answer_mcp(struct MHD_Connection *conn, struct req_ctx *rc)
{
	struct mcp_reply *r = &rc->reply;
	struct resp_extra x = {.ctype = r->content_type, .www_auth = r->www_authenticate,
		.retry_after = r->retry_after, .session_id = r->session_id, .allow = r->allow};
	enum MHD_Result ret;

	if (r->producer.cls)
		return answer_stream(conn, rc);
	log_request(rc, r->http_status, r, NULL);
	ret = respond(conn, rc, r->http_status, r->body, &x);
	free(r->body);
	r->body = NULL;
	return ret;
}

/* the whole body of POST /mcp has arrived: answer from memory if possible, else on a worker */
static enum MHD_Result
process_mcp(struct MHD_Connection *conn, struct req_ctx *rc)
{
	if (rc->is_delete)
		endpoint_delete(&rc->mh, false, &rc->reply);
	else if (rc->is_get)
		endpoint_get(&rc->mh, false, &rc->reply);
	else
		endpoint_process(rc->body ? rc->body : "", rc->len, &rc->mh, false, &rc->reply);
	if (rc->reply.needs_database)
		return run_blocking(conn, rc);
	return answer_mcp(conn, rc);
}

static struct req_ctx *
new_request(struct MHD_Connection *conn, const char *url, const char *method, const char *version)
{
	const union MHD_ConnectionInfo *ci;
	struct req_ctx *rc = calloc(1, sizeof(*rc));

	if (rc == NULL)
		return NULL;
	rc->start = clock_mono();
	pthread_mutex_lock(&state_mu);
	rc->seq = ++next_seq;
	inflight++;
	pthread_mutex_unlock(&state_mu);
	str_copy(rc->method, sizeof(rc->method), method);
	str_copy(rc->url, sizeof(rc->url), url);
	rc->http_1_0 = version != NULL && strcmp(version, MHD_HTTP_VERSION_1_0) == 0;
	rc->route = strcmp(url, "/mcp") == 0 ? ROUTE_MCP
		: strcmp(url, "/healthz") == 0 ? ROUTE_HEALTHZ
		: strcmp(url, "/readyz") == 0 ? ROUTE_READYZ
		: (rc->metadata = prm_document(url)) != NULL ? ROUTE_PRM : ROUTE_OTHER;
	MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, rc);
	ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
	clientaddr_resolve(ci ? ci->client_addr : NULL, rc->forwarded_for, rc->peer, rc->proxy);
	return rc;
}

/* Content-Length within --max-body (absent: counted as the body arrives) */
static bool
content_length_ok(const char *cl)
{
	char	   *end;
	unsigned long long n;

	if (cl == NULL)
		return true;
	errno = 0;
	n = strtoull(cl, &end, 10);
	return errno == 0 && end != cl && n <= (unsigned long long) gw_cfg.max_body;
}

/*
 * The first call: the checks on the headers.  Rejections of /mcp are queued
 * now, before any body is read (and the connection closed); everything else
 * is answered on the final call, which keeps keep-alive.
 */
static enum MHD_Result
begin_request(struct MHD_Connection *conn, struct req_ctx *rc)
{
	unsigned	status;
	const char *problem = framing_problem(rc, &status);

	if (problem != NULL)
	{
		rc->close_after = true;
		return reject(conn, rc, status, problem, NULL);
	}
	if (rc->route != ROUTE_PRM && !origin_allowed(rc->origin, rc->n_origin))
		return reject(conn, rc, MHD_HTTP_FORBIDDEN, "Forbidden: Origin not allowed", NULL);
	if (rc->route != ROUTE_MCP)
		return MHD_YES;
	if (strcmp(rc->method, "DELETE") == 0)
	{
		rc->is_delete = true;	/* no body is read for it */
		return MHD_YES;
	}
	if (strcmp(rc->method, "GET") == 0)
	{
		rc->is_get = true;		/* the 2025 era's session stream; no body */
		return MHD_YES;
	}
	if (strcmp(rc->method, "POST") != 0)
		return reject(conn, rc, MHD_HTTP_METHOD_NOT_ALLOWED,
					  "Method Not Allowed: the MCP endpoint accepts POST (and GET and DELETE for a 2025-era session)",
					  "GET, POST, DELETE");
	if (!content_type_ok(rc->content_type, rc->n_content_type))
		return reject(conn, rc, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
					  "Unsupported Media Type: Content-Type must be application/json", NULL);
	if (!content_length_ok(rc->content_length))
		return reject_too_large(conn, rc);
	return MHD_YES;				/* now read the body */
}

/* append a chunk of the /mcp body, under the --max-body cap */
static enum MHD_Result
store_chunk(struct req_ctx *rc, const char *data, size_t n)
{
	if (n > (size_t) gw_cfg.max_body - rc->len)
	{
		rc->phase = PHASE_DISCARD;
		rc->discarded = n;
		free(rc->body);
		rc->body = NULL;
		rc->len = rc->cap = 0;
		return MHD_YES;
	}
	if (rc->len + n + 1 > rc->cap)
	{
		size_t		cap = rc->cap ? rc->cap : 4096;
		char	   *grown;

		while (cap < rc->len + n + 1)
			cap *= 2;
		if (cap > (size_t) gw_cfg.max_body + 1)
			cap = (size_t) gw_cfg.max_body + 1;
		grown = realloc(rc->body, cap);
		if (grown == NULL)
			return MHD_NO;
		rc->body = grown;
		rc->cap = cap;
	}
	memcpy(rc->body + rc->len, data, n);
	rc->len += n;
	rc->body[rc->len] = '\0';
	return MHD_YES;
}

/*
 * A chunk of body.  libmicrohttpd 0.9.x cannot queue a response in the
 * middle of an upload, so the rest of an oversized chunked body is read and
 * dropped (never stored), and 413 follows at its end.  A client that keeps
 * sending far beyond the cap is cut off.
 */
static enum MHD_Result
take_chunk(struct req_ctx *rc, const char *data, size_t *size)
{
	size_t		n = *size;

	*size = 0;
	if (rc->route != ROUTE_MCP)
		return MHD_YES;			/* ignored */
	if (rc->phase == PHASE_BODY)
		return store_chunk(rc, data, n);
	rc->discarded += n;
	if (rc->discarded <= (size_t) gw_cfg.max_body * 8)
		return MHD_YES;
	log_request(rc, 413, NULL, "oversized chunked body: connection closed");
	rc->phase = PHASE_RESPONDED;
	return MHD_NO;
}

/* the final call: the whole request has arrived */
static enum MHD_Result
finish_request(struct MHD_Connection *conn, struct req_ctx *rc)
{
	static const struct resp_extra text = {.ctype = "text/plain; charset=utf-8"};

	switch (rc->route)
	{
		case ROUTE_MCP:
			return rc->phase == PHASE_DISCARD ? reject_too_large(conn, rc) : process_mcp(conn, rc);
		case ROUTE_HEALTHZ:
		case ROUTE_READYZ:
			return serve_probe(conn, rc);
		case ROUTE_PRM:
			return serve_prm(conn, rc);
		case ROUTE_OTHER:
			break;
	}
	log_request(rc, 404, NULL, "no such path");
	return respond(conn, rc, MHD_HTTP_NOT_FOUND, "not found\n", &text);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
		   const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct req_ctx *rc = *con_cls;

	(void) cls;
	if (rc == NULL)
	{
		*con_cls = rc = new_request(conn, url, method, version);
		return rc ? begin_request(conn, rc) : MHD_NO;
	}
	switch (rc->phase)
	{
		case PHASE_BODY:
		case PHASE_DISCARD:
			if (*upload_data_size > 0)
				return take_chunk(rc, upload_data, upload_data_size);
			return finish_request(conn, rc);
		case PHASE_WAITING:
			return MHD_YES;		/* not called while suspended */
		case PHASE_DONE:
			return rc->route == ROUTE_MCP ? answer_mcp(conn, rc) : answer_ready(conn, rc);
		case PHASE_RESPONDED:
			break;
	}
	*upload_data_size = 0;		/* discard whatever still arrives */
	return MHD_YES;
}

static void
on_completed(void *cls, struct MHD_Connection *conn, void **con_cls, enum MHD_RequestTerminationCode toe)
{
	struct req_ctx *rc = *con_cls;

	(void) cls;
	(void) conn;
	(void) toe;
	if (rc == NULL)
		return;
	/*
	 * A client that left while its request waited on the database is gone
	 * before the answer could be sent; the request itself was carried out,
	 * so it is logged as answered.
	 */
	if (rc->phase == PHASE_DONE && rc->route == ROUTE_MCP)
		log_request(rc, rc->reply.http_status, &rc->reply, NULL);
	free(rc->reply.body);
	mcp_reply_discard(&rc->reply);
	if (rc->reply.producer.cls)
		rc->reply.producer.discard(rc->reply.producer.cls);	/* a stream the client left before it began */
	free(rc->body);
	free(rc);
	*con_cls = NULL;
	pthread_mutex_lock(&state_mu);
	inflight--;
	if (inflight == 0)
		pthread_cond_broadcast(&idle_cv);
	pthread_mutex_unlock(&state_mu);
}

/*
 * libmicrohttpd logs one line per refused connection ("Server reached
 * connection limit"), so a flood of connections would become a flood of log
 * lines.  At most HTTP_LOG_BURST of its messages are written per second; the
 * number suppressed is logged with the next one written.
 */
#define HTTP_LOG_BURST 5

static pthread_mutex_t mhd_log_mu = PTHREAD_MUTEX_INITIALIZER;
static double mhd_log_window;	/* guarded by mhd_log_mu */
static int	mhd_log_count;		/* guarded by mhd_log_mu */
static unsigned long mhd_log_suppressed;	/* guarded by mhd_log_mu */

static void
mhd_logger(void *cls, const char *fmt, va_list ap)
{
	char		msg[512];
	size_t		n;
	double		now = clock_mono();
	unsigned long suppressed = 0;

	(void) cls;
	pthread_mutex_lock(&mhd_log_mu);
	if (now - mhd_log_window >= 1.0)
	{
		mhd_log_window = now;
		mhd_log_count = 0;
	}
	if (mhd_log_count >= HTTP_LOG_BURST)
	{
		mhd_log_suppressed++;
		pthread_mutex_unlock(&mhd_log_mu);
		return;
	}
	mhd_log_count++;
	suppressed = mhd_log_suppressed;
	mhd_log_suppressed = 0;
	pthread_mutex_unlock(&mhd_log_mu);
	if (suppressed > 0)
		log_event(GW_LOG_WARN, "http", "%lu more libmicrohttpd message(s) suppressed", suppressed);

	vsnprintf(msg, sizeof(msg), fmt, ap);
	n = strlen(msg);
	while (n > 0 && (msg[n - 1] == '\n' || msg[n - 1] == '\r'))
		msg[--n] = '\0';
	log_event(GW_LOG_WARN, "http", "%s", msg);
}

int
http_start(void)
{
	unsigned int flags = MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME |
		MHD_USE_ITC | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	char		host[INET6_ADDRSTRLEN] = "?";
	unsigned	port = 0;
	struct log_line line;
	char		ext[32];
	struct MHD_OptionItem pool_option[2] = {{MHD_OPTION_END, 0, NULL}, {MHD_OPTION_END, 0, NULL}};

	if (gw_cfg.listen_ipv6)
		flags |= MHD_USE_IPv6;
	if (clock_cond_init(&idle_cv) != 0)
		return -1;
	if (work_start((int) gw_cfg.max_connections, GW_THREAD_STACK_SIZE) != 0)
	{
		log_event(GW_LOG_ERROR, "startup", "cannot allocate the worker threads' table");
		return -1;
	}
	/*
	 * The logger first: libmicrohttpd writes what it reports while parsing
	 * earlier options to stderr itself.  One event thread is no pool: the
	 * option is then left out (1 and 0 are both answered with a warning).
	 */
	if (gw_cfg.io_threads_num > 1)
		pool_option[0] = (struct MHD_OptionItem) {MHD_OPTION_THREAD_POOL_SIZE, (intptr_t) gw_cfg.io_threads_num, NULL};
	daemon_ = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
							   MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
							   MHD_OPTION_ARRAY, pool_option,
							   MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &gw_cfg.listen_addr,
							   MHD_OPTION_CONNECTION_LIMIT, (unsigned int) gw_cfg.max_connections,
							   MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned int) gw_cfg.max_connections_per_ip,
							   MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) gw_cfg.connection_timeout,
							   MHD_OPTION_THREAD_STACK_SIZE, (size_t) GW_THREAD_STACK_SIZE,
							   MHD_OPTION_CONNECTION_MEMORY_LIMIT, (size_t) GW_CONNECTION_MEMORY,
							   MHD_OPTION_NOTIFY_COMPLETED, on_completed, NULL,
							   MHD_OPTION_END);
	if (daemon_ == NULL)
	{
		log_event(GW_LOG_ERROR, "listen_failed", "cannot listen on %s (address in use or not available?)",
				  gw_cfg.listen);
		return -1;
	}
	info = MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_BIND_PORT);
	if (info)
		port = info->port;
	if (gw_cfg.listen_addr.ss_family == AF_INET)
		inet_ntop(AF_INET, &((struct sockaddr_in *) &gw_cfg.listen_addr)->sin_addr, host, sizeof(host));
	else
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *) &gw_cfg.listen_addr)->sin6_addr, host, sizeof(host));

	if (log_line_begin(&line, GW_LOG_INFO, "listening"))
	{
		log_line_str(&line, "host", host);
		log_line_int(&line, "port", (long long) port);
		log_line_str(&line, "version", GW_VERSION);
		features_extension_version(ext, sizeof(ext));
		log_line_str(&line, "extension_version", ext[0] ? ext : "unknown");
		log_line_int(&line, "max_connections", gw_cfg.max_connections);
		log_line_int(&line, "io_threads", gw_cfg.io_threads_num);
		log_line_int(&line, "max_connections_per_ip", gw_cfg.max_connections_per_ip);
		log_line_str(&line, "auth", gw_cfg.insecure_dev_principal
					 ? "INSECURE dev principal (no tokens)" : "bearer");
		log_line_end(&line);
	}
	return 0;
}

void
http_begin_drain(void)
{
	MHD_socket fd;

	pthread_mutex_lock(&state_mu);
	draining = true;
	pthread_mutex_unlock(&state_mu);
	if (daemon_)
	{
		fd = MHD_quiesce_daemon(daemon_);
		if (fd != MHD_INVALID_SOCKET)
			close(fd);
	}
}

int
http_open_connections(void)
{
	const union MHD_DaemonInfo *info = daemon_ ? MHD_get_daemon_info(daemon_, MHD_DAEMON_INFO_CURRENT_CONNECTIONS) : NULL;

	return info ? (int) info->num_connections : 0;
}

int
http_inflight(void)
{
	int			n;

	pthread_mutex_lock(&state_mu);
	n = inflight;
	pthread_mutex_unlock(&state_mu);
	return n;
}

bool
http_wait_idle(int timeout_ms)
{
	struct timespec deadline = clock_deadline(timeout_ms);
	bool		idle;

	pthread_mutex_lock(&state_mu);
	while (inflight > 0)
		if (pthread_cond_timedwait(&idle_cv, &state_mu, &deadline) == ETIMEDOUT)
			break;
	idle = inflight == 0;
	pthread_mutex_unlock(&state_mu);
	return idle;
}

void
http_stop(void)
{
	/* first the workers: none may resume a connection of a stopped daemon */
	work_stop();
	if (daemon_)
		MHD_stop_daemon(daemon_);
	daemon_ = NULL;
}
