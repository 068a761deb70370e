/*
 * watchstream.h
 *		Streams of change notifications: a 2026-07-28 subscriptions/listen
 *		and the 2025 era's GET stream of a session (docs/resources-prompts.md,
 *		"Subscriptions").  The extension authorizes what a stream watches
 *		and gives, for each URI, the watch key its change feed notifies at
 *		commit (features().subscriptions.changeChannel); the gateway keeps
 *		key -> the URI as the client sent it, and one LISTEN per gateway
 *		(notify.h) tells every stream that holds a key, so a note written
 *		through any gateway reaches listeners on every gateway with no
 *		database call per delivery.  The stream's lease is renewed every
 *		renewAfterMs and at once when the extension names it on the stream
 *		channel (a grant or token gone): renewing re-checks the grants, and a
 *		stream the extension ended is closed.
 */
#ifndef GW_WATCHSTREAM_H
#define GW_WATCHSTREAM_H

#include <stdbool.h>
#include <json-c/json.h>

#include "mcp.h"

/* Subscribe to the two channels (notify.h), before notify_start(). 0 on success. */
extern int	watch_stream_init(void);

/* Below --max-listen-streams: another stream may be opened on this gateway. */
extern bool watch_stream_room(void);

/*
 * The producer of a stream the extension opened: stream is the outcome's
 * {"streamId", "honored", "watch", "renewAfterMs"} (referenced).  rpc_id:
 * the listen request's id (its frames are tagged with it, it gets the
 * acknowledgment first and a final result on drain); NULL for a 2025 GET
 * stream, then session names it.  credential is copied (renewals are made
 * with it).  cls NULL on failure (out of memory).
 */
extern struct reply_producer watch_stream_producer(json_object *stream, json_object *rpc_id, bool dev,
												   const char *credential, const char *session);

/* Shutdown: every stream ends now (a listen with its graceful result). */
extern void watch_stream_drain(void);

/* Streams held now (the metric and the cap). */
extern int	watch_stream_count(void);

#endif							/* GW_WATCHSTREAM_H */
