#include "log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "json.h"

static int log_level = FSD_LOG_INFO;
static char log_volume[128];

static const char *const level_names[] = {"error", "warn", "info", "debug"};

int
fsd_log_level_from_name(const char *name)
{
	for (int i = 0; i <= FSD_LOG_DEBUG; i++)
		if (strcmp(name, level_names[i]) == 0)
			return i;
	return -1;
}

void
fsd_log_init(int level, const char *volume)
{
	log_level = level;
	snprintf(log_volume, sizeof log_volume, "%s", volume ? volume : "");
}

void
fsd_log(int level, const char *event, const char *fmt, ...)
{
	char msg[2048], stamp[40];
	struct fsd_buf line = {0};
	struct timespec now;
	struct tm tm;
	va_list ap;

	if (level > log_level)
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	msg[strcspn(msg, "\n")] = '\0'; /* libpq's messages end in a newline */
	clock_gettime(CLOCK_REALTIME, &now);
	gmtime_r(&now.tv_sec, &tm);
	strftime(stamp, sizeof stamp - 8, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(stamp + strlen(stamp), 8, ".%03dZ", (int) (now.tv_nsec / 1000000) % 1000);
	fsd_buf_add(&line, "{\"time\":");
	fsd_buf_json_str(&line, stamp);
	fsd_buf_add(&line, ",\"level\":");
	fsd_buf_json_str(&line, level_names[level]);
	fsd_buf_add(&line, ",\"volume\":");
	fsd_buf_json_str(&line, log_volume);
	fsd_buf_add(&line, ",\"event\":");
	fsd_buf_json_str(&line, event);
	fsd_buf_add(&line, ",\"msg\":");
	fsd_buf_json_str(&line, msg);
	fsd_buf_add(&line, "}\n");
	if (!line.oom && write(STDERR_FILENO, line.data, line.len) < 0)
		line.oom = true; /* nowhere left to say so */
	fsd_buf_free(&line);
}
