/*
 * metrics.c
 *		The gateway's counters, and the listener that serves them as
 *		Prometheus text (exposition format 0.0.4) on GET /metrics.
 *
 * Why a separate listener (--metrics-listen, off by default): the MCP
 * endpoint asks every caller for a bearer token, and a scraper should need
 * none; operational numbers (request rates, error codes, pool pressure) are
 * not for MCP clients either.  So /metrics is unauthenticated, but only on an
 * address the operator chose for it: loopback, or a private network the
 * scraper shares (the compose stack's).  It carries no tokens, principals,
 * note titles or URIs: every label value comes from a fixed table here, never
 * from a request, so a client cannot create series.
 *
 * Cost: each hook is one or two relaxed atomic adds on counters in static
 * arrays; nothing locks on the hot path.  A scrape reads the counters without
 * a lock (each value is atomic; the set is not a snapshot, as usual for
 * Prometheus), and the gauges through struct metrics_sources.
 */
#include "metrics.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "config.h"
#include "log.h"
#include "version.h"

typedef _Atomic uint64_t counter;

#define ADD(c, n) atomic_fetch_add_explicit(&(c), (uint64_t) (n), memory_order_relaxed)
#define GET(c) atomic_load_explicit(&(c), memory_order_relaxed)

/* the methods with series of their own; anything else is "other" */
static const char *const methods[] = {
	"server/discover", "initialize", "ping", "tools/list", "tools/call", "resources/list",
	"resources/templates/list", "resources/read", "prompts/list", "prompts/get",
	"completion/complete", "notifications", "other", "none",
};
#define N_METHODS (sizeof(methods) / sizeof(methods[0]))
#define METHOD_NOTIFICATIONS (N_METHODS - 3)
#define METHOD_OTHER (N_METHODS - 2)
#define METHOD_NONE (N_METHODS - 1)	/* refused before a method was read */

/* ok: a result (or an accepted notification); error: a JSON-RPC error; rejected: HTTP-level */
static const char *const outcomes[] = {"ok", "error", "rejected"};
#define N_OUTCOMES 3

static const int rpc_codes[] = {-32700, -32600, -32601, -32602, -32603, -32020, -32021, -32022};
#define N_CODES (sizeof(rpc_codes) / sizeof(rpc_codes[0]))	/* index N_CODES: other */

/* seconds; the last bucket is +Inf */
static const double bounds[] = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10};
#define N_BOUNDS (sizeof(bounds) / sizeof(bounds[0]))

static const char *const status_classes[] = {"1xx", "2xx", "3xx", "4xx", "5xx"};

static bool enabled;			/* written once by metrics_start() before any request */
static struct metrics_sources sources;
static struct MHD_Daemon *listener;

static counter requests[N_METHODS][N_OUTCOMES];
static counter rpc_errors[N_CODES + 1];
static counter http_statuses[5];
static counter duration_buckets[N_METHODS][N_BOUNDS + 1];	/* not cumulative; summed when rendered */
static counter duration_sum_us[N_METHODS];
static counter db_round_trips;
static counter db_retries_40001;
static counter db_retries_40p01;
static counter db_retries_other;
static counter token_cache_hits;
static counter token_cache_misses;
static counter token_cache_invalidations;

static size_t
method_index(const char *m)
{
	if (m == NULL || m[0] == '\0')
		return METHOD_NONE;
	if (strncmp(m, "notifications/", 14) == 0)
		return METHOD_NOTIFICATIONS;
	for (size_t i = 0; i < METHOD_NOTIFICATIONS; i++)
		if (strcmp(m, methods[i]) == 0)
			return i;
	return METHOD_OTHER;
}

void
metrics_request(const char *rpc_method, unsigned http_status, int rpc_code, double seconds)
{
	size_t		m;
	size_t		b = 0;
	size_t		c = 0;

	if (!enabled)
		return;
	m = method_index(rpc_method);
	ADD(requests[m][rpc_code != 0 ? 1 : (http_status < 400 ? 0 : 2)], 1);
	if (rpc_code != 0)
	{
		while (c < N_CODES && rpc_codes[c] != rpc_code)
			c++;
		ADD(rpc_errors[c], 1);
	}
	if (http_status >= 100 && http_status < 600)
		ADD(http_statuses[http_status / 100 - 1], 1);
	while (b < N_BOUNDS && seconds > bounds[b])
		b++;
	ADD(duration_buckets[m][b], 1);
	ADD(duration_sum_us[m], seconds > 0 ? seconds * 1e6 : 0);
}

void
metrics_db_round_trip(void)
{
	if (enabled)
		ADD(db_round_trips, 1);
}

void
metrics_db_retry(const char *sqlstate)
{
	if (!enabled)
		return;
	if (sqlstate && strcmp(sqlstate, "40001") == 0)
		ADD(db_retries_40001, 1);
	else if (sqlstate && strcmp(sqlstate, "40P01") == 0)
		ADD(db_retries_40p01, 1);
	else
		ADD(db_retries_other, 1);
}

void
metrics_token_cache_lookup(bool hit)
{
	if (enabled)
		ADD(*(hit ? &token_cache_hits : &token_cache_misses), 1);
}

void
metrics_token_cache_invalidation(void)
{
	if (enabled)
		ADD(token_cache_invalidations, 1);
}

/* ---------- rendering ---------- */

struct text
{
	char	   *s;
	size_t		len;
	size_t		cap;
	bool		failed;
};

static void emit(struct text *t, const char *fmt,...) __attribute__((format(printf, 2, 3)));

static void
emit(struct text *t, const char *fmt,...)
{
	va_list		ap;
	int			n;

	for (;;)
	{
		if (t->failed)
			return;
		va_start(ap, fmt);
		n = vsnprintf(t->s + t->len, t->cap - t->len, fmt, ap);
		va_end(ap);
		if (n >= 0 && (size_t) n < t->cap - t->len)
		{
			t->len += (size_t) n;
			return;
		}
		{
			size_t		cap = t->cap * 2 + (n > 0 ? (size_t) n : 0);
			char	   *grown = realloc(t->s, cap);

			if (grown == NULL || n < 0)
			{
				t->failed = true;
				return;
			}
			t->s = grown;
			t->cap = cap;
		}
	}
}

static void
header(struct text *t, const char *name, const char *type, const char *help)
{
	emit(t, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static void
render_requests(struct text *t)
{
	header(t, "mcp_notes_requests_total", "counter",
		   "POST /mcp requests answered, by JSON-RPC method and outcome (ok, error: a JSON-RPC error, rejected: refused at the HTTP level).");
	for (size_t m = 0; m < N_METHODS; m++)
		for (size_t o = 0; o < N_OUTCOMES; o++)
			emit(t, "mcp_notes_requests_total{method=\"%s\",outcome=\"%s\"} %llu\n",
				 methods[m], outcomes[o], (unsigned long long) GET(requests[m][o]));
	header(t, "mcp_notes_jsonrpc_errors_total", "counter", "JSON-RPC errors sent, by code.");
	for (size_t c = 0; c <= N_CODES; c++)
	{
		if (c < N_CODES)
			emit(t, "mcp_notes_jsonrpc_errors_total{code=\"%d\"} %llu\n", rpc_codes[c],
				 (unsigned long long) GET(rpc_errors[c]));
		else
			emit(t, "mcp_notes_jsonrpc_errors_total{code=\"other\"} %llu\n", (unsigned long long) GET(rpc_errors[c]));
	}
	header(t, "mcp_notes_http_responses_total", "counter", "Responses to POST /mcp by HTTP status class.");
	for (size_t s = 0; s < 5; s++)
		emit(t, "mcp_notes_http_responses_total{class=\"%s\"} %llu\n", status_classes[s],
			 (unsigned long long) GET(http_statuses[s]));
}

static void
render_durations(struct text *t)
{
	header(t, "mcp_notes_request_duration_seconds", "histogram",
		   "Time from the request's first byte to its answer, by JSON-RPC method.");
	for (size_t m = 0; m < N_METHODS; m++)
	{
		uint64_t	cumulative = 0;

		for (size_t b = 0; b <= N_BOUNDS; b++)
		{
			cumulative += GET(duration_buckets[m][b]);
			if (b < N_BOUNDS)
				emit(t, "mcp_notes_request_duration_seconds_bucket{method=\"%s\",le=\"%g\"} %llu\n",
					 methods[m], bounds[b], (unsigned long long) cumulative);
			else
				emit(t, "mcp_notes_request_duration_seconds_bucket{method=\"%s\",le=\"+Inf\"} %llu\n",
					 methods[m], (unsigned long long) cumulative);
		}
		emit(t, "mcp_notes_request_duration_seconds_sum{method=\"%s\"} %.6f\n", methods[m],
			 (double) GET(duration_sum_us[m]) / 1e6);
		emit(t, "mcp_notes_request_duration_seconds_count{method=\"%s\"} %llu\n", methods[m],
			 (unsigned long long) cumulative);
	}
}

static void
gauge(struct text *t, const char *name, const char *help, long long value)
{
	header(t, name, "gauge", help);
	emit(t, "%s %lld\n", name, value);
}

static void
render_database(struct text *t)
{
	int			size = 0;
	int			in_use = 0;
	int			waiting = 0;

	header(t, "mcp_notes_db_round_trips_total", "counter", "Statements sent to the database (each attempt counts).");
	emit(t, "mcp_notes_db_round_trips_total %llu\n", (unsigned long long) GET(db_round_trips));
	header(t, "mcp_notes_db_retries_total", "counter",
		   "Statements run again after a serialization failure (40001) or a deadlock (40P01).");
	emit(t, "mcp_notes_db_retries_total{sqlstate=\"40001\"} %llu\n", (unsigned long long) GET(db_retries_40001));
	emit(t, "mcp_notes_db_retries_total{sqlstate=\"40P01\"} %llu\n", (unsigned long long) GET(db_retries_40p01));
	emit(t, "mcp_notes_db_retries_total{sqlstate=\"other\"} %llu\n", (unsigned long long) GET(db_retries_other));
	if (sources.pool)
		sources.pool(&size, &in_use, &waiting);
	gauge(t, "mcp_notes_db_pool_size", "Database connections the pool may hold (--pool-size).", size);
	gauge(t, "mcp_notes_db_pool_in_use", "Pooled database connections taken by a request now.", in_use);
	gauge(t, "mcp_notes_db_pool_waiting", "Requests waiting for a pooled connection now.", waiting);
	header(t, "mcp_notes_token_cache_lookups_total", "counter",
		   "Token-cache lookups (tools/list, server/discover) while the cache is on, by result.");
	emit(t, "mcp_notes_token_cache_lookups_total{result=\"hit\"} %llu\n", (unsigned long long) GET(token_cache_hits));
	emit(t, "mcp_notes_token_cache_lookups_total{result=\"miss\"} %llu\n", (unsigned long long) GET(token_cache_misses));
	header(t, "mcp_notes_token_cache_invalidations_total", "counter",
		   "Times the whole token cache was forgotten (a change to the tokens table, or the listener connection came or went).");
	emit(t, "mcp_notes_token_cache_invalidations_total %llu\n", (unsigned long long) GET(token_cache_invalidations));
}

static void
render_process(struct text *t)
{
	int			alive = 0;
	int			busy = 0;
	char		ext[32] = "";

	gauge(t, "mcp_notes_http_open_connections", "HTTP connections open on the MCP listener.",
		  sources.open_connections ? sources.open_connections() : 0);
	gauge(t, "mcp_notes_http_inflight_requests", "Requests received and not yet completed.",
		  sources.inflight_requests ? sources.inflight_requests() : 0);
	if (sources.workers)
		sources.workers(&alive, &busy);
	gauge(t, "mcp_notes_worker_threads", "Worker threads alive (they run requests that need the database).", alive);
	gauge(t, "mcp_notes_worker_threads_busy", "Worker threads running a request now.", busy);
	gauge(t, "mcp_notes_io_threads", "HTTP event threads (--io-threads).", gw_cfg.io_threads_num);
	if (sources.extension_version)
		sources.extension_version(ext, sizeof(ext));
	header(t, "mcp_notes_build_info", "gauge", "Versions: gateway, extension (empty until the database was reached), protocol, contract.");
	/* the version text comes from pg_extension: keep it to safe characters */
	for (char *p = ext; *p; p++)
		if (*p == '"' || *p == '\\' || *p == '\n')
			*p = '_';
	emit(t, "mcp_notes_build_info{gateway=\"%s\",extension=\"%s\",protocol=\"%s\",contract=\"%d\"} 1\n",
		 GW_VERSION, ext, GW_PROTOCOL_VERSION, GW_CONTRACT);
}

char *
metrics_render(void)
{
	struct text t = {.s = malloc(16384), .cap = 16384};

	if (t.s == NULL)
		return NULL;
	t.s[0] = '\0';
	render_requests(&t);
	render_durations(&t);
	render_database(&t);
	render_process(&t);
	if (t.failed)
	{
		free(t.s);
		return NULL;
	}
	return t.s;
}

/* ---------- the listener ---------- */

static enum MHD_Result
answer(struct MHD_Connection *conn, unsigned status, char *body, const char *ctype)
{
	struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
	enum MHD_Result ret;

	if (resp == NULL)
	{
		free(body);
		return MHD_NO;
	}
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CONTENT_TYPE, ctype);
	MHD_add_response_header(resp, MHD_HTTP_HEADER_CACHE_CONTROL, "no-store");
	ret = MHD_queue_response(conn, status, resp);
	MHD_destroy_response(resp);
	return ret;
}

static enum MHD_Result
on_scrape(void *cls, struct MHD_Connection *conn, const char *url, const char *method,
		  const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	static int	first_call;
	char	   *body;

	(void) cls;
	(void) version;
	(void) upload_data;
	if (*con_cls == NULL)
	{
		*con_cls = &first_call;	/* answer once the whole request has arrived */
		return MHD_YES;
	}
	*upload_data_size = 0;
	if (strcmp(url, "/metrics") != 0)
		return answer(conn, MHD_HTTP_NOT_FOUND, strdup("not found\n"), "text/plain; charset=utf-8");
	if (strcmp(method, "GET") != 0 && strcmp(method, "HEAD") != 0)
		return answer(conn, MHD_HTTP_METHOD_NOT_ALLOWED, strdup("GET only\n"), "text/plain; charset=utf-8");
	body = metrics_render();
	if (body == NULL)
		return answer(conn, MHD_HTTP_INTERNAL_SERVER_ERROR, strdup("out of memory\n"), "text/plain; charset=utf-8");
	return answer(conn, MHD_HTTP_OK, body, "text/plain; version=0.0.4; charset=utf-8");
}

int
metrics_start(const struct metrics_sources *src)
{
	unsigned int flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_ERROR_LOG;
	const union MHD_DaemonInfo *info;
	struct log_line line;

	if (src)
		sources = *src;
	if (gw_cfg.metrics_listen == NULL || gw_cfg.metrics_listen[0] == '\0')
		return 0;
	if (gw_cfg.metrics_addr.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	enabled = true;
	/* one thread, a few connections: a scraper, not a crowd */
	listener = MHD_start_daemon(flags, 0, NULL, NULL, on_scrape, NULL,
								MHD_OPTION_SOCK_ADDR, (struct sockaddr *) &gw_cfg.metrics_addr,
								MHD_OPTION_CONNECTION_LIMIT, (unsigned int) 8,
								MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int) 10,
								MHD_OPTION_END);
	if (listener == NULL)
	{
		enabled = false;
		log_event(GW_LOG_ERROR, "listen_failed", "cannot listen on --metrics-listen %s", gw_cfg.metrics_listen);
		return -1;
	}
	info = MHD_get_daemon_info(listener, MHD_DAEMON_INFO_BIND_PORT);
	if (log_line_begin(&line, GW_LOG_INFO, "metrics_listening"))
	{
		log_line_str(&line, "address", gw_cfg.metrics_listen);
		log_line_int(&line, "port", info ? (long long) info->port : 0);
		log_line_str(&line, "path", "/metrics");
		log_line_end(&line);
	}
	return 0;
}

void
metrics_stop(void)
{
	if (listener)
		MHD_stop_daemon(listener);
	listener = NULL;
}
