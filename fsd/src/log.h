/*
 * One JSON object per line on stderr: {"time","level","volume","event","msg"}.
 * Never pass a note's body to these functions (paths and ids are fine).
 */
#ifndef FSD_LOG_H
#define FSD_LOG_H

enum fsd_log_level
{
	FSD_LOG_ERROR = 0,
	FSD_LOG_WARN,
	FSD_LOG_INFO,
	FSD_LOG_DEBUG
};

/* -1 when the name is unknown */
int fsd_log_level_from_name(const char *name);

void fsd_log_init(int level, const char *volume);

void fsd_log(int level, const char *event, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
