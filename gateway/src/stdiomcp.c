/*
 * stdiomcp.c
 *		The stdio transport (stdiomcp.h).
 *
 * One thread: a line is read, answered and written before the next is
 * read, except while a legacy tools/call waits for the client's answer to
 * its server request: then the lines that arrive are answered as they come
 * (a ping, say) until the awaited response is read, --legacy-wait-ms
 * passes or input ends.  A line longer than --max-body is refused as a
 * parse error and skipped to its newline.
 */
#include "stdiomcp.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <json-c/json.h>

#include "clock.h"
#include "config.h"
#include "endpoint.h"
#include "jsonrpc.h"
#include "legacy.h"
#include "log.h"
#include "mcp.h"

#define MAX_NESTING	4			/* server requests waiting inside one another */

enum line_status
{
	LINE_OK,
	LINE_EOF,
	LINE_TIMEOUT,
	LINE_TOO_LONG
};

static struct
{
	char	   *buf;
	size_t		len;
	size_t		cap;
	bool		eof;
	bool		skipping;		/* inside a line that was too long */
	struct mcp_headers h;
	char	   *authorization;	/* "Bearer <token>" */
	struct legacy_local local;
	int			depth;
} io;

static void handle_line(const char *line, size_t len);
static void consume(size_t len);

/* the next line (without its newline) into *line; timeout_ms < 0 waits for ever */
static enum line_status
read_line(char **line, size_t *len, int timeout_ms)
{
	double		deadline = clock_mono() + timeout_ms / 1000.0;

	for (;;)
	{
		char	   *nl = io.len ? memchr(io.buf, '\n', io.len) : NULL;
		struct pollfd pfd = {STDIN_FILENO, POLLIN, 0};
		ssize_t		n;
		int			wait = timeout_ms < 0 ? -1 : (int) ((deadline - clock_mono()) * 1000.0);

		if (nl != NULL && io.skipping)
		{
			io.skipping = false;	/* the end of a line that was too long */
			consume((size_t) (nl - io.buf));
			continue;
		}
		if (nl != NULL)
		{
			*len = (size_t) (nl - io.buf);
			*line = io.buf;
			return LINE_OK;
		}
		if (io.len > (size_t) gw_cfg.max_body || (io.skipping && io.len > 0))
		{
			bool		first = !io.skipping;

			io.len = 0;
			io.skipping = true;
			if (first)
				return LINE_TOO_LONG;
			continue;
		}
		if (io.eof)
		{
			if (io.len == 0)
				return LINE_EOF;
			io.buf[io.len] = '\n';	/* a last line without a newline */
			io.len++;
			continue;
		}
		if (timeout_ms >= 0 && wait <= 0)
			return LINE_TIMEOUT;
		if (poll(&pfd, 1, wait) == 0)
			return LINE_TIMEOUT;
		if (io.cap - io.len < 65536 + 1)
		{
			size_t		cap = io.cap ? io.cap * 2 : 131072;
			char	   *grown = realloc(io.buf, cap);

			if (grown == NULL)
				return LINE_EOF;
			io.buf = grown, io.cap = cap;
		}
		n = read(STDIN_FILENO, io.buf + io.len, 65536);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			io.eof = true;
		else
			io.len += (size_t) n;
	}
}

/* drop the line read_line returned (len bytes and its newline) */
static void
consume(size_t len)
{
	size_t		used = len + 1 > io.len ? io.len : len + 1;

	memmove(io.buf, io.buf + used, io.len - used);
	io.len -= used;
}

/* one message and its newline on stdout, in one write where possible */
static void
write_message(const char *text)
{
	size_t		n = strlen(text);
	char	   *line = malloc(n + 2);

	if (line == NULL)
		return;
	memcpy(line, text, n);
	line[n] = '\n';
	line[n + 1] = '\0';
	for (size_t off = 0; off < n + 1;)
	{
		ssize_t		w = write(STDOUT_FILENO, line + off, n + 1 - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			break;
		off += (size_t) w;
	}
	free(line);
}

static void
write_json(json_object *o)
{
	char	   *text = jsonrpc_serialize(o);

	json_object_put(o);
	if (text)
		write_message(text);
	free(text);
}

/* the message is the response whose id is id */
static bool
is_response_to(json_object *msg, json_object *id)
{
	json_object *v;

	return json_object_is_type(msg, json_type_object) && !json_object_object_get_ex(msg, "method", NULL) &&
		json_object_object_get_ex(msg, "id", &v) &&
		strcmp(json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN),
			   json_object_to_json_string_ext(id, JSON_C_TO_STRING_PLAIN)) == 0;
}

/* one server request on stdout, then lines until its response (others are answered meanwhile) */
static enum legacy_wait
ask_one(json_object *request_id, json_object *request, json_object **answer, double deadline)
{
	*answer = NULL;
	if (io.depth >= MAX_NESTING)
	{
		json_object_put(request);
		return LEGACY_TIMEOUT;
	}
	write_json(request);
	io.depth++;
	for (;;)
	{
		char	   *line;
		size_t		len;
		int			left = (int) ((deadline - clock_mono()) * 1000.0);
		enum line_status st = left > 0 ? read_line(&line, &len, left) : LINE_TIMEOUT;
		json_object *msg = NULL;
		const char *why;

		if (st != LINE_OK && st != LINE_TOO_LONG)
		{
			io.depth--;
			return st == LINE_EOF ? LEGACY_GONE : LEGACY_TIMEOUT;
		}
		if (st == LINE_OK && jsonrpc_parse(line, len, GW_JSON_MAX_DEPTH, &msg, &why) == 0 &&
			is_response_to(msg, request_id))
		{
			consume(len);
			*answer = msg;
			io.depth--;
			return LEGACY_ANSWERED;
		}
		json_object_put(msg);
		if (st == LINE_TOO_LONG)
			handle_line(NULL, 0);
		else
		{
			/* copied: answering it may read further lines into io.buf */
			char	   *copy = strndup(line, len);

			consume(len);
			if (copy)
				handle_line(copy, len);
			free(copy);
		}
	}
}

/* the client's response -> what inputResponses holds for it: an error response is a cancel */
static json_object *
input_response(json_object *answer)
{
	json_object *result;

	if (json_object_object_get_ex(answer, "result", &result) && json_object_is_type(result, json_type_object))
		return json_object_get(result);
	result = json_object_new_object();
	json_object_object_add(result, "action", json_object_new_string("cancel"));
	return result;
}

/* "mcpn-" and 16 random hex digits: never one of the client's own ids by accident */
static json_object *
new_request_id(void)
{
	unsigned char b[8] = {0};
	char		text[24];

	if (getrandom(b, sizeof(b), 0) != (ssize_t) sizeof(b))
		log_event(GW_LOG_WARN, "legacy", "getrandom failed: request ids are not random");
	snprintf(text, sizeof(text), "mcpn-%02x%02x%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
	return json_object_new_string(text);
}

/* legacyask.c's asker: every input request in turn, then the retry with inputResponses */
static enum legacy_wait
ask(void *cls, struct legacy_job *job, char **outcome, struct db_error *err)
{
	double		deadline = clock_mono() + (double) gw_cfg.legacy_wait_ms / 1000.0;
	json_object *requests = NULL;
	json_object *responses = json_object_new_object();
	json_object *add;

	(void) cls;
	if (json_object_object_get_ex(job->asking, "inputRequests", &requests) &&
		json_object_is_type(requests, json_type_object))
	{
		json_object_object_foreach(requests, key, entry)
		{
			json_object *id = new_request_id();
			json_object *answer = NULL;
			enum legacy_wait w = ask_one(id, legacy_server_request(id, entry), &answer, deadline);

			json_object_put(id);
			if (w != LEGACY_ANSWERED)
			{
				json_object_put(responses);
				return w;
			}
			json_object_object_add(responses, key, input_response(answer));
			json_object_put(answer);
		}
	}
	add = json_object_new_object();
	json_object_object_add(add, "inputResponses", responses);
	legacy_retry(job, add, NULL, outcome, err);
	return LEGACY_ANSWERED;
}

static void
finish(void *cls, json_object *response)
{
	(void) cls;
	write_json(response);
}

static const struct legacy_asker stdio_asker = {ask, finish, finish, NULL};

/* an SSE reply (a modern result with notifications before it): each event's data, one line each */
static void
write_events(char *body)
{
	char	   *save = NULL;

	for (char *line = strtok_r(body, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strncmp(line, "data: ", 6) == 0)
			write_message(line + 6);
}

/*
 * A reply body that is not JSON-RPC (the OAuth error object of an HTTP
 * 401) becomes a JSON-RPC error: stdout carries nothing else.
 */
static void
write_reply(struct mcp_reply *r, json_object *id)
{
	json_object *body;
	json_object *description = NULL;

	if (r->body == NULL)
		return;
	if (r->content_type && strcmp(r->content_type, "text/event-stream") == 0)
	{
		write_events(r->body);
		return;
	}
	body = json_tokener_parse(r->body);
	if (body && json_object_object_get_ex(body, "jsonrpc", NULL))
		write_message(r->body);
	else
	{
		json_object_object_get_ex(body, "error_description", &description);
		write_json(jsonrpc_error(id, -32001, description ? json_object_get_string(description)
								 : "Unauthorized", NULL));
	}
	json_object_put(body);
}

/* one line: a message of either era, answered on stdout (NULL line: too long) */
static void
handle_line(const char *line, size_t len)
{
	json_object *root = NULL;
	json_object *id = NULL;
	const char *why;
	struct mcp_reply r;

	if (line == NULL || jsonrpc_parse(line, len, GW_JSON_MAX_DEPTH, &root, &why) != 0)
	{
		mcp_process(line ? line : "", line ? len : 0, &io.h, true, &r);
		write_reply(&r, NULL);
		free(r.body);
		return;
	}
	if (json_object_is_type(root, json_type_object) && !json_object_object_get_ex(root, "method", NULL))
	{
		log_event(GW_LOG_WARN, "stdio", "a JSON-RPC response nobody waits for was dropped");
		json_object_put(root);
		return;
	}
	if (json_object_is_type(root, json_type_object) && json_object_object_get_ex(root, "id", &id))
		id = json_object_get(id);
	endpoint_route(root, &io.h, true, &io.local, &r);
	if (!r.log.notification)
		write_reply(&r, id);
	free(r.body);
	json_object_put(id);
}

int
stdio_run(void)
{
	const char *token = getenv("MCP_NOTES_TOKEN");
	size_t		n;

	if (gw_cfg.insecure_dev_principal == NULL && (token == NULL || token[0] == '\0'))
	{
		log_event(GW_LOG_ERROR, "config_error", "--stdio needs the bearer token in MCP_NOTES_TOKEN");
		return 2;
	}
	if (token)
	{
		n = strlen(token) + 8;
		io.authorization = malloc(n);
		if (io.authorization == NULL)
			return 1;
		snprintf(io.authorization, n, "Bearer %s", token);
		io.h.authorization = io.authorization;
		io.h.n_authorization = 1;
	}
	io.h.stdio = true;
	io.local.asker = &stdio_asker;
	log_event(GW_LOG_INFO, "stdio", "serving one client on stdin/stdout");
	for (;;)
	{
		char	   *line;
		size_t		len;
		enum line_status st = read_line(&line, &len, -1);

		if (st == LINE_EOF)
			break;
		if (st == LINE_TOO_LONG)
		{
			handle_line(NULL, 0);
			continue;
		}
		line = strndup(line, len);
		consume(len);
		if (line && strspn(line, " \t\r") != len)
			handle_line(line, len);
		free(line);
	}
	log_event(GW_LOG_INFO, "stdio", "end of input: exiting");
	if (io.authorization)
		memset(io.authorization, 0, strlen(io.authorization));
	free(io.authorization);
	free(io.buf);
	json_object_put(io.local.caps);
	json_object_put(io.local.info);
	return 0;
}
