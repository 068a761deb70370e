/*
 * db.c
 *		A bounded, thread-safe pool of libpq connections, and the SQL calls.
 *
 * The pool is an array of pool_size slots guarded by one mutex and one
 * condition variable (CLOCK_MONOTONIC).  A request takes a free slot (waiting
 * at most pool_acquire_timeout_ms), uses its connection outside the lock and
 * gives it back.  Connections are opened lazily, so the gateway starts and
 * stays up while the database is down and recovers by itself:
 *
 *  - on acquire, an idle connection is checked without blocking
 *    (PQconsumeInput + PQstatus): a server that restarted has closed it, so it
 *    is dropped and replaced by a fresh connection;
 *  - connections older than pool_max_lifetime are replaced;
 *  - a connection given back mid-transaction (PQtransactionStatus != IDLE) is
 *    rolled back, or closed if that fails.
 *
 * Every connection has application_name = the gateway id and
 * default_transaction_isolation = serializable in its startup packet, so a
 * single "SELECT mcp_notes.handle(...)" is its own serializable
 * transaction: one round trip, as docs/sql-api.md requires.
 */
#include "db.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

#include <libpq-fe.h>

#include "clock.h"
#include "config.h"
#include "log.h"
#include "metrics.h"
#include "outcome.h"
#include "text.h"

struct db_slot
{
	PGconn	   *pg;
	PGcancel   *cancel;			/* for shutdown; guarded by pool.mu */
	double		born;			/* monotonic seconds */
	bool		busy;
};

static struct
{
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct db_slot *slots;
	int			n;
	bool		closing;
	bool		down;			/* last connection attempt failed (for log transitions) */
	int			waiting;		/* requests waiting for a slot (for /metrics) */
} pool = {.mu = PTHREAD_MUTEX_INITIALIZER};

/* connection parameters, built once in db_init() and read-only afterwards */
static const char *conn_keywords[6];
static const char *conn_values[6];
static char *conn_options;
static char conn_timeout[24];

static void notice_to_log(void *arg, const char *message);

static void
set_error(struct db_error *err, enum outcome_kind kind, const char *sqlstate, const char *msg)
{
	size_t		n;

	err->kind = kind;
	str_copy(err->sqlstate, sizeof(err->sqlstate), sqlstate);
	str_copy(err->message, sizeof(err->message), msg);
	/* libpq messages end with a newline and may span lines: keep one line */
	for (n = 0; err->message[n]; n++)
		if (err->message[n] == '\n' || err->message[n] == '\r')
		{
			err->message[n] = '\0';
			break;
		}
}

int
db_init(void)
{
	PQconninfoOption *opts;
	const char *user_options = NULL;
	char	   *errmsg = NULL;
	size_t		len;
	int			i = 0;
	long		timeout_s;

	if (clock_cond_init(&pool.cv) != 0)
		return -1;
	pool.n = (int) gw_cfg.pool_size;
	pool.slots = calloc((size_t) pool.n, sizeof(struct db_slot));
	if (pool.slots == NULL)
		return -1;

	/* keep any "options" the operator gave, and add the isolation level */
	opts = PQconninfoParse(gw_cfg.db ? gw_cfg.db : "", &errmsg);
	if (opts)
	{
		for (PQconninfoOption *o = opts; o->keyword; o++)
			if (strcmp(o->keyword, "options") == 0 && o->val && o->val[0])
				user_options = o->val;
	}
	else
	{
		/* a bare database name is not a conninfo string: libpq expands it anyway */
		PQfreemem(errmsg);
	}
	if (user_options == NULL)
		user_options = getenv("PGOPTIONS");
	len = (user_options ? strlen(user_options) : 0) + 64;
	conn_options = malloc(len);
	if (conn_options == NULL)
		return -1;
	snprintf(conn_options, len, "%s%s-c default_transaction_isolation=serializable",
			 user_options ? user_options : "", user_options ? " " : "");
	if (opts)
		PQconninfoFree(opts);

	/* libpq's connect_timeout is whole seconds, at least 2 */
	timeout_s = (gw_cfg.pool_acquire_timeout_ms + 999) / 1000;
	if (timeout_s < 2)
		timeout_s = 2;
	snprintf(conn_timeout, sizeof(conn_timeout), "%ld", timeout_s);

	/* before dbname: the operator's conninfo may override; after: forced */
	conn_keywords[i] = "connect_timeout";
	conn_values[i++] = conn_timeout;
	conn_keywords[i] = "dbname";
	conn_values[i++] = gw_cfg.db ? gw_cfg.db : "";
	conn_keywords[i] = "application_name";
	conn_values[i++] = gw_cfg.gateway_id;
	conn_keywords[i] = "options";
	conn_values[i++] = conn_options;
	conn_keywords[i] = NULL;
	conn_values[i] = NULL;
	return 0;
}

static PGconn *
connect_one(struct db_error *err)
{
	PGconn	   *pg = PQconnectdbParams(conn_keywords, conn_values, 1);
	bool		was_down;

	if (pg == NULL || PQstatus(pg) != CONNECTION_OK)
	{
		set_error(err, OUT_DATABASE_UNAVAILABLE, "", pg ? PQerrorMessage(pg) : "out of memory");
		PQfinish(pg);
		pthread_mutex_lock(&pool.mu);
		was_down = pool.down;
		pool.down = true;
		pthread_mutex_unlock(&pool.mu);
		if (!was_down)
			log_event(GW_LOG_WARN, "db_down", "cannot connect to the database: %s", err->message);
		return NULL;
	}
	pthread_mutex_lock(&pool.mu);
	was_down = pool.down;
	pool.down = false;
	pthread_mutex_unlock(&pool.mu);
	if (was_down)
		log_event(GW_LOG_INFO, "db_up", "database reachable again");
	PQsetNoticeProcessor(pg, notice_to_log, NULL);
	log_event(GW_LOG_DEBUG, "db_connect", "opened a database connection (server %d)", PQserverVersion(pg));
	return pg;
}

PGconn *
db_connect_dedicated(struct db_error *err)
{
	return connect_one(err);
}

/* Close a slot's connection; the caller owns the slot (busy). */
static void
drop_conn(struct db_slot *s)
{
	PGcancel   *cancel;

	pthread_mutex_lock(&pool.mu);
	cancel = s->cancel;
	s->cancel = NULL;
	pthread_mutex_unlock(&pool.mu);
	if (cancel)
		PQfreeCancel(cancel);
	PQfinish(s->pg);
	s->pg = NULL;
}

/*
 * Non-blocking liveness check of an idle connection.  A server that shut
 * down sent an ErrorResponse (57P01) and closed the socket; reading until the
 * socket has nothing more to say makes libpq notice the end of file.
 */
static bool
conn_alive(PGconn *pg)
{
	for (int i = 0; i < 8; i++)
	{
		struct pollfd pfd = {PQsocket(pg), POLLIN, 0};
		int			n = poll(&pfd, 1, 0);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;				/* nothing pending: the usual case */
		if (!PQconsumeInput(pg))
			return false;
		if (PQstatus(pg) != CONNECTION_OK)
			return false;
	}
	return PQstatus(pg) == CONNECTION_OK && PQtransactionStatus(pg) == PQTRANS_IDLE;
}

/* libpq notices (e.g. the FATAL a server sends when it shuts down) go to the log */
static void
notice_to_log(void *arg, const char *message)
{
	char		line[256];

	(void) arg;
	str_copy(line, sizeof(line), message);
	for (char *p = line; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	log_event(GW_LOG_DEBUG, "db_notice", "%s", line);
}

static enum outcome_kind
acquire(int timeout_ms, struct db_slot **out, bool *fresh, struct db_error *err)
{
	struct timespec deadline = clock_deadline(timeout_ms);
	struct db_slot *s = NULL;
	bool		timed_out;

	pthread_mutex_lock(&pool.mu);
	for (;;)
	{
		if (pool.closing)
		{
			pthread_mutex_unlock(&pool.mu);
			set_error(err, OUT_SHUTTING_DOWN, "", "the gateway is shutting down");
			return OUT_SHUTTING_DOWN;
		}
		/* prefer a slot with an open connection */
		for (int i = 0; i < pool.n; i++)
			if (!pool.slots[i].busy && (s == NULL || (s->pg == NULL && pool.slots[i].pg != NULL)))
				s = &pool.slots[i];
		if (s)
			break;
		pool.waiting++;
		timed_out = pthread_cond_timedwait(&pool.cv, &pool.mu, &deadline) == ETIMEDOUT;
		pool.waiting--;
		if (timed_out)
		{
			pthread_mutex_unlock(&pool.mu);
			set_error(err, OUT_DATABASE_BUSY, "", "no database connection available within the pool acquire timeout");
			return OUT_DATABASE_BUSY;
		}
	}
	s->busy = true;
	pthread_mutex_unlock(&pool.mu);

	*fresh = false;
	if (s->pg)
	{
		/* non-blocking health check: notices a server that went away */
		if (clock_mono() - s->born > (double) gw_cfg.pool_max_lifetime)
			drop_conn(s);
		else if (!conn_alive(s->pg))
		{
			log_event(GW_LOG_INFO, "db_reconnect", "dropping a broken pooled connection");
			drop_conn(s);
		}
	}
	if (s->pg == NULL)
	{
		PGconn	   *pg = connect_one(err);
		PGcancel   *cancel;

		if (pg == NULL)
		{
			pthread_mutex_lock(&pool.mu);
			s->busy = false;
			pthread_cond_signal(&pool.cv);
			pthread_mutex_unlock(&pool.mu);
			return OUT_DATABASE_UNAVAILABLE;
		}
		cancel = PQgetCancel(pg);
		s->pg = pg;
		s->born = clock_mono();
		pthread_mutex_lock(&pool.mu);
		s->cancel = cancel;
		pthread_mutex_unlock(&pool.mu);
		*fresh = true;
	}
	*out = s;
	return OUT_OK;
}

static void
release(struct db_slot *s)
{
	if (s->pg)
	{
		if (PQstatus(s->pg) != CONNECTION_OK)
			drop_conn(s);
		else if (PQtransactionStatus(s->pg) != PQTRANS_IDLE)
		{
			PGresult   *r = PQexec(s->pg, "ROLLBACK");

			PQclear(r);
			if (PQstatus(s->pg) != CONNECTION_OK || PQtransactionStatus(s->pg) != PQTRANS_IDLE)
				drop_conn(s);
			else
				log_event(GW_LOG_WARN, "db_rollback", "rolled back a connection returned inside a transaction");
		}
		else if (clock_mono() - s->born > (double) gw_cfg.pool_max_lifetime)
			drop_conn(s);
	}
	pthread_mutex_lock(&pool.mu);
	s->busy = false;
	pthread_cond_signal(&pool.cv);
	pthread_mutex_unlock(&pool.mu);
}

/* OUT_OK for a result; otherwise the outcome of the failure (outcome.c), *retry for 40001/40P01 */
static enum outcome_kind
classify(PGconn *pg, PGresult *res, bool *retry, struct db_error *err)
{
	const char *state;
	const char *msg;
	enum outcome_kind kind;
	bool		closing;
	bool		connected = PQstatus(pg) == CONNECTION_OK;

	*retry = false;
	if (res && PQresultStatus(res) == PGRES_TUPLES_OK)
		return OUT_OK;
	state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
	msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
	if (msg == NULL)
		msg = PQerrorMessage(pg);

	pthread_mutex_lock(&pool.mu);
	closing = pool.closing;
	pthread_mutex_unlock(&pool.mu);

	kind = outcome_from_sqlstate(state, connected, closing, retry);
	if (kind == OUT_DATABASE_UNAVAILABLE && !connected)
		msg = "connection to the database lost";
	set_error(err, kind, state, msg);
	return kind;
}

/* thread-local xorshift64*, seeded from getrandom(): no shared RNG state */
static _Thread_local uint64_t rng_state;

static uint64_t
rng_next(void)
{
	if (rng_state == 0)
	{
		if (getrandom(&rng_state, sizeof(rng_state), 0) != (ssize_t) sizeof(rng_state) || rng_state == 0)
			rng_state = (uint64_t) clock_mono() * 0x9E3779B97F4A7C15ULL ^ (uint64_t) (uintptr_t) &rng_state;
		if (rng_state == 0)
			rng_state = 0x2545F4914F6CDD1DULL;
	}
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return rng_state * 0x2545F4914F6CDD1DULL;
}

/* "equal jitter": half of min(1 s, 10 ms * 2^(attempt-1)) plus a random half */
static void
backoff(int attempt)
{
	long		cap_us = 10000L << (attempt - 1 < 7 ? attempt - 1 : 7);
	long		us;
	struct timespec ts;

	if (cap_us > 1000000L)
		cap_us = 1000000L;
	us = cap_us / 2 + (long) (rng_next() % (uint64_t) (cap_us / 2 + 1));
	ts.tv_sec = us / 1000000L;
	ts.tv_nsec = (us % 1000000L) * 1000L;
	while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
		;
}

/* The one value of a one-row, one-column result into *out (NULL for SQL NULL). */
static enum outcome_kind
take_scalar(PGresult *res, char **out, struct db_error *err)
{
	if (PQntuples(res) != 1 || PQnfields(res) != 1)
	{
		set_error(err, OUT_INTERNAL, "", "unexpected result shape");
		return OUT_INTERNAL;
	}
	if (PQgetisnull(res, 0, 0))
		return OUT_OK;
	*out = strdup(PQgetvalue(res, 0, 0));
	if (*out == NULL)
	{
		set_error(err, OUT_INTERNAL, "", "out of memory");
		return OUT_INTERNAL;
	}
	return OUT_OK;
}

/* One attempt: acquire, run, classify, release.  *fresh: the connection was new. */
static enum outcome_kind
run_once(int timeout_ms, const char *sql, int nparams, const char *const *values,
		 bool *fresh, bool *retry, char **out, struct db_error *err)
{
	struct db_slot *s;
	PGresult   *res;
	enum outcome_kind kind;

	*retry = false;
	kind = acquire(timeout_ms, &s, fresh, err);
	if (kind != OUT_OK)
		return kind;
	res = PQexecParams(s->pg, sql, nparams, NULL, values, NULL, NULL, 0);
	metrics_db_round_trip();
	kind = classify(s->pg, res, retry, err);
	if (kind == OUT_OK)
		kind = take_scalar(res, out, err);
	PQclear(res);
	release(s);
	return kind;
}

/*
 * Run a one-row, one-column statement.  idempotent: a statement that failed
 * because a reused connection turned out dead is run once more on a new one.
 * attempts: how many times 40001/40P01 may be retried.
 */
static enum outcome_kind
query_scalar(int timeout_ms, const char *sql, int nparams, const char *const *values,
			 bool idempotent, int attempts, int *retries, char **out, struct db_error *err)
{
	bool		reconnected = false;

	*out = NULL;
	for (int attempt = 1;; attempt++)
	{
		bool		fresh = false;
		bool		retry;
		enum outcome_kind kind = run_once(timeout_ms, sql, nparams, values, &fresh, &retry, out, err);

		if (retry && attempt < attempts)
		{
			if (retries)
				(*retries)++;
			metrics_db_retry(err->sqlstate);
			backoff(attempt);
			continue;
		}
		if (retry)
		{
			char		msg[128];

			snprintf(msg, sizeof(msg), "serialization failure or deadlock on all %d attempts", attempts);
			set_error(err, OUT_RETRIES_EXHAUSTED, err->sqlstate, msg);
			return OUT_RETRIES_EXHAUSTED;
		}
		if (kind == OUT_DATABASE_UNAVAILABLE && idempotent && !fresh && !reconnected)
		{
			reconnected = true;
			attempt--;
			continue;
		}
		return kind;
	}
}

bool
db_ping(int timeout_ms, struct db_error *err)
{
	char	   *v = NULL;
	enum outcome_kind kind = query_scalar(timeout_ms, "SELECT 1", 0, NULL, true, 1, NULL, &v, err);

	free(v);
	return kind == OUT_OK;
}

enum outcome_kind
db_authenticate(const char *token, char **principal, struct db_error *err)
{
	const char *values[1] = {token};

	return query_scalar((int) gw_cfg.pool_acquire_timeout_ms,
						"SELECT mcp_notes.authenticate($1::text)", 1, values,
						true, (int) gw_cfg.tool_call_attempts, NULL, principal, err);
}

enum outcome_kind
db_features(char **json, struct db_error *err)
{
	return query_scalar((int) gw_cfg.pool_acquire_timeout_ms,
						"SELECT mcp_notes.features()::text", 0, NULL,
						true, (int) gw_cfg.tool_call_attempts, NULL, json, err);
}

enum outcome_kind
db_extension_version(char **version, struct db_error *err)
{
	const char *sql = "SELECT (SELECT extversion FROM pg_catalog.pg_extension WHERE extname = 'mcp_notes')";

	return query_scalar((int) gw_cfg.pool_acquire_timeout_ms, sql, 0, NULL,
						true, (int) gw_cfg.tool_call_attempts, NULL, version, err);
}

enum outcome_kind
db_handle(bool dev, const char *credential, const char *request, char **json, int *retries,
		  struct db_error *err)
{
	const char *sql = dev
		? "SELECT mcp_notes.handle_as($1::text, $2::jsonb)::text"
		: "SELECT mcp_notes.handle($1::text, $2::jsonb)::text";
	const char *values[2] = {credential, request};

	/*
	 * Not idempotent: a connection lost mid-call may have committed, so it is
	 * reported (503), never silently re-run.  40001/40P01 guarantee the
	 * transaction rolled back, so those are retried.
	 */
	return query_scalar((int) gw_cfg.pool_acquire_timeout_ms, sql, 2, values,
						false, (int) gw_cfg.tool_call_attempts, retries, json, err);
}

void
db_pool_stats(int *size, int *in_use, int *waiting)
{
	pthread_mutex_lock(&pool.mu);
	*size = pool.n;
	*in_use = 0;
	for (int i = 0; i < pool.n; i++)
		*in_use += pool.slots[i].busy;
	*waiting = pool.waiting;
	pthread_mutex_unlock(&pool.mu);
}

void
db_shutdown_begin(void)
{
	char		errbuf[256];

	pthread_mutex_lock(&pool.mu);
	pool.closing = true;
	for (int i = 0; i < pool.n; i++)
		if (pool.slots[i].busy && pool.slots[i].cancel)
			(void) PQcancel(pool.slots[i].cancel, errbuf, sizeof(errbuf));
	pthread_cond_broadcast(&pool.cv);
	pthread_mutex_unlock(&pool.mu);
}

void
db_close(void)
{
	pthread_mutex_lock(&pool.mu);
	pool.closing = true;
	for (int i = 0; i < pool.n; i++)
	{
		if (pool.slots[i].cancel)
			PQfreeCancel(pool.slots[i].cancel);
		pool.slots[i].cancel = NULL;
		if (pool.slots[i].pg && !pool.slots[i].busy)
		{
			PQfinish(pool.slots[i].pg);
			pool.slots[i].pg = NULL;
		}
	}
	pthread_mutex_unlock(&pool.mu);
}
