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
 * guarded by one mutex held for a 32-byte compare; the listener thread is
 * the only other writer.
 */
#include "tokencache.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "clock.h"
#include "config.h"
#include "db.h"
#include "extension.h"
#include "log.h"
#include "metrics.h"
#include "text.h"

#define CACHE_SLOTS			256
#define DIGEST_LEN			32
#define RECONNECT_MIN_MS	100
#define RECONNECT_MAX_MS	5000

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
static EVP_MD *sha256;			/* set before the listener starts, then read-only */

static pthread_t listener;
static bool listener_started;	/* only main() touches it */
static int	stop_pipe[2] = {-1, -1};	/* written once by tokencache_stop() */
static char listening_on[64];	/* the channel; only the listener thread touches it */

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

/* Sleep up to ms, or less if asked to stop; true when asked to stop. */
static bool
wait_for_stop(int ms)
{
	struct pollfd pfd = {stop_pipe[0], POLLIN, 0};

	return poll(&pfd, 1, ms) > 0;
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

static PGconn *
subscribe(void)
{
	const char *channel = token_channel();
	struct db_error err = {0};
	PGconn	   *pg;
	PGresult   *res;
	char	   *ident;
	char		sql[200];
	bool		ok;

	if (channel == NULL || (pg = db_connect_dedicated(&err)) == NULL)
		return NULL;
	ident = PQescapeIdentifier(pg, channel, strlen(channel));
	snprintf(sql, sizeof(sql), "LISTEN %s", ident ? ident : "\"\"");
	PQfreemem(ident);
	res = PQexec(pg, sql);
	ok = PQresultStatus(res) == PGRES_COMMAND_OK;
	if (!ok)
		log_event(GW_LOG_WARN, "auth_cache_off", "LISTEN %s failed: %s", channel, PQresultErrorMessage(res));
	PQclear(res);
	if (!ok)
	{
		PQfinish(pg);
		return NULL;
	}
	str_copy(listening_on, sizeof(listening_on), channel);
	return pg;
}

static void *
listener_main(void *arg)
{
	PGconn	   *pg = NULL;
	int			backoff_ms = RECONNECT_MIN_MS;

	(void) arg;
	for (;;)
	{
		struct pollfd pfd[2];
		PGnotify   *n;

		if (pg == NULL)
		{
			pg = subscribe();
			if (pg == NULL)
			{
				if (wait_for_stop(backoff_ms))
					break;
				backoff_ms = backoff_ms * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : backoff_ms * 2;
				continue;
			}
			backoff_ms = RECONNECT_MIN_MS;
			/* changes made while nobody listened are unknown: start afresh */
			new_epoch(true);
			log_event(GW_LOG_INFO, "auth_cache_on",
					  "listening on %s: accepted tokens are reused for tools/list and server/discover for up to %ld ms",
					  listening_on, gw_cfg.auth_cache_ms);
		}

		pfd[0] = (struct pollfd) {PQsocket(pg), POLLIN, 0};
		pfd[1] = (struct pollfd) {stop_pipe[0], POLLIN, 0};
		if (poll(pfd, 2, -1) < 0)
		{
			if (errno == EINTR)
				continue;
			break;
		}
		if (pfd[1].revents)
			break;
		if (!PQconsumeInput(pg) || PQstatus(pg) != CONNECTION_OK)
		{
			new_epoch(false);
			log_event(GW_LOG_WARN, "auth_cache_off",
					  "lost the %s listener connection: every token goes to the database until it is back",
					  listening_on);
			PQfinish(pg);
			pg = NULL;
			continue;
		}
		while ((n = PQnotifies(pg)) != NULL)
		{
			new_epoch(true);
			PQfreemem(n);
		}
	}
	new_epoch(false);
	PQfinish(pg);
	return NULL;
}

int
tokencache_start(void)
{
	if (gw_cfg.auth_cache_ms <= 0 || gw_cfg.insecure_dev_principal != NULL)
		return 0;
	sha256 = EVP_MD_fetch(NULL, "SHA2-256", NULL);
	if (sha256 == NULL)
		return -1;
	if (pipe(stop_pipe) != 0)
		return -1;
	fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
	if (pthread_create(&listener, NULL, listener_main, NULL) != 0)
		return -1;
	listener_started = true;
	return 0;
}

void
tokencache_stop(void)
{
	if (!listener_started)
		return;
	if (write(stop_pipe[1], "x", 1) != 1)
		log_event(GW_LOG_WARN, "auth_cache", "cannot signal the listener thread: %s", strerror(errno));
	pthread_join(listener, NULL);
	listener_started = false;
	close(stop_pipe[0]);
	close(stop_pipe[1]);
	stop_pipe[0] = stop_pipe[1] = -1;
	EVP_MD_free(sha256);
	sha256 = NULL;
}
