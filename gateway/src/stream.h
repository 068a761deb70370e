/*
 * stream.h
 *		The HTTP side of a legacy-era tools/call that asks the client: its
 *		SSE response stream carries the server requests and then the result
 *		(docs/legacy-era.md).  What must survive this gateway lives in the
 *		database (legacy_pending); what waits here holds no database
 *		connection, only a worker thread, as any request does.
 */
#ifndef GW_STREAM_H
#define GW_STREAM_H

struct elicit_job;
struct sse_stream;

/*
 * Run job on a worker thread, writing to s; takes both (s is released at
 * the end).  -1 if no worker could be started (then both are released).
 */
extern int	stream_start(struct elicit_job *job, struct sse_stream *s);

#endif							/* GW_STREAM_H */
