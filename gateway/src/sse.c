/*
 * sse.c
 *		The event-stream body (sse.h).
 *
 * Lock order: s->mu, then libmicrohttpd's own (suspend and resume are
 * called under s->mu, so "suspended" is always what libmicrohttpd
 * believes).  libmicrohttpd's free callback takes no lock of ours: it
 * sets an atomic flag and drops its reference, so it cannot wait on a
 * writer that waits on libmicrohttpd.
 */
#include "sse.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include <microhttpd.h>

#include "clock.h"

struct sse_stream
{
	pthread_mutex_t mu;
	pthread_cond_t cv;			/* notified, or closed */
	char	   *buf;			/* guarded by mu */
	size_t		len;
	size_t		off;
	size_t		cap;
	bool		finished;		/* the writer released it: end after the buffer */
	bool		suspended;		/* the connection is suspended by the reader */
	bool		notified;
	struct MHD_Connection *conn;
	atomic_bool closed;			/* the response was freed: the connection is gone */
	atomic_int	refs;
};

struct sse_stream *
sse_new(void)
{
	struct sse_stream *s = calloc(1, sizeof(*s));

	if (s == NULL)
		return NULL;
	pthread_mutex_init(&s->mu, NULL);
	if (clock_cond_init(&s->cv) != 0)
	{
		pthread_mutex_destroy(&s->mu);
		free(s);
		return NULL;
	}
	atomic_init(&s->closed, false);
	atomic_init(&s->refs, 2);
	return s;
}

static void
unref(struct sse_stream *s)
{
	if (atomic_fetch_sub(&s->refs, 1) != 1)
		return;
	pthread_mutex_destroy(&s->mu);
	pthread_cond_destroy(&s->cv);
	free(s->buf);
	free(s);
}

/* libmicrohttpd's reader: buffered bytes, the end, or suspend until there are some */
static ssize_t
reader(void *cls, uint64_t pos, char *out, size_t max)
{
	struct sse_stream *s = cls;
	ssize_t		n = 0;

	(void) pos;
	pthread_mutex_lock(&s->mu);
	if (s->off < s->len)
	{
		n = (ssize_t) (s->len - s->off < max ? s->len - s->off : max);
		memcpy(out, s->buf + s->off, (size_t) n);
		s->off += (size_t) n;
		if (s->off == s->len)
			s->off = s->len = 0;
	}
	else if (s->finished)
		n = MHD_CONTENT_READER_END_OF_STREAM;
	else
	{
		s->suspended = true;
		MHD_suspend_connection(s->conn);
	}
	pthread_mutex_unlock(&s->mu);
	return n;
}

static void
freed(void *cls)
{
	struct sse_stream *s = cls;

	atomic_store(&s->closed, true);
	pthread_cond_broadcast(&s->cv);	/* may be missed: sse_wait wakes every tick anyway */
	unref(s);
}

struct MHD_Response *
sse_response(struct sse_stream *s, struct MHD_Connection *conn)
{
	struct MHD_Response *resp;

	s->conn = conn;
	resp = MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, reader, s, freed);
	if (resp == NULL)
		freed(s);				/* the response's reference: the writer sees a closed stream */
	return resp;
}

/* s->mu held: let the reader run again */
static void
wake_reader(struct sse_stream *s)
{
	if (s->suspended && !atomic_load(&s->closed))
	{
		s->suspended = false;
		MHD_resume_connection(s->conn);
	}
}

static bool
append(struct sse_stream *s, const char *a, const char *b, const char *c)
{
	size_t		need = strlen(a) + strlen(b) + strlen(c);
	bool		ok = true;

	pthread_mutex_lock(&s->mu);
	if (atomic_load(&s->closed))
		ok = false;
	else if (s->len + need + 1 > s->cap)
	{
		size_t		cap = (s->len + need + 1) * 2;
		char	   *grown = realloc(s->buf, cap);

		if (grown == NULL)
			ok = false;
		else
			s->buf = grown, s->cap = cap;
	}
	if (ok)
	{
		memcpy(s->buf + s->len, a, strlen(a));
		memcpy(s->buf + s->len + strlen(a), b, strlen(b));
		memcpy(s->buf + s->len + strlen(a) + strlen(b), c, strlen(c));
		s->len += need;
		wake_reader(s);
	}
	pthread_mutex_unlock(&s->mu);
	return ok;
}

bool
sse_send(struct sse_stream *s, const char *json)
{
	return append(s, "event: message\ndata: ", json, "\n\n");
}

bool
sse_comment(struct sse_stream *s)
{
	return append(s, ": waiting for the client's answer", "", "\n\n");
}

enum sse_wake
sse_wait(struct sse_stream *s, int ms)
{
	struct timespec until = clock_deadline(ms);
	enum sse_wake w = SSE_TICK;

	pthread_mutex_lock(&s->mu);
	while (!s->notified && !atomic_load(&s->closed))
		if (pthread_cond_timedwait(&s->cv, &s->mu, &until) == ETIMEDOUT)
			break;
	if (s->notified)
		w = SSE_NOTIFIED;
	else if (atomic_load(&s->closed))
		w = SSE_CLOSED;
	s->notified = false;
	pthread_mutex_unlock(&s->mu);
	return w;
}

void
sse_notify(struct sse_stream *s)
{
	pthread_mutex_lock(&s->mu);
	s->notified = true;
	pthread_cond_broadcast(&s->cv);
	pthread_mutex_unlock(&s->mu);
}

void
sse_release(struct sse_stream *s)
{
	pthread_mutex_lock(&s->mu);
	s->finished = true;
	wake_reader(s);
	pthread_mutex_unlock(&s->mu);
	unref(s);
}
