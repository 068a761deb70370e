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
 * Per request, in this order: Origin (403) -> path (404) -> HTTP method
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

#include "config.h"
#include "db.h"
#include "jsonrpc.h"
#include "log.h"
#include "mcp.h"
#include "work.h"

/* what a worker thread does for a suspended request */
enum blocking_job
{
	JOB_NONE = 0,
	JOB_MCP,					/* mcp_process() with the database */
	JOB_READY					/* /readyz: a pooled connection runs SELECT 1 */
};

struct req_ctx
{
	double		start;
	unsigned long seq;
	bool		responded;
	bool		too_large;
	size_t		discarded;		/* bytes dropped after too_large */
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
	bool		close_after;	/* send Connection: close with the answer */
	char		peer[64];

	/* a request handed to a worker; written by it before it resumes conn */
	struct MHD_Connection *conn;
	enum blocking_job job;
	bool		job_done;
	struct mcp_reply reply;		/* JOB_MCP */
	bool		ready;			/* JOB_READY */
	struct db_error ready_err;	/* JOB_READY, when not ready */
	bool		logged;			/* its request line is written */
	char		method[16];		/* for the log line of a request whose client left */
	char		url[104];
};

static struct MHD_Daemon *daemon_;	/* set before requests, cleared after stop */

/* request accounting and drain state */
static pthread_mutex_t state_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t idle_cv = PTHREAD_COND_INITIALIZER;
static int	inflight;			/* guarded by state_mu */
static bool draining;			/* guarded by state_mu */
static unsigned long next_seq;	/* guarded by state_mu */

static double
now_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static bool
is_draining(void)
{
	bool		d;

	pthread_mutex_lock(&state_mu);
	d = draining;
	pthread_mutex_unlock(&state_mu);
	return d;
}

/* ---------- header values ---------- */

/* valid UTF-8 with no NUL, as a decoded header value must be */
static bool
utf8_valid(const unsigned char *p, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		size_t		k;

		if (p[i] == 0)
			return false;
		if (p[i] < 0x80)
		{
			i++;
			continue;
		}
		k = utf8_sequence_length(p + i, n - i);
		if (k == 0)
			return false;
		i += k;
	}
	return true;
}

static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/* standard base64 (RFC 4648 section 4); padding optional but exact if present */
static unsigned char *
b64_decode(const char *in, size_t n, size_t *outlen)
{
	unsigned char *out;
	size_t		o = 0;
	unsigned	acc = 0;
	int			bits = 0;
	size_t		pad = 0;

	while (n > 0 && in[n - 1] == '=' && pad < 2)
		n--, pad++;
	if (pad && (n + pad) % 4 != 0)
		return NULL;
	if (n % 4 == 1)
		return NULL;
	out = malloc(n * 3 / 4 + 1);
	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		int			v = b64val((unsigned char) in[i]);

		if (v < 0)
		{
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned) v;
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[o++] = (unsigned char) (acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0)				/* non-canonical trailing bits */
	{
		free(out);
		return NULL;
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

enum hdr_status
http_header_value(const char *raw, bool allow_base64, char **out)
{
	const char *start = raw;
	const char *end = raw + strlen(raw);
	size_t		n;

	*out = NULL;
	while (start < end && (*start == ' ' || *start == '\t'))
		start++;
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (const char *p = start; p < end; p++)
		if (!((*p >= 0x20 && *p <= 0x7e) || *p == '\t'))
			return HDR_INVALID;
	n = (size_t) (end - start);
	if (allow_base64 && n >= 11 && strncmp(start, "=?base64?", 9) == 0 && strncmp(end - 2, "?=", 2) == 0)
	{
		size_t		dlen;
		unsigned char *dec = b64_decode(start + 9, n - 11, &dlen);

		if (dec == NULL)
			return HDR_BAD_ENCODING;
		if (!utf8_valid(dec, dlen))
		{
			free(dec);
			return HDR_BAD_ENCODING;
		}
		*out = (char *) dec;
		return HDR_OK;
	}
	*out = strndup(start, n);
	return *out ? HDR_OK : HDR_INVALID;
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

static enum MHD_Result
collect_header(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
	struct req_ctx *rc = cls;

	(void) kind;
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
		rc->transfer_encoding = value ? value : "";
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
#undef TAKE
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
	if (rc->content_lengths_differ)
		return "Bad Request: conflicting Content-Length headers";
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
log_request(struct req_ctx *rc, const char *method, const char *url, unsigned status,
			const struct mcp_reply *r, const char *detail)
{
	struct log_line line;
	int			level = GW_LOG_INFO;
	bool		probe = strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0;
	char		ms_text[32];

	if (probe && status < 500)
		level = GW_LOG_DEBUG;
	if (r && r->notification && r->detail[0])
		level = GW_LOG_WARN;
	/* built in place, not as a json-c tree: this line is on every request */
	if (!log_line_begin(&line, level, "request"))
		return;
	log_line_int(&line, "req", (long long) rc->seq);
	log_line_str(&line, "peer", rc->peer);
	log_line_str(&line, "http_method", method);
	log_line_strn(&line, "path", url, 100);
	log_line_int(&line, "status", (long long) status);
	snprintf(ms_text, sizeof(ms_text), "%.1f", (now_mono() - rc->start) * 1000.0);
	log_line_raw_number(&line, "duration_ms", ms_text);
	if (r)
	{
		if (r->rpc_id[0])
			log_line_str(&line, "rpc_id", r->rpc_id);
		if (r->rpc_method[0])
			log_line_str(&line, "rpc_method", r->rpc_method);
		if (r->tool[0])
			log_line_str(&line, "tool", r->tool);
		if (r->notification)
			log_line_bool(&line, "notification", true);
		if (r->code)
			log_line_int(&line, "code", r->code);
		log_line_int(&line, "retries", r->retries);
		if (r->reason[0])
			log_line_str(&line, "reason", r->reason);
		if (r->detail[0])
			log_line_str(&line, "detail", r->detail);
	}
	else if (detail)
		log_line_str(&line, "detail", detail);
	log_line_end(&line);
}

static enum MHD_Result
respond(struct MHD_Connection *conn, struct req_ctx *rc, unsigned status, const char *body,
		const char *ctype, const char *allow, const char *www_auth, bool retry_after)
{
	struct MHD_Response *resp;
	enum MHD_Result ret;
	size_t		len = body ? strlen(body) : 0;

	resp = MHD_create_response_from_buffer(len, (void *) (body ? body : ""), MHD_RESPMEM_MUST_COPY);
	if (resp == NULL)
		return MHD_NO;
	if (len > 0)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype ? ctype : "application/json");
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	MHD_add_response_header(resp, "X-Content-Type-Options", "nosniff");
	if (allow)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_ALLOW, allow);
	if (www_auth)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_WWW_AUTHENTICATE, www_auth);
	if (retry_after)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_RETRY_AFTER, "1");
	if (is_draining() || rc->too_large || rc->close_after)
		MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	if (ret == MHD_YES)
		rc->responded = true;
	return ret;
}

/* An HTTP-level rejection of /mcp: a JSON-RPC error without a readable id. */
static enum MHD_Result
reject(struct MHD_Connection *conn, struct req_ctx *rc, const char *method, const char *url,
	   unsigned status, const char *message, const char *allow)
{
	json_object *e = jsonrpc_error(NULL, RPC_INVALID_REQUEST, message, NULL);
	char	   *body = jsonrpc_serialize(e);
	enum MHD_Result ret;

	json_object_put(e);
	log_request(rc, method, url, status, NULL, message);
	ret = respond(conn, rc, status, body, NULL, allow, NULL, false);
	free(body);
	return ret;
}

/* the blocking part of a request, on a worker thread (work.c) */
static void
run_job(void *arg)
{
	struct req_ctx *rc = arg;

	if (rc->job == JOB_MCP)
		mcp_process(rc->body ? rc->body : "", rc->len, &rc->mh, true, &rc->reply);
	else
	{
		int			t = gw_cfg.pool_acquire_timeout_ms < 1000 ? (int) gw_cfg.pool_acquire_timeout_ms : 1000;

		rc->ready = db_ping(t, &rc->ready_err);
	}
	rc->job_done = true;
	MHD_resume_connection(rc->conn);
}

/*
 * Suspend the request and hand it to a worker; the handler is called again
 * once the worker resumed the connection, with rc->job_done set.  Should no
 * worker thread start, the job runs here: slower for everyone on this event
 * thread, but the request is still answered.
 */
static enum MHD_Result
run_blocking(struct MHD_Connection *conn, struct req_ctx *rc, const char *method, const char *url,
			 enum blocking_job job)
{
	rc->conn = conn;
	rc->job = job;
	str_copy(rc->method, sizeof(rc->method), method);
	str_copy(rc->url, sizeof(rc->url), url);
	MHD_suspend_connection(conn);
	if (work_submit(run_job, rc) != 0)
		run_job(rc);
	return MHD_YES;
}

static enum MHD_Result
serve_probe(struct MHD_Connection *conn, struct req_ctx *rc, const char *method, const char *url)
{
	unsigned	status = 200;
	const char *body;
	const char *detail = NULL;

	if (strcmp(url, "/healthz") == 0)
		body = "{\"status\":\"ok\"}";
	else if (is_draining())
	{
		status = 503;
		body = "{\"status\":\"unavailable\",\"reason\":\"draining\"}";
		detail = "draining";
	}
	else if (!rc->job_done)
		return run_blocking(conn, rc, method, url, JOB_READY);
	else if (rc->ready)
		body = "{\"status\":\"ready\"}";
	else
	{
		status = 503;
		body = rc->ready_err.status == DB_BUSY
			? "{\"status\":\"unavailable\",\"reason\":\"database pool exhausted\"}"
			: "{\"status\":\"unavailable\",\"reason\":\"database unreachable\"}";
		detail = rc->ready_err.message;
	}
	log_request(rc, method, url, status, NULL, detail);
	return respond(conn, rc, status, body, NULL, NULL, NULL, false);
}

static enum MHD_Result
on_request(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
		   const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct req_ctx *rc = *con_cls;

	(void) cls;
	(void) version;

	if (rc == NULL)
	{
		const union MHD_ConnectionInfo *ci;
		const char *cl;

		rc = calloc(1, sizeof(*rc));
		if (rc == NULL)
			return MHD_NO;
		rc->start = now_mono();
		pthread_mutex_lock(&state_mu);
		rc->seq = ++next_seq;
		inflight++;
		pthread_mutex_unlock(&state_mu);
		*con_cls = rc;

		ci = MHD_get_connection_info(conn, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
		if (ci && ci->client_addr)
		{
			const struct sockaddr *sa = ci->client_addr;

			if (sa->sa_family == AF_INET)
				inet_ntop(AF_INET, &((const struct sockaddr_in *) sa)->sin_addr, rc->peer, sizeof(rc->peer));
			else if (sa->sa_family == AF_INET6)
				inet_ntop(AF_INET6, &((const struct sockaddr_in6 *) sa)->sin6_addr, rc->peer, sizeof(rc->peer));
		}
		MHD_get_connection_values(conn, MHD_HEADER_KIND, collect_header, rc);
		{
			unsigned	status;
			const char *problem = framing_problem(rc, &status);

			if (problem != NULL)
			{
				rc->close_after = true;
				return reject(conn, rc, method, url, status, problem, NULL);
			}
		}

		if (!origin_allowed(rc->origin, rc->n_origin))
			return reject(conn, rc, method, url, MHD_HTTP_FORBIDDEN, "Forbidden: Origin not allowed", NULL);

		if (strcmp(url, "/mcp") != 0)
			return MHD_YES;		/* answered after the (ignored) body: keeps keep-alive */
		if (strcmp(method, "POST") != 0)
			return reject(conn, rc, method, url, MHD_HTTP_METHOD_NOT_ALLOWED,
						  "Method Not Allowed: the MCP endpoint accepts POST only", "POST");
		if (!content_type_ok(rc->content_type, rc->n_content_type))
			return reject(conn, rc, method, url, MHD_HTTP_UNSUPPORTED_MEDIA_TYPE,
						  "Unsupported Media Type: Content-Type must be application/json", NULL);
		cl = rc->content_length;
		if (cl)
		{
			char	   *end;
			unsigned long long n;

			errno = 0;
			n = strtoull(cl, &end, 10);
			if (errno != 0 || end == cl || n > (unsigned long long) gw_cfg.max_body)
			{
				rc->too_large = true;
				return reject(conn, rc, method, url, MHD_HTTP_CONTENT_TOO_LARGE,
							  "Payload Too Large: the request body exceeds --max-body", NULL);
			}
		}
		return MHD_YES;			/* now read the body */
	}

	if (rc->responded)
	{
		*upload_data_size = 0;	/* discard whatever still arrives */
		return MHD_YES;
	}

	if (strcmp(url, "/mcp") != 0)
	{
		if (*upload_data_size > 0)
		{
			*upload_data_size = 0;
			return MHD_YES;
		}
		if (strcmp(url, "/healthz") == 0 || strcmp(url, "/readyz") == 0)
		{
			if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
			{
				log_request(rc, method, url, 405, NULL, "method not allowed");
				return respond(conn, rc, MHD_HTTP_METHOD_NOT_ALLOWED, "{\"status\":\"method not allowed\"}",
							   NULL, "GET, HEAD", NULL, false);
			}
			return serve_probe(conn, rc, method, url);
		}
		log_request(rc, method, url, 404, NULL, "no such path");
		return respond(conn, rc, MHD_HTTP_NOT_FOUND, "not found\n", "text/plain; charset=utf-8",
					   NULL, NULL, false);
	}

	if (*upload_data_size > 0)
	{
		size_t		n = *upload_data_size;

		*upload_data_size = 0;
		if (rc->too_large)
		{
			/*
			 * libmicrohttpd 0.9.x cannot queue a response in the middle of
			 * an upload, so the rest of an oversized chunked body is read
			 * and dropped (never stored), and 413 follows at its end.  A
			 * client that keeps sending far beyond the cap is cut off.
			 */
			rc->discarded += n;
			if (rc->discarded > (size_t) gw_cfg.max_body * 8)
			{
				log_request(rc, method, url, 413, NULL, "oversized chunked body: connection closed");
				rc->responded = true;
				return MHD_NO;
			}
			return MHD_YES;
		}
		if (n > (size_t) gw_cfg.max_body - rc->len)
		{
			rc->too_large = true;
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
		memcpy(rc->body + rc->len, upload_data, n);
		rc->len += n;
		rc->body[rc->len] = '\0';
		return MHD_YES;
	}

	/* the whole body has arrived */
	if (rc->too_large)
		return reject(conn, rc, method, url, MHD_HTTP_CONTENT_TOO_LARGE,
					  "Payload Too Large: the request body exceeds --max-body", NULL);
	{
		struct mcp_reply *r = &rc->reply;
		enum MHD_Result ret;

		if (!rc->job_done)
		{
			/* answer from memory if possible; otherwise on a worker */
			mcp_process(rc->body ? rc->body : "", rc->len, &rc->mh, false, r);
			if (r->needs_database)
				return run_blocking(conn, rc, method, url, JOB_MCP);
		}
		log_request(rc, method, url, r->http_status, r, NULL);
		rc->logged = true;
		ret = respond(conn, rc, r->http_status, r->body, NULL, NULL, r->www_authenticate, r->retry_after);
		free(r->body);
		r->body = NULL;
		return ret;
	}
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
	if (rc->job == JOB_MCP && rc->job_done && !rc->logged)
		log_request(rc, rc->method, rc->url, rc->reply.http_status, &rc->reply, NULL);
	free(rc->reply.body);
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
	double		now = now_mono();
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

	if (gw_cfg.listen_ipv6)
		flags |= MHD_USE_IPv6;
	if (work_start((int) gw_cfg.threads, GW_THREAD_STACK_SIZE) != 0)
	{
		log_event(GW_LOG_ERROR, "startup", "cannot allocate the worker threads' table");
		return -1;
	}
	daemon_ = MHD_start_daemon(flags, 0, NULL, NULL, on_request, NULL,
							   MHD_OPTION_THREAD_POOL_SIZE, (unsigned int) gw_cfg.io_threads_num,
							   MHD_OPTION_EXTERNAL_LOGGER, mhd_logger, NULL,
							   MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &gw_cfg.listen_addr,
							   MHD_OPTION_CONNECTION_LIMIT, (unsigned int) gw_cfg.threads,
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
		log_line_int(&line, "max_connections", gw_cfg.threads);
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
	struct timespec deadline;
	bool		idle;

	clock_gettime(CLOCK_REALTIME, &deadline);
	deadline.tv_sec += timeout_ms / 1000;
	deadline.tv_nsec += (long) (timeout_ms % 1000) * 1000000L;
	if (deadline.tv_nsec >= 1000000000L)
	{
		deadline.tv_sec++;
		deadline.tv_nsec -= 1000000000L;
	}
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
