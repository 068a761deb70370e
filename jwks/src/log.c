/*
 * log.c
 *		JSON lines on stderr, one write() each, like the gateway's.
 */
#include "jwks.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define LINE_MAX_BYTES 4000

static const char *const levels[] = {"error", "warn", "info"};

/* s as a JSON string into out (at most room bytes, cut short rather than overflowing) */
static size_t
put_string(char *out, size_t room, const char *s)
{
	size_t		n = 0;

	if (room < 3)
		return 0;
	out[n++] = '"';
	for (; s && *s && n + 8 < room; s++)
	{
		unsigned char c = (unsigned char) *s;

		if (c == '"' || c == '\\')
		{
			out[n++] = '\\';
			out[n++] = (char) c;
		}
		else if (c < 0x20 || c == 0x7f)
			n += (size_t) snprintf(out + n, room - n, "\\u%04x", c);
		else
			out[n++] = (char) c;
	}
	out[n++] = '"';
	return n;
}

void
jlog(int level, const char *event, ...)
{
	char		line[LINE_MAX_BYTES];
	char		ts[40];
	time_t		now = time(NULL);
	struct tm	tm;
	size_t		n;
	va_list		ap;
	const char *key;

	gmtime_r(&now, &tm);
	strftime(ts, sizeof(ts), "%Y-%m-%dT%H:%M:%SZ", &tm);
	n = (size_t) snprintf(line, sizeof(line), "{\"ts\":\"%s\",\"level\":\"%s\",\"program\":\"mcp-notes-jwks\",\"event\":",
						  ts, levels[level < 0 ? 0 : level > 2 ? 2 : level]);
	n += put_string(line + n, sizeof(line) - n - 4, event);
	va_start(ap, event);
	while ((key = va_arg(ap, const char *)) != NULL && n + 16 < sizeof(line))
	{
		const char *value = va_arg(ap, const char *);

		line[n++] = ',';
		n += put_string(line + n, sizeof(line) - n - 4, key);
		line[n++] = ':';
		n += put_string(line + n, sizeof(line) - n - 4, value ? value : "");
	}
	va_end(ap);
	line[n++] = '}';
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, n) < 0)
		return;					/* nowhere else to say it */
}
