/*
 * listen.h
 *		Answers to legacy-era server requests reach the gateway that holds
 *		the stream: legacy_answer() (on any gateway) stores the answer and
 *		notifies channel mcp_notes_legacy with the pending request's id; one
 *		LISTEN connection per gateway wakes the stream registered for it.
 */
#ifndef GW_LISTEN_H
#define GW_LISTEN_H

#include <stdbool.h>

struct sse_stream;

#define LEGACY_CHANNEL "mcp_notes_legacy"

/* Start the listener thread (HTTP mode); 0 on success. */
extern int	listen_start(void);
extern void listen_stop(void);

/* Wake s when pending_id is answered; remove before s is released. */
extern void listen_add(long long pending_id, struct sse_stream *s);
extern void listen_remove(long long pending_id);

/* true while the LISTEN is in place (otherwise waiters ask the database now and then) */
extern bool listen_connected(void);

/* Shutdown: every waiter is woken and sees listen_draining(). */
extern void listen_drain(void);
extern bool listen_draining(void);

#endif							/* GW_LISTEN_H */
