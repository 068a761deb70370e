/*
 * loadgen.c
 *		Closed-loop HTTP/1.1 keep-alive load generator for mcp_notes.
 *
 * One thread, one epoll loop, C connections, each with exactly one request
 * in flight (closed loop: a connection sends its next request when the
 * previous answer has arrived).  Why a small C program rather than wrk+Lua or
 * Node: a notes_delete flow is two dependent requests (step 2 carries the
 * requestState and a note id taken from step 1), and wrk's Lua state is per
 * thread, not per connection, so it cannot run a per-connection two-step
 * flow; Node would spend a large part of one of the two cores on itself.  One
 * C thread leaves the other core to the server side, and it is the same
 * client for the gateway, HAProxy and nginx.
 *
 * Every answer is checked; a wrong answer is an error, never a success:
 *   flow      step 1 must be input_required with exactly one candidate
 *             (titles are unique) and a requestState; step 2 must be complete
 *             with structuredContent {deleted: true, noteId: <that id>}.
 *   step1     step 1 only (titles from --titles-file, cycled); same checks.
 *   tools     tools/list: 200 and a tools array naming notes_delete.
 *   discover  server/discover: 200 and supportedVersions.
 *   get       GET --path (nginx static copy of the tools/list answer): 200
 *             and the body names notes_delete.
 *   hold      open every connection, one tools/list each, then keep them
 *             open for --hold seconds (prints "held" when all are open).
 *
 * Output: one JSON object on stdout (counts, rates, latency percentiles).
 *
 *   loadgen --port P --mode flow --conns 8 --duration 5 --warmup 1 \
 *           --token T --workspace file:///bench/flow --prefix 'r1' --notes 4000
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <math.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

enum mode
{
	M_FLOW, M_STEP1, M_TOOLS, M_DISCOVER, M_GET, M_HOLD
};

struct samples
{
	double	   *v;
	size_t		n;
	size_t		cap;
};

struct conn
{
	int			fd;
	int			idx;
	bool		connected;
	bool		finished;
	int			step;			/* flow: 1 or 2 */
	long		k;				/* flow: note number, 1..notes */
	long		cycle;			/* step1: index into titles */
	char	   *out;
	size_t		outlen;
	size_t		outoff;
	char	   *in;
	size_t		inlen;
	size_t		incap;
	double		t_send;
	double		t_flow;
	char	   *state;			/* flow: requestState of step 1 */
	char		note[96];		/* flow: the note id offered by step 1 */
	long		rpc_id;
};

static struct
{
	const char *host;
	int			port;
	enum mode	mode;
	int			conns;
	double		duration;
	double		warmup;
	long		max_requests;
	double		hold;
	const char *token;
	const char *workspace;
	const char *prefix;
	long		notes;
	const char *path;
	char	  **titles;
	long		ntitles;
} opt = {.host = "127.0.0.1", .conns = 1, .duration = 5, .path = "/mcp", .prefix = "bench", .notes = 1000};

static int	ep;
static double t0;
static double t_measure;		/* samples count from here */
static double t_end;
static struct samples lat_step1,
			lat_step2,
			lat_req,
			lat_flow;
static long n_req,
			n_flows,
			n_flows_total,
			n_errors,
			n_reconnects,
			n_exhausted,
			n_total_req;
static char error_samples[5][300];
static int	n_error_samples;

static double
now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
die(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	fprintf(stderr, "loadgen: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(2);
}

static void
push(struct samples *s, double v)
{
	if (s->n == s->cap)
	{
		s->cap = s->cap ? s->cap * 2 : 65536;
		s->v = realloc(s->v, s->cap * sizeof(double));
		if (!s->v)
			die("out of memory");
	}
	s->v[s->n++] = v;
}

static void
record_error(struct conn *c, const char *fmt,...)
{
	va_list		ap;

	if (now() >= t_measure)
		n_errors++;
	if (n_error_samples < 5)
	{
		int			m;

		va_start(ap, fmt);
		m = snprintf(error_samples[n_error_samples], 300, "conn %d: ", c->idx);
		vsnprintf(error_samples[n_error_samples] + m, (size_t) (300 - m), fmt, ap);
		va_end(ap);
		for (char *p = error_samples[n_error_samples]; *p; p++)
			if (*p == '"' || *p == '\\' || (unsigned char) *p < 0x20)
				*p = '\'';
		n_error_samples++;
	}
}

/* ---------- JSON string escaping for request bodies ---------- */

static void
append(char **buf, size_t *len, size_t *cap, const char *s, size_t n)
{
	if (*len + n + 1 > *cap)
	{
		while (*len + n + 1 > *cap)
			*cap = *cap ? *cap * 2 : 1024;
		*buf = realloc(*buf, *cap);
		if (!*buf)
			die("out of memory");
	}
	memcpy(*buf + *len, s, n);
	*len += n;
	(*buf)[*len] = '\0';
}

static void
appends(char **buf, size_t *len, size_t *cap, const char *s)
{
	append(buf, len, cap, s, strlen(s));
}

static void
append_json_string(char **buf, size_t *len, size_t *cap, const char *s)
{
	appends(buf, len, cap, "\"");
	for (const char *p = s; *p; p++)
	{
		char		esc[8];

		if (*p == '"' || *p == '\\')
		{
			esc[0] = '\\';
			esc[1] = *p;
			append(buf, len, cap, esc, 2);
		}
		else if ((unsigned char) *p < 0x20)
		{
			snprintf(esc, sizeof(esc), "\\u%04x", (unsigned char) *p);
			appends(buf, len, cap, esc);
		}
		else
			append(buf, len, cap, p, 1);
	}
	appends(buf, len, cap, "\"");
}

/* ---------- requests ---------- */

static const char *META =
"\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\","
"\"io.modelcontextprotocol/clientCapabilities\":{\"elicitation\":{}},"
"\"io.modelcontextprotocol/clientInfo\":{\"name\":\"mcp-notes-bench\",\"version\":\"1.0\"}}";

static void
build_request(struct conn *c)
{
	char	   *body = NULL;
	size_t		blen = 0,
				bcap = 0;
	char		head[1024];
	const char *method = NULL;
	const char *name = NULL;
	char		num[64];
	int			hl;

	c->rpc_id++;
	free(c->out);
	c->out = NULL;
	if (opt.mode == M_GET)
	{
		hl = snprintf(head, sizeof(head), "GET %s HTTP/1.1\r\nHost: %s:%d\r\nAccept: application/json\r\n"
					  "Authorization: Bearer %s\r\n\r\n", opt.path, opt.host, opt.port,
					  opt.token ? opt.token : "x");
		c->out = strndup(head, (size_t) hl);
		c->outlen = (size_t) hl;
		c->outoff = 0;
		return;
	}
	snprintf(num, sizeof(num), "%ld", c->rpc_id);
	appends(&body, &blen, &bcap, "{\"jsonrpc\":\"2.0\",\"id\":");
	appends(&body, &blen, &bcap, num);
	if (opt.mode == M_TOOLS || opt.mode == M_HOLD)
	{
		method = "tools/list";
		appends(&body, &blen, &bcap, ",\"method\":\"tools/list\",\"params\":{");
		appends(&body, &blen, &bcap, META);
		appends(&body, &blen, &bcap, "}}");
	}
	else if (opt.mode == M_DISCOVER)
	{
		method = "server/discover";
		appends(&body, &blen, &bcap, ",\"method\":\"server/discover\",\"params\":{");
		appends(&body, &blen, &bcap, META);
		appends(&body, &blen, &bcap, "}}");
	}
	else
	{
		char		title[512];

		method = "tools/call";
		name = "notes_delete";
		if (opt.mode == M_FLOW)
			snprintf(title, sizeof(title), "%s c%d n%ld|", opt.prefix, c->idx, c->k);
		else
			snprintf(title, sizeof(title), "%s", opt.titles[(c->cycle++ + c->idx) % opt.ntitles]);
		appends(&body, &blen, &bcap, ",\"method\":\"tools/call\",\"params\":{\"name\":\"notes_delete\","
				"\"arguments\":{\"workspaceUri\":");
		append_json_string(&body, &blen, &bcap, opt.workspace);
		appends(&body, &blen, &bcap, ",\"title\":");
		append_json_string(&body, &blen, &bcap, title);
		appends(&body, &blen, &bcap, "},");
		if (opt.mode == M_FLOW && c->step == 2)
		{
			appends(&body, &blen, &bcap, "\"inputResponses\":{\"delete_choice\":{\"action\":\"accept\","
					"\"content\":{\"note_id\":");
			append_json_string(&body, &blen, &bcap, c->note);
			appends(&body, &blen, &bcap, ",\"confirm\":true}}},\"requestState\":");
			append_json_string(&body, &blen, &bcap, c->state);
			appends(&body, &blen, &bcap, ",");
		}
		appends(&body, &blen, &bcap, META);
		appends(&body, &blen, &bcap, "}}");
	}
	hl = snprintf(head, sizeof(head),
				  "POST %s HTTP/1.1\r\nHost: %s:%d\r\nContent-Type: application/json\r\n"
				  "Accept: application/json, text/event-stream\r\nAuthorization: Bearer %s\r\n"
				  "MCP-Protocol-Version: 2026-07-28\r\nMcp-Method: %s\r\n%s%s%s"
				  "Content-Length: %zu\r\n\r\n",
				  opt.path, opt.host, opt.port, opt.token, method,
				  name ? "Mcp-Name: " : "", name ? name : "", name ? "\r\n" : "", blen);
	c->out = malloc((size_t) hl + blen + 1);
	if (!c->out)
		die("out of memory");
	memcpy(c->out, head, (size_t) hl);
	memcpy(c->out + hl, body, blen);
	c->outlen = (size_t) hl + blen;
	c->outoff = 0;
	free(body);
}

/* ---------- connections ---------- */

static void
conn_open(struct conn *c)
{
	struct sockaddr_in sa = {0};
	struct epoll_event ev = {0};
	int			one = 1;

	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		die("socket: %s", strerror(errno));
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	sa.sin_family = AF_INET;
	sa.sin_port = htons((uint16_t) opt.port);
	if (inet_pton(AF_INET, opt.host, &sa.sin_addr) != 1)
		die("bad host %s", opt.host);
	if (connect(c->fd, (struct sockaddr *) &sa, sizeof(sa)) < 0 && errno != EINPROGRESS)
		die("connect: %s", strerror(errno));
	c->connected = false;
	c->inlen = 0;
	ev.events = EPOLLOUT | EPOLLIN | EPOLLRDHUP;
	ev.data.ptr = c;
	if (epoll_ctl(ep, EPOLL_CTL_ADD, c->fd, &ev) < 0)
		die("epoll_ctl: %s", strerror(errno));
}

static void
conn_close(struct conn *c)
{
	if (c->fd >= 0)
	{
		epoll_ctl(ep, EPOLL_CTL_DEL, c->fd, NULL);
		close(c->fd);
	}
	c->fd = -1;
}

static void
want(struct conn *c, uint32_t events)
{
	struct epoll_event ev = {.events = events | EPOLLRDHUP, .data.ptr = c};

	epoll_ctl(ep, EPOLL_CTL_MOD, c->fd, &ev);
}

static void
start_request(struct conn *c)
{
	build_request(c);
	c->t_send = now();
	want(c, EPOLLOUT | EPOLLIN);
}

static bool
stop_now(void)
{
	if (opt.max_requests > 0)
		return n_total_req >= opt.max_requests;
	return now() >= t_end;
}

/* ---------- checks ---------- */

static json_object *
jpath(json_object *o, const char *const *keys)
{
	for (; *keys && o; keys++)
	{
		json_object *v = NULL;

		if (json_object_is_type(o, json_type_array))
		{
			size_t		i = (size_t) atol(*keys);

			v = i < json_object_array_length(o) ? json_object_array_get_idx(o, i) : NULL;
		}
		else if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, *keys, &v))
			return NULL;
		o = v;
	}
	return o;
}

static bool
is_str(json_object *o, const char *s)
{
	return o && json_object_is_type(o, json_type_string) && strcmp(json_object_get_string(o), s) == 0;
}

/* Returns true when the answer to a step-1 call is the expected one-candidate form. */
static bool
check_step1(struct conn *c, json_object *root)
{
	static const char *const rt[] = {"result", "resultType", NULL};
	static const char *const rs[] = {"result", "requestState", NULL};
	static const char *const oneof[] = {"result", "inputRequests", "delete_choice", "params",
	"requestedSchema", "properties", "note_id", "oneOf", NULL};
	json_object *o = jpath(root, oneof);
	json_object *st = jpath(root, rs);
	json_object *id;

	if (!is_str(jpath(root, rt), "input_required"))
	{
		record_error(c, "step 1: not input_required: %.200s", json_object_to_json_string(root));
		return false;
	}
	if (!o || !json_object_is_type(o, json_type_array) || json_object_array_length(o) != 1)
	{
		record_error(c, "step 1: expected exactly one candidate, got %zu",
					 o && json_object_is_type(o, json_type_array) ? json_object_array_length(o) : 0);
		return false;
	}
	id = NULL;
	json_object_object_get_ex(json_object_array_get_idx(o, 0), "const", &id);
	if (!id || !json_object_is_type(id, json_type_string) || json_object_get_string_len(id) >= (int) sizeof(c->note) ||
		!st || !json_object_is_type(st, json_type_string))
	{
		record_error(c, "step 1: no note id or requestState");
		return false;
	}
	if (opt.mode == M_FLOW)
	{
		snprintf(c->note, sizeof(c->note), "%s", json_object_get_string(id));
		free(c->state);
		c->state = strdup(json_object_get_string(st));
	}
	return true;
}

static bool
check_step2(struct conn *c, json_object *root)
{
	static const char *const rt[] = {"result", "resultType", NULL};
	static const char *const del[] = {"result", "structuredContent", "deleted", NULL};
	static const char *const nid[] = {"result", "structuredContent", "noteId", NULL};
	json_object *d = jpath(root, del);

	if (!is_str(jpath(root, rt), "complete") || !d || !json_object_is_type(d, json_type_boolean) ||
		!json_object_get_boolean(d) || !is_str(jpath(root, nid), c->note))
	{
		record_error(c, "step 2: not deleted: %.200s", json_object_to_json_string(root));
		return false;
	}
	return true;
}

/*
 * A whole response is in c->in: check it and decide what comes next.
 * Returns false when the connection must be closed (server said close).
 */
static void
on_response(struct conn *c, int status, const char *body, size_t blen)
{
	double		t = now();
	double		lat = (t - c->t_send) * 1e3;
	bool		measuring = c->t_send >= t_measure;
	json_object *root = NULL;
	bool		ok = true;

	n_total_req++;
	if (measuring)
	{
		n_req++;
		push(&lat_req, lat);
	}
	if (status != 200)
	{
		record_error(c, "HTTP %d: %.200s", status, body);
		ok = false;
	}
	else if (opt.mode == M_GET || opt.mode == M_TOOLS || opt.mode == M_HOLD)
		ok = memmem(body, blen, "\"name\":\"notes_delete\"", 21) != NULL &&
			memmem(body, blen, "\"tools\":[", 9) != NULL;
	else if (opt.mode == M_DISCOVER)
		ok = memmem(body, blen, "\"supportedVersions\":[\"2026-07-28\"]", 34) != NULL;
	else
	{
		root = json_tokener_parse(body);
		if (!root)
		{
			record_error(c, "unparsable JSON");
			ok = false;
		}
		else if (opt.mode == M_STEP1)
		{
			ok = check_step1(c, root);
			if (ok && measuring)
				push(&lat_step1, lat);
		}
		else if (c->step == 1)
		{
			ok = check_step1(c, root);
			if (ok)
			{
				if (measuring)
					push(&lat_step1, lat);
				c->step = 2;
			}
		}
		else
		{
			ok = check_step2(c, root);
			if (ok)
				n_flows_total++;
			if (ok && c->t_flow >= t_measure)
			{
				push(&lat_step2, lat);
				push(&lat_flow, (t - c->t_flow) * 1e3);
				n_flows++;
			}
			c->step = 1;
			c->k++;
		}
		json_object_put(root);
	}
	if (!ok && (opt.mode == M_GET || opt.mode == M_TOOLS || opt.mode == M_DISCOVER || opt.mode == M_HOLD) && status == 200)
		record_error(c, "unexpected body: %.200s", body);
	if (!ok && opt.mode == M_FLOW)
	{
		/* a failed step: give up on this note, go on with the next */
		c->step = 1;
		c->k++;
	}
}

/* Parse what is buffered; returns bytes consumed by a complete response, 0 if incomplete, -1 bad. */
static long
parse_response(struct conn *c, int *status, const char **body, size_t *blen, bool *close_after)
{
	char	   *hend = memmem(c->in, c->inlen, "\r\n\r\n", 4);
	long		cl = -1;
	char	   *p;

	if (!hend)
		return 0;
	*hend = '\0';
	if (sscanf(c->in, "HTTP/1.%*d %d", status) != 1)
		return -1;
	*close_after = false;
	for (p = strstr(c->in, "\r\n"); p && p < hend; p = strstr(p + 2, "\r\n"))
	{
		char	   *line = p + 2;
		char	   *eol = strstr(line, "\r\n");
		char		save = 0;

		if (eol)
		{
			save = *eol;
			*eol = '\0';
		}
		if (strncasecmp(line, "Content-Length:", 15) == 0)
			cl = atol(line + 15);
		else if (strncasecmp(line, "Connection:", 11) == 0 && strcasestr(line + 11, "close"))
			*close_after = true;
		else if (strncasecmp(line, "Transfer-Encoding:", 18) == 0)
			cl = -2;			/* chunked: not used by either server for these answers */
		if (eol)
			*eol = save;
	}
	*hend = '\r';
	if (cl < 0)
		return -1;
	if ((size_t) (hend + 4 - c->in) + (size_t) cl > c->inlen)
		return 0;
	*body = hend + 4;
	*blen = (size_t) cl;
	return (long) (hend + 4 - c->in) + cl;
}

static void
next_or_finish(struct conn *c)
{
	if (opt.mode == M_HOLD)
	{
		c->finished = true;
		want(c, EPOLLIN);
		return;
	}
	if (stop_now())
	{
		c->finished = true;
		conn_close(c);
		return;
	}
	if (opt.mode == M_FLOW && c->step == 1)
	{
		if (c->k > opt.notes)
		{
			n_exhausted++;
			c->finished = true;
			conn_close(c);
			return;
		}
		c->t_flow = now();
	}
	start_request(c);
}

static void
on_event(struct conn *c, uint32_t events)
{
	if (!c->connected && (events & (EPOLLOUT | EPOLLERR | EPOLLHUP)))
	{
		int			err = 0;
		socklen_t	len = sizeof(err);

		getsockopt(c->fd, SOL_SOCKET, SO_ERROR, &err, &len);
		if (err != 0)
			die("connect to %s:%d: %s", opt.host, opt.port, strerror(err));
		c->connected = true;
	}
	if (c->finished && opt.mode != M_HOLD)
		return;
	if ((events & EPOLLOUT) && c->outoff < c->outlen)
	{
		while (c->outoff < c->outlen)
		{
			ssize_t		n = send(c->fd, c->out + c->outoff, c->outlen - c->outoff, MSG_NOSIGNAL);

			if (n < 0)
			{
				if (errno == EAGAIN)
					break;
				record_error(c, "send: %s", strerror(errno));
				goto reconnect;
			}
			c->outoff += (size_t) n;
		}
		if (c->outoff == c->outlen)
			want(c, EPOLLIN);
	}
	if (events & (EPOLLIN | EPOLLRDHUP | EPOLLHUP | EPOLLERR))
	{
		for (;;)
		{
			ssize_t		n;

			if (c->incap - c->inlen < 65536)
			{
				c->incap = c->incap ? c->incap * 2 : 131072;
				c->in = realloc(c->in, c->incap);
				if (!c->in)
					die("out of memory");
			}
			n = recv(c->fd, c->in + c->inlen, c->incap - c->inlen - 1, 0);
			if (n < 0)
			{
				if (errno == EAGAIN)
					break;
				if (!c->finished)
					record_error(c, "recv: %s", strerror(errno));
				goto reconnect;
			}
			if (n == 0)
			{
				if (c->finished)
				{
					conn_close(c);
					return;
				}
				if (c->outoff > 0 || c->inlen > 0)
					record_error(c, "connection closed by the server mid-request");
				goto reconnect;
			}
			c->inlen += (size_t) n;
			c->in[c->inlen] = '\0';
		}
		for (;;)
		{
			int			status;
			const char *body;
			size_t		blen;
			bool		close_after;
			long		used = c->inlen ? parse_response(c, &status, &body, &blen, &close_after) : 0;

			if (used < 0)
			{
				record_error(c, "malformed HTTP response");
				goto reconnect;
			}
			if (used == 0)
				break;
			{
				char		save = body[blen];

				((char *) body)[blen] = '\0';
				on_response(c, status, body, blen);
				((char *) body)[blen] = save;
			}
			memmove(c->in, c->in + used, c->inlen - (size_t) used);
			c->inlen -= (size_t) used;
			if (close_after)
			{
				n_reconnects++;
				conn_close(c);
				conn_open(c);
				c->outoff = c->outlen;	/* nothing pending until the next request */
			}
			next_or_finish(c);
			break;
		}
	}
	return;

reconnect:
	n_reconnects++;
	conn_close(c);
	if (stop_now())
	{
		c->finished = true;
		return;
	}
	conn_open(c);
	/* resend the same request on the new connection */
	c->outoff = 0;
	c->t_send = now();
}

static void
print_stats(const char *name, struct samples *s, bool last)
{
	double		sum = 0;

	if (s->n == 0)
	{
		printf("\"%s\":null%s", name, last ? "" : ",");
		return;
	}
	for (size_t i = 0; i < s->n; i++)
		sum += s->v[i];
	{
		int			cmp(const void *a, const void *b);

		qsort(s->v, s->n, sizeof(double), cmp);
	}
#define PCT(p) s->v[(size_t) fmin((double) s->n - 1, floor((p) * (double) s->n))]
	printf("\"%s\":{\"n\":%zu,\"mean_ms\":%.4f,\"p50_ms\":%.4f,\"p90_ms\":%.4f,\"p99_ms\":%.4f,\"max_ms\":%.4f}%s",
		   name, s->n, sum / (double) s->n, PCT(0.50), PCT(0.90), PCT(0.99), s->v[s->n - 1], last ? "" : ",");
#undef PCT
}

int
cmp(const void *a, const void *b)
{
	double		x = *(const double *) a,
				y = *(const double *) b;

	return x < y ? -1 : x > y;
}

static void
load_titles(const char *file)
{
	FILE	   *f = fopen(file, "r");
	char		line[1024];
	long		cap = 0;

	if (!f)
		die("cannot open %s", file);
	while (fgets(line, sizeof(line), f))
	{
		line[strcspn(line, "\n")] = '\0';
		if (!line[0])
			continue;
		if (opt.ntitles == cap)
		{
			cap = cap ? cap * 2 : 256;
			opt.titles = realloc(opt.titles, (size_t) cap * sizeof(char *));
		}
		opt.titles[opt.ntitles++] = strdup(line);
	}
	fclose(f);
	if (opt.ntitles == 0)
		die("no titles in %s", file);
}

int
main(int argc, char **argv)
{
	static const struct option longopts[] = {
		{"host", 1, 0, 'h'}, {"port", 1, 0, 'p'}, {"mode", 1, 0, 'm'}, {"conns", 1, 0, 'c'},
		{"duration", 1, 0, 'd'}, {"warmup", 1, 0, 'w'}, {"requests", 1, 0, 'n'}, {"hold", 1, 0, 'H'},
		{"token", 1, 0, 't'}, {"workspace", 1, 0, 'W'}, {"prefix", 1, 0, 'P'}, {"notes", 1, 0, 'N'},
		{"path", 1, 0, 'u'}, {"titles-file", 1, 0, 'T'}, {0, 0, 0, 0}
	};
	struct conn *cs;
	struct epoll_event evs[256];
	int			ch;
	double		t_done;
	long		open_conns;

	while ((ch = getopt_long(argc, argv, "", longopts, NULL)) != -1)
	{
		switch (ch)
		{
			case 'h': opt.host = optarg; break;
			case 'p': opt.port = atoi(optarg); break;
			case 'c': opt.conns = atoi(optarg); break;
			case 'd': opt.duration = atof(optarg); break;
			case 'w': opt.warmup = atof(optarg); break;
			case 'n': opt.max_requests = atol(optarg); break;
			case 'H': opt.hold = atof(optarg); break;
			case 't': opt.token = optarg; break;
			case 'W': opt.workspace = optarg; break;
			case 'P': opt.prefix = optarg; break;
			case 'N': opt.notes = atol(optarg); break;
			case 'u': opt.path = optarg; break;
			case 'T': load_titles(optarg); break;
			case 'm':
				if (!strcmp(optarg, "flow")) opt.mode = M_FLOW;
				else if (!strcmp(optarg, "step1")) opt.mode = M_STEP1;
				else if (!strcmp(optarg, "tools")) opt.mode = M_TOOLS;
				else if (!strcmp(optarg, "discover")) opt.mode = M_DISCOVER;
				else if (!strcmp(optarg, "get")) opt.mode = M_GET;
				else if (!strcmp(optarg, "hold")) opt.mode = M_HOLD;
				else die("unknown mode %s", optarg);
				break;
			default:
				die("usage: see the comment at the top of bench/loadgen.c");
		}
	}
	if (opt.port <= 0 || opt.conns <= 0)
		die("--port and --conns are required");
	if (opt.mode != M_GET && !opt.token)
		die("--token is required");
	if ((opt.mode == M_FLOW || opt.mode == M_STEP1) && !opt.workspace)
		die("--workspace is required");
	if (opt.mode == M_STEP1 && opt.ntitles == 0)
		die("--titles-file is required for step1");
	signal(SIGPIPE, SIG_IGN);

	ep = epoll_create1(EPOLL_CLOEXEC);
	cs = calloc((size_t) opt.conns, sizeof(*cs));
	t0 = now();
	t_measure = t0 + opt.warmup;
	t_end = t_measure + opt.duration;
	for (int i = 0; i < opt.conns; i++)
	{
		cs[i].idx = i;
		cs[i].step = 1;
		cs[i].k = 1;
		conn_open(&cs[i]);
		cs[i].t_flow = now();
		start_request(&cs[i]);
	}
	open_conns = opt.conns;
	for (;;)
	{
		int			n;
		long		live = 0;

		for (int i = 0; i < opt.conns; i++)
			if (!cs[i].finished)
				live++;
		if (live == 0)
			break;
		n = epoll_wait(ep, evs, 256, 1000);
		if (n < 0 && errno != EINTR)
			die("epoll_wait: %s", strerror(errno));
		for (int i = 0; i < n; i++)
			on_event(evs[i].data.ptr, evs[i].events);
		/* an idle deadline check: connections waiting on a slow server end at t_end */
		if (opt.max_requests <= 0 && opt.mode != M_HOLD && now() > t_end + 30)
		{
			fprintf(stderr, "loadgen: answers still missing 30 s after the end; giving up\n");
			for (int i = 0; i < opt.conns; i++)
				if (!cs[i].finished)
				{
					record_error(&cs[i], "no answer 30 s after the end of the run");
					cs[i].finished = true;
					conn_close(&cs[i]);
				}
		}
	}
	t_done = now();
	if (opt.mode == M_HOLD)
	{
		printf("held %ld\n", open_conns);
		fflush(stdout);
		{
			struct timespec ts = {(time_t) opt.hold, (long) ((opt.hold - floor(opt.hold)) * 1e9)};

			nanosleep(&ts, NULL);
		}
		for (int i = 0; i < opt.conns; i++)
			conn_close(&cs[i]);
	}
	{
		double		span = opt.max_requests > 0 ? t_done - t0 : fmin(t_done, t_end) - t_measure;

		if (span <= 0)
			span = 1e-9;
		printf("{\"mode\":\"%s\",\"conns\":%d,\"seconds\":%.3f,\"requests\":%ld,\"total_requests\":%ld,"
			   "\"requests_per_s\":%.2f,\"flows\":%ld,\"total_flows\":%ld,\"flows_per_s\":%.2f,\"errors\":%ld,"
			   "\"reconnects\":%ld,\"exhausted_conns\":%ld,",
			   argv[0] ? (opt.mode == M_FLOW ? "flow" : opt.mode == M_STEP1 ? "step1" : opt.mode == M_TOOLS ? "tools"
						  : opt.mode == M_DISCOVER ? "discover" : opt.mode == M_GET ? "get" : "hold") : "",
			   opt.conns, span, n_req, n_total_req, (double) n_req / span, n_flows, n_flows_total, (double) n_flows / span,
			   n_errors, n_reconnects, n_exhausted);
		printf("\"error_samples\":[");
		for (int i = 0; i < n_error_samples; i++)
			printf("%s\"%s\"", i ? "," : "", error_samples[i]);
		printf("],");
		print_stats("latency", &lat_req, false);
		print_stats("step1", &lat_step1, false);
		print_stats("step2", &lat_step2, false);
		print_stats("flow", &lat_flow, true);
		printf("}\n");
	}
	return 0;
}
