/*
 * metrics.h
 *		Counters of the gateway, served as Prometheus text on GET /metrics of
 *		a separate listener (--metrics-listen; off when empty).
 *
 * The hooks below are called on the hot path by http.c, db.c and
 * tokencache.c: each is a relaxed atomic add (no lock), and a no-op while
 * metrics are off.  Values that other modules already keep under their own
 * locks (pool, worker threads, open connections) are read only when scraped,
 * through the callbacks main.c registers: this module includes none of them,
 * so no include cycle forms.
 */
#ifndef GW_METRICS_H
#define GW_METRICS_H

#include <stdbool.h>
#include <stddef.h>

/* read at scrape time; any may be NULL */
struct metrics_sources
{
	int			(*open_connections) (void);
	int			(*inflight_requests) (void);
	void		(*pool) (int *size, int *in_use, int *waiting);
	void		(*workers) (int *alive, int *busy);
	void		(*extension_version) (char *buf, size_t n);
};

/* Start the /metrics listener when --metrics-listen is set; 0 on success. */
extern int	metrics_start(const struct metrics_sources *sources);
extern void metrics_stop(void);

/* one answered POST /mcp: the JSON-RPC method (untrusted text), HTTP status, JSON-RPC code (0 = none) */
extern void metrics_request(const char *rpc_method, unsigned http_status, int rpc_code, double seconds);

/* one statement sent to the database */
extern void metrics_db_round_trip(void);

/* a statement retried after this SQLSTATE (40001, 40P01) */
extern void metrics_db_retry(const char *sqlstate);

/* a token-cache lookup (only while the cache is on) and an invalidation of the whole cache */
extern void metrics_token_cache_lookup(bool hit);
extern void metrics_token_cache_invalidation(void);

/* the exposition text (malloc'd), for the listener and for tests */
extern char *metrics_render(void);

#endif							/* GW_METRICS_H */
