/*
 * tokencache.c
 *		Accepted-token cache for tools/list and server/discover, and the
 *		LISTEN connection that keeps it honest.
 *
 * Without it every tools/list costs one database round trip just to check
 * the token, for an answer that is the same for every caller.  With it, a
 * token the database accepted is trusted for those two methods until the
 * first of: --auth-cache-ms passes, the tokens table changes (the extension
 * notifies features().tokenChannel from a statement trigger on it, so
 * revoke_token, an UPDATE of expires_at or a DELETE all count), or the
 * listener connection is lost.  Nothing is trusted while no LISTEN is in
 * place (nor ever when features() names no tokenChannel), so a notification can only be missed on a connection that died
 * silently, and then only for the TTL.
 *
 * Invalidation is an epoch counter rather than a sweep of the table: an
 * entry is valid only if it was stored in the current epoch.  A lookup that
 * misses hands out the epoch it saw; if the epoch moved while the database
 * was answering (a revocation committed meanwhile), the answer is used for
 * that one request but not stored.
 *
 * The table is direct-mapped (a colliding token simply evicts the other) and
 * guarded by one mutex held for a 32-byte compare; the notify thread
 * (notify.c, the gateway's one LISTEN connection) is the only other writer.
 */
#include "tokencache.h"

#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "clock.h"
#include "config.h"
#include "db.h"
#include "extension.h"
#include "log.h"
#include "metrics.h"
#include "notify.h"

#define CACHE_SLOTS			256
#define DIGEST_LEN			32

struct cache_entry
{
	unsigned char digest[DIGEST_LEN];
	uint64_t	epoch;			/* 0 = empty */
	int64_t		expires_ns;		/* CLOCK_MONOTONIC */
};

static pthread_mutex_t cache_lock = PTHREAD_MUTEX_INITIALIZER;
static struct cache_entry cache[CACHE_SLOTS];	/* guarded by cache_lock */
static uint64_t cache_epoch = 1;	/* guarded by cache_lock */
static bool cache_listening;	/* guarded by cache_lock */

/* SHA-256, fetched once: an implicit fetch per digest costs more than the digest */
static EVP_MD *sha256;			/* set before the notify thread starts, then read-only */


static bool
digest_of(const char *token, unsigned char out[DIGEST_LEN])
{
	unsigned int len = 0;

	return sha256 != NULL &&
		EVP_Digest(token, strlen(token), out, &len, sha256, NULL) == 1 && len == DIGEST_LEN;
}

/* Forget everything: a new epoch, and whether it may be trusted. */
static void
new_epoch(bool listening)
{
	pthread_mutex_lock(&cache_lock);
	cache_epoch++;
	cache_listening = listening;
	pthread_mutex_unlock(&cache_lock);
	metrics_token_cache_invalidation();
}

bool
tokencache_lookup(const char *token, uint64_t *epoch)
{
	unsigned char d[DIGEST_LEN];
	struct cache_entry *e;
	bool		hit = false;

	*epoch = 0;
	if (gw_cfg.auth_cache_ms <= 0 || !digest_of(token, d))
		return false;
	e = &cache[d[0] % CACHE_SLOTS];
	pthread_mutex_lock(&cache_lock);
	if (cache_listening)
	{
		hit = e->epoch == cache_epoch && clock_mono_ns() < e->expires_ns &&
			CRYPTO_memcmp(e->digest, d, DIGEST_LEN) == 0;
		*epoch = cache_epoch;
	}
	pthread_mutex_unlock(&cache_lock);
	metrics_token_cache_lookup(hit);
	return hit;
}

void
tokencache_store(const char *token, uint64_t epoch)
{
	unsigned char d[DIGEST_LEN];
	struct cache_entry *e;

	if (epoch == 0 || gw_cfg.auth_cache_ms <= 0 || !digest_of(token, d))
		return;
	e = &cache[d[0] % CACHE_SLOTS];
	pthread_mutex_lock(&cache_lock);
	if (cache_listening && epoch == cache_epoch)
	{
		memcpy(e->digest, d, DIGEST_LEN);
		e->epoch = epoch;
		e->expires_ns = clock_mono_ns() + (int64_t) gw_cfg.auth_cache_ms * 1000000;
	}
	pthread_mutex_unlock(&cache_lock);
}

/*
 * The channel the database notifies token changes on: features().tokenChannel.
 * An extension that names none (or has not been read yet) gets no cache.
 */
static const char *
token_channel(void)
{
	static bool warned;			/* only the listener thread runs this */
	struct db_error err = {0};
	const char *channel;

	if (features_ensure(&err) != OUT_OK)
		return NULL;
	channel = features_token_channel();
	if (channel == NULL && !warned)
		log_event(GW_LOG_WARN, "auth_cache_off",
				  "the extension's features() names no tokenChannel: every token goes to the database");
	warned = channel == NULL;
	return channel;
}

static void
on_notify(const char *payload, void *cls)
{
	(void) payload;
	(void) cls;
	new_epoch(true);
}

/* changes made while nobody listened are unknown: start afresh either way */
static void
on_state(bool listening, void *cls)
{
	bool		was;

	(void) cls;
	pthread_mutex_lock(&cache_lock);
	was = cache_listening;
	pthread_mutex_unlock(&cache_lock);
	new_epoch(listening);
	if (listening && !was)
		log_event(GW_LOG_INFO, "auth_cache_on",
				  "listening on %s: accepted tokens are reused for tools/list and server/discover for up to %ld ms",
				  features_token_channel(), gw_cfg.auth_cache_ms);
	else if (!listening && was)
		log_event(GW_LOG_WARN, "auth_cache_off",
				  "lost the token channel listener: every token goes to the database until it is back");
}

static const struct notify_sub subscription = {token_channel, on_notify, on_state, NULL};

int
tokencache_start(void)
{
	if (gw_cfg.auth_cache_ms <= 0 || gw_cfg.insecure_dev_principal != NULL)
		return 0;
	sha256 = EVP_MD_fetch(NULL, "SHA2-256", NULL);
	if (sha256 == NULL)
		return -1;
	return notify_register(&subscription);
}

void
tokencache_stop(void)
{
	EVP_MD_free(sha256);
	sha256 = NULL;
}
