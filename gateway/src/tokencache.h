/*
 * tokencache.h
 *		A short-lived memory of bearer tokens the database accepted, used only
 *		for the public, static answers of tools/list and server/discover.
 *
 * tools/call never consults it: its token is checked inside handle(), in
 * the transaction that acts.  The cache holds SHA-256 digests, never tokens,
 * and only acceptances (an unknown token always goes to the database).  It
 * is trusted only while a LISTEN connection is subscribed to the channel
 * features().tokenChannel names (no channel, no cache); any change to the tokens table, and any loss of
 * that connection, forgets every entry.  Entries also expire after
 * --auth-cache-ms, which bounds what a missed notification can cost.
 * docs/security.md says why this is safe.
 */
#ifndef GW_TOKENCACHE_H
#define GW_TOKENCACHE_H

#include <stdbool.h>
#include <stdint.h>

/*
 * Subscribe to the token channel (notify.h) before notify_start(); no-op
 * when --auth-cache-ms is 0.  0 = ok.
 */
extern int	tokencache_start(void);

/* After notify_stop(). */
extern void tokencache_stop(void);

/*
 * Is this token a fresh acceptance?  On a miss, *epoch receives what
 * tokencache_store() needs to refuse an answer that raced an invalidation;
 * take it before asking the database.
 */
extern bool tokencache_lookup(const char *token, uint64_t *epoch);

/* Remember that the database accepted token, if nothing changed since epoch. */
extern void tokencache_store(const char *token, uint64_t epoch);

#endif							/* GW_TOKENCACHE_H */
