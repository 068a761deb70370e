/*
 * log.h
 *		One JSON object per line on stderr, each written by one write().
 *
 * Never pass a bearer token, a requestState or a note body to these functions.
 */
#ifndef GW_LOG_H
#define GW_LOG_H

#include <stdbool.h>
#include <stddef.h>

enum gw_log_level
{
	GW_LOG_ERROR = 0,
	GW_LOG_WARN,
	GW_LOG_INFO,
	GW_LOG_DEBUG
};

/* -1 when the name is unknown */
extern int	log_level_from_name(const char *name);
extern void log_init(int level, const char *gateway_id);
extern bool log_enabled(int level);

/* {"time","level","gateway","event","msg"} */
extern void log_event(int level, const char *event, const char *fmt,...)
			__attribute__((format(printf, 3, 4)));

/*
 * A log line built in place, for hot paths (the per-request line): no json-c
 * objects and no malloc.  log_line_begin() writes time, level, gateway and
 * event and returns false when the level is off (the other calls are then
 * no-ops); each log_line_* call appends one field; log_line_end() writes the
 * line.  Strings are escaped as JSON, with invalid UTF-8 shown as U+FFFD.
 *
 * A line never exceeds LOG_LINE_MAX: a string that does not fit is cut at a
 * character boundary, any other field that does not fit is dropped, and so
 * is every field after it, so a cut line is still one valid JSON object.
 */
#define LOG_LINE_MAX	4096

struct log_line
{
	size_t		len;			/* bytes used in buf; 0 = level off */
	bool		full;			/* a field was cut: add no more */
	char		buf[LOG_LINE_MAX];
};

extern bool log_line_begin(struct log_line *l, int level, const char *event);
extern void log_line_str(struct log_line *l, const char *key, const char *value);
/* at most maxlen bytes of value, never half a character */
extern void log_line_strn(struct log_line *l, const char *key, const char *value,
						  size_t maxlen);
extern void log_line_int(struct log_line *l, const char *key, long long value);
/* text is written unquoted; anything but a plain number becomes null */
extern void log_line_raw_number(struct log_line *l, const char *key, const char *text);
extern void log_line_bool(struct log_line *l, const char *key, bool value);
extern void log_line_end(struct log_line *l);

#endif							/* GW_LOG_H */
