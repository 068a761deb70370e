/*
 * legacystream.h
 *		The HTTP side of a 2025-era tools/call that asks the client: its
 *		SSE response stream carries the server requests and then the result
 *		(docs/legacy-era.md), and the waiters for the answers.  What must
 *		survive this gateway lives in the database (legacy_pending, recorded
 *		by the handle() call that asked); what waits here holds no database
 *		connection, only a worker thread, as any request does.  An answer
 *		(posted to any gateway), or the end of a pending request (its session
 *		closed, its token revoked), is notified on the channel features()
 *		names; one LISTEN per gateway (notify.h) wakes the stream waiting
 *		for it.
 */
#ifndef GW_LEGACYSTREAM_H
#define GW_LEGACYSTREAM_H

#include "mcp.h"

struct legacy_job;

/* Subscribe to the answer channel (notify.h), before notify_start(). 0 on success. */
extern int	legacy_stream_init(void);

/* The reply streams job (taken): a producer for http.c (mcp.h). */
extern struct reply_producer legacy_stream_producer(struct legacy_job *job);

/* Shutdown: every waiting stream ends now (with a JSON-RPC error). */
extern void legacy_stream_drain(void);

#endif							/* GW_LEGACYSTREAM_H */
