/*
 * log.h
 *		One JSON object per line on stderr, written under a lock.
 *
 * Never pass a bearer token, a requestState or a note body to these functions.
 */
#ifndef GW_LOG_H
#define GW_LOG_H

#include <stdbool.h>
#include <string.h>
#include <json-c/json.h>

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

/* Adds time, level and gateway to fields, writes the line, frees fields. */
extern void log_fields(int level, json_object *fields);

/*
 * Copy src into dst[n], truncating; always NUL-terminated.  A cut never
 * splits a UTF-8 sequence (the partial character is dropped), so valid UTF-8
 * stays valid and the JSON log line it ends up in stays valid too.
 */
static inline void
str_copy(char *dst, size_t n, const char *src)
{
	size_t		len = src ? strlen(src) : 0;

	if (n == 0)
		return;
	if (len >= n)
	{
		len = n - 1;
		while (len > 0 && ((unsigned char) src[len] & 0xC0) == 0x80)
			len--;
	}
	if (len)
		memcpy(dst, src, len);
	dst[len] = '\0';
}

#endif							/* GW_LOG_H */
