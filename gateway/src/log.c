/*
 * log.c
 *		JSON lines on stderr.
 *
 * Each line is built in the calling thread (json-c objects never cross
 * threads) and written with one write loop under log_lock, so lines from
 * concurrent requests never interleave.  The level and gateway id are set
 * once before threads start and only read afterwards.
 */
#include "log.h"

#include <errno.h>
#include <stdlib.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
static int	log_level = GW_LOG_INFO;	/* read-only once threads run */
static char log_gateway[64] = "";	/* read-only once threads run */

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int
log_level_from_name(const char *name)
{
	if (name == NULL)
		return -1;
	for (int i = 0; i < 4; i++)
		if (strcasecmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

void
log_init(int level, const char *gateway_id)
{
	log_level = level;
	snprintf(log_gateway, sizeof(log_gateway), "%s", gateway_id ? gateway_id : "");
}

bool
log_enabled(int level)
{
	return level <= log_level;
}

static void
write_line(const char *line, size_t len)
{
	pthread_mutex_lock(&log_lock);
	while (len > 0)
	{
		ssize_t		n = write(STDERR_FILENO, line, len);

		if (n < 0)
		{
			if (errno == EINTR)
				continue;
			break;
		}
		line += n;
		len -= (size_t) n;
	}
	pthread_mutex_unlock(&log_lock);
}

void
log_fields(int level, json_object *fields)
{
	json_object *line;
	struct timespec ts;
	struct tm	tm;
	char		when[40];
	char		stamp[64];
	const char *text;
	size_t		len;
	char	   *buf;

	if (!log_enabled(level) || fields == NULL)
	{
		json_object_put(fields);
		return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp, sizeof(stamp), "%s.%03dZ", when, (int) (ts.tv_nsec / 1000000) % 1000);

	/* fixed keys first, then the caller's fields */
	line = json_object_new_object();
	json_object_object_add(line, "time", json_object_new_string(stamp));
	json_object_object_add(line, "level", json_object_new_string(level_names[level]));
	json_object_object_add(line, "gateway", json_object_new_string(log_gateway));
	json_object_object_foreach(fields, key, val)
	{
		json_object_object_add(line, key, json_object_get(val));
	}
	json_object_put(fields);

	text = json_object_to_json_string_ext(line, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	len = strlen(text);
	buf = malloc(len + 1);
	if (buf)
	{
		memcpy(buf, text, len);
		buf[len] = '\n';
		write_line(buf, len + 1);
		free(buf);
	}
	json_object_put(line);
}

void
log_event(int level, const char *event, const char *fmt,...)
{
	char		msg[1024];
	va_list		ap;
	json_object *fields;

	if (!log_enabled(level))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	fields = json_object_new_object();
	json_object_object_add(fields, "event", json_object_new_string(event));
	json_object_object_add(fields, "msg", json_object_new_string(msg));
	log_fields(level, fields);
}
