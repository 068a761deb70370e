/*
 * sse.h
 *		A text/event-stream response body that a worker thread writes while
 *		libmicrohttpd sends it (the legacy era's tools/call stream).
 *
 * The body is a buffer under a mutex.  libmicrohttpd's reader callback
 * takes what is there; when nothing is, it suspends the connection (so no
 * event thread spins), and the next write resumes it.  The writer never
 * touches the connection after the client left: libmicrohttpd frees the
 * response then, which marks the stream closed.  A suspended connection
 * cannot notice a client leaving, so the writer sends a comment line every
 * second while it waits (sse_wait), and the failed write closes it.
 */
#ifndef GW_SSE_H
#define GW_SSE_H

#include <stdbool.h>

struct MHD_Connection;
struct MHD_Response;
struct sse_stream;

enum sse_wake
{
	SSE_NOTIFIED,				/* sse_notify() was called */
	SSE_CLOSED,					/* the client left */
	SSE_TICK					/* ms passed */
};

/* A stream with two owners: the writer (sse_release) and the response. */
extern struct sse_stream *sse_new(void);

/* The response (MHD_SIZE_UNKNOWN, chunked) reading s, sent on conn; NULL on failure. */
extern struct MHD_Response *sse_response(struct sse_stream *s, struct MHD_Connection *conn);

/* Append "event: message\ndata: <json>\n\n"; false when the client left. */
extern bool sse_send(struct sse_stream *s, const char *json);

/* Append a comment line (keeps the connection checked); false when the client left. */
extern bool sse_comment(struct sse_stream *s);

/* Wait up to ms for sse_notify() or the client leaving. */
extern enum sse_wake sse_wait(struct sse_stream *s, int ms);

/* Wake the writer waiting in sse_wait (any thread). */
extern void sse_notify(struct sse_stream *s);

/* The writer is done: the stream ends after what is buffered; s may be gone after this. */
extern void sse_release(struct sse_stream *s);

#endif							/* GW_SSE_H */
