/*
 * log.c
 *		JSON lines on stderr.
 *
 * Each line is built in the calling thread's stack by the log_line_*
 * builder (no json-c objects, no malloc: every request writes one) and
 * written with one write() (see write_line), so lines from concurrent
 * requests never interleave.  The level and gateway id are set once before
 * threads start and only read afterwards.
 */
#include "log.h"
#include "text.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;

/* a built line is written by one unlocked write() (write_line) */
_Static_assert(LOG_LINE_MAX <= PIPE_BUF, "log lines must fit one atomic pipe write");
static int	log_level = GW_LOG_INFO;	/* read-only once threads run */
static char log_gateway[64] = "";	/* read-only once threads run */

/* "gateway":"<id>" as JSON, escaped once by log_init() for log_line_begin() */
static char log_gateway_field[16 + 6 * sizeof(log_gateway)] = "\"gateway\":\"\"";
static size_t log_gateway_field_len = 12;

static const char *const level_names[] = {"error", "warn", "info", "debug"};

static char *escape_json(char *out, const char *lim, const char *s, size_t n,
						 size_t avail, bool *cut);

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
	char	   *out = log_gateway_field;
	const char *lim = log_gateway_field + sizeof(log_gateway_field) - 1;
	bool		cut;

	log_level = level;
	snprintf(log_gateway, sizeof(log_gateway), "%s", gateway_id ? gateway_id : "");

	/* sized for the worst case (every byte \u00XX), so never cut */
	memcpy(out, "\"gateway\":\"", 11);
	out = escape_json(out + 11, lim, log_gateway, strlen(log_gateway),
					  strlen(log_gateway), &cut);
	*out++ = '"';
	log_gateway_field_len = (size_t) (out - log_gateway_field);
}

bool
log_enabled(int level)
{
	return level <= log_level;
}

/*
 * One write() of at most PIPE_BUF bytes is never interleaved with other
 * writes to the same pipe (POSIX) or regular file (Linux serializes the file
 * position), and every line fits (LOG_LINE_MAX), so no lock is taken: a lock
 * here was held across a system call by every request thread (at 32
 * connections, most of the gateway's futex calls).  Should a write be short
 * anyway, the rest is written under log_lock.
 */
static void
write_line(const char *line, size_t len)
{
	ssize_t		n;

	do
		n = write(STDERR_FILENO, line, len);
	while (n < 0 && errno == EINTR);
	if (n < 0 || (size_t) n == len)
		return;
	line += n;
	len -= (size_t) n;

	pthread_mutex_lock(&log_lock);
	while (len > 0)
	{
		n = write(STDERR_FILENO, line, len);
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

/*
 * UTC time with milliseconds, e.g. 2026-01-31T12:00:00.123Z, into stamp[64];
 * returns its length.  The part up to the second is cached per thread, as
 * gmtime_r() and strftime() would otherwise dominate a cheap line.
 */
static size_t
format_stamp(char *stamp)
{
	static _Thread_local time_t cached_sec = (time_t) -1;
	static _Thread_local char cached[40];
	static _Thread_local size_t cached_len;
	struct timespec ts;
	int			ms;
	size_t		n;

	clock_gettime(CLOCK_REALTIME, &ts);
	if (ts.tv_sec != cached_sec || cached_len == 0)
	{
		struct tm	tm;

		gmtime_r(&ts.tv_sec, &tm);
		cached_len = strftime(cached, sizeof(cached), "%Y-%m-%dT%H:%M:%S", &tm);
		cached_sec = ts.tv_sec;
	}
	n = cached_len;
	memcpy(stamp, cached, n);
	ms = (int) (ts.tv_nsec / 1000000) % 1000;
	stamp[n++] = '.';
	stamp[n++] = (char) ('0' + ms / 100);
	stamp[n++] = (char) ('0' + ms / 10 % 10);
	stamp[n++] = (char) ('0' + ms % 10);
	stamp[n++] = 'Z';
	stamp[n] = '\0';
	return n;
}

void
log_event(int level, const char *event, const char *fmt,...)
{
	char		msg[1024];
	va_list		ap;
	struct log_line line;

	if (!log_line_begin(&line, level, event))
		return;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	log_line_str(&line, "msg", msg);
	log_line_end(&line);
}

/* ---------- the line builder ---------- */

/* 1 for the bytes a JSON string holds as they are: printable ASCII but " \ */
static const unsigned char json_plain[256] = {
	[0x20] =
	1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,	/* 0x22 is " */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1,	/* 0x5C is \ */
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1,
	1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0,	/* 0x7F is DEL */
};

/*
 * JSON-escape s[0..n) into out, stopping before lim; returns the new end.
 * Sets *cut when it stopped for lack of room, always between two characters.
 * avail >= n bytes of s are readable (and NUL-free), so a character that
 * straddles n is recognised as valid and left out whole rather than shown as
 * U+FFFD.  Like json-c with JSON_C_TO_STRING_NOSLASHESCAPE, "/" stays as is.
 */
static char *
escape_json(char *out, const char *lim, const char *s, size_t n, size_t avail,
			bool *cut)
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *p = (const unsigned char *) s;
	size_t		i = 0;

	*cut = false;
	while (i < n)
	{
		unsigned char c = p[i];
		char		esc[6];
		const char *piece;
		size_t		plen;
		size_t		adv;

		if (json_plain[c])
		{
			/* a run of plain ASCII, copied in one go */
			size_t		j = i + 1;
			size_t		room = (size_t) (lim - out);

			while (j < n && json_plain[p[j]])
				j++;
			if (j - i > room)
			{
				memcpy(out, s + i, room);
				*cut = true;
				return out + room;
			}
			memcpy(out, s + i, j - i);
			out += j - i;
			i = j;
			continue;
		}
		if (c < 0x80)
		{
			piece = esc;
			adv = 1;
			esc[0] = '\\';
			plen = 2;
			switch (c)
			{
				case '"':
				case '\\':
					esc[1] = (char) c;
					break;
				case '\n':
					esc[1] = 'n';
					break;
				case '\r':
					esc[1] = 'r';
					break;
				case '\t':
					esc[1] = 't';
					break;
				default:		/* other controls and DEL */
					memcpy(esc + 1, "u00", 3);
					esc[4] = hex[c >> 4];
					esc[5] = hex[c & 0xF];
					plen = 6;
					break;
			}
		}
		else
		{
			size_t		k = utf8_sequence_length(p + i, avail - i);

			if (k == 0)
			{
				piece = "\\ufffd";
				plen = 6;
				adv = 1;
			}
			else if (k > n - i)
				break;			/* the length limit cuts this character */
			else
			{
				piece = s + i;
				plen = adv = k;
			}
		}
		if (plen > (size_t) (lim - out))
		{
			*cut = true;
			break;
		}
		memcpy(out, piece, plen);
		out += plen;
		i += adv;
	}
	return out;
}

/* bytes left for fields; the closing "}\n" always has room */
static inline size_t
line_room(const struct log_line *l)
{
	return LOG_LINE_MAX - 2 - l->len;
}

static bool
line_put(struct log_line *l, const char *s, size_t n)
{
	if (n > line_room(l))
		return false;
	memcpy(l->buf + l->len, s, n);
	l->len += n;
	return true;
}

/*
 * Append s[0..n) as a quoted JSON string.  whole: all of it or nothing (for
 * keys); otherwise cut to fit, which closes the line to further fields.
 * False when nothing was written.
 */
static bool
line_put_string(struct log_line *l, const char *s, size_t n, size_t avail, bool whole)
{
	char	   *start = l->buf + l->len;
	char	   *out;
	bool		cut;
	size_t		i = 0;

	/* the common case, keys included: nothing to escape and room enough */
	while (i < n && json_plain[(unsigned char) s[i]])
		i++;
	if (i == n && n + 2 <= line_room(l))
	{
		start[0] = '"';
		memcpy(start + 1, s, n);
		start[n + 1] = '"';
		l->len += n + 2;
		return true;
	}

	if (line_room(l) < 2)
		return false;
	/* the lim leaves a byte for the closing quote */
	out = escape_json(start + 1, l->buf + LOG_LINE_MAX - 3, s, n, avail, &cut);
	if (cut && whole)
		return false;
	*start = '"';
	*out++ = '"';
	l->len = (size_t) (out - l->buf);
	if (cut)
		l->full = true;
	return true;
}

/*
 * Start a field: ,"key": with room for at least value_min bytes of value.
 * When that does not fit, the field and all later ones are left out.
 */
static bool
line_key(struct log_line *l, const char *key, size_t value_min)
{
	size_t		save = l->len;
	size_t		klen;

	if (l->full)
		return false;
	klen = strlen(key);
	if (line_put(l, ",", 1) &&
		line_put_string(l, key, klen, klen, true) &&
		line_put(l, ":", 1) &&
		line_room(l) >= value_min)
		return true;
	l->len = save;
	l->full = true;
	return false;
}

bool
log_line_begin(struct log_line *l, int level, const char *event)
{
	char		stamp[64];
	size_t		n;

	l->len = 0;
	l->full = true;				/* makes the other calls no-ops if level is off */
	if (!log_enabled(level))
		return false;
	l->full = false;
	n = format_stamp(stamp);
	/* these fixed parts are far below LOG_LINE_MAX */
	line_put(l, "{\"time\":\"", 9);
	line_put(l, stamp, n);
	line_put(l, "\",\"level\":\"", 11);
	line_put(l, level_names[level], strlen(level_names[level]));
	line_put(l, "\",", 2);
	line_put(l, log_gateway_field, log_gateway_field_len);
	log_line_str(l, "event", event);
	return true;
}

void
log_line_str(struct log_line *l, const char *key, const char *value)
{
	size_t		n = value ? strlen(value) : 0;

	if (line_key(l, key, 2))
		line_put_string(l, value ? value : "", n, n, false);
}

void
log_line_strn(struct log_line *l, const char *key, const char *value, size_t maxlen)
{
	size_t		n;
	size_t		avail;

	if (value == NULL)
		value = "";
	n = strnlen(value, maxlen);
	/* look past the limit far enough to tell a cut character from a bad one */
	avail = n + strnlen(value + n, 3);
	if (line_key(l, key, 2))
		line_put_string(l, value, n, avail, false);
}

void
log_line_int(struct log_line *l, const char *key, long long value)
{
	char		text[24];
	char	   *p = text + sizeof(text);
	unsigned long long u = value < 0 ? 0ULL - (unsigned long long) value
		: (unsigned long long) value;

	/* by hand: snprintf would cost more than the rest of the field */
	do
	{
		*--p = (char) ('0' + u % 10);
		u /= 10;
	} while (u > 0);
	if (value < 0)
		*--p = '-';
	if (line_key(l, key, (size_t) (text + sizeof(text) - p)))
		line_put(l, p, (size_t) (text + sizeof(text) - p));
}

/* a JSON number (RFC 8259 grammar), not e.g. printf's "nan" or "inf" */
static bool
is_json_number(const char *s)
{
	if (*s == '-')
		s++;
	if (*s == '0')
		s++;
	else if (*s >= '1' && *s <= '9')
		while (*s >= '0' && *s <= '9')
			s++;
	else
		return false;
	if (*s == '.')
	{
		s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	if (*s == 'e' || *s == 'E')
	{
		s++;
		if (*s == '+' || *s == '-')
			s++;
		if (!(*s >= '0' && *s <= '9'))
			return false;
		while (*s >= '0' && *s <= '9')
			s++;
	}
	return *s == '\0';
}

void
log_line_raw_number(struct log_line *l, const char *key, const char *text)
{
	/* an unquoted non-number would make the whole line invalid JSON */
	if (text == NULL || !is_json_number(text))
		text = "null";
	if (line_key(l, key, strlen(text)))
		line_put(l, text, strlen(text));
}

void
log_line_bool(struct log_line *l, const char *key, bool value)
{
	const char *text = value ? "true" : "false";

	if (line_key(l, key, strlen(text)))
		line_put(l, text, strlen(text));
}

void
log_line_end(struct log_line *l)
{
	if (l->len == 0)
		return;					/* level off */
	/* line_room() kept these two bytes free */
	l->buf[l->len++] = '}';
	l->buf[l->len++] = '\n';
	write_line(l->buf, l->len);
	l->len = 0;
}
