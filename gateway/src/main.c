/*
 * main.c
 *		mcp-notes-gateway: startup, signals and the two-stage shutdown.
 *
 * Signals are blocked in every thread (the mask is set before any thread is
 * created and inherited) and received synchronously here with sigwait, so
 * no handler runs in an arbitrary thread.  SIGPIPE is ignored: a client that
 * hangs up must not kill the process.
 *
 * Shutdown on SIGTERM or SIGINT:
 *   1. stop accepting (the listening socket is closed, so a load balancer
 *      sees the node leave), /readyz answers 503, responses carry
 *      Connection: close;
 *   2. wait for in-flight requests up to --drain-timeout-ms (a second signal
 *      cuts the wait short), then cancel statements still running;
 *   3. close all HTTP connections, join their threads, close the pool, exit 0.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "config.h"
#include "db.h"
#include "http.h"
#include "log.h"
#include "extension.h"
#include "fileops.h"
#include "legacystream.h"
#include "notify.h"
#include "tick.h"
#include "metrics.h"
#include "work.h"
#include "prm.h"
#include "stdiomcp.h"
#include "tokencache.h"
#include "watchstream.h"

static int
wait_signal(const sigset_t *set, int timeout_ms)
{
	struct timespec ts = {timeout_ms / 1000, (long) (timeout_ms % 1000) * 1000000L};
	int			sig;

	for (;;)
	{
		if (timeout_ms < 0)
		{
			if (sigwait(set, &sig) == 0)
				return sig;
			continue;
		}
		sig = sigtimedwait(set, NULL, &ts);
		if (sig >= 0)
			return sig;
		if (errno == EAGAIN)
			return 0;
	}
}

/* the database at startup: not fatal, the gateway serves 503 until it is reachable */
static void
probe_database(void)
{
	struct db_error err = {0};

	if (!db_ping((int) gw_cfg.pool_acquire_timeout_ms, &err))
	{
		log_event(GW_LOG_WARN, "db_not_ready", "database not reachable yet: %s", err.message);
		return;
	}
	log_event(GW_LOG_INFO, "db_ready", "database reachable");
	(void) features_ensure(&err);	/* logs extension_ready or extension_incompatible */
}

/* everything before the first request; 0 on success */
static int
start(void)
{
	if (db_init() != 0)
	{
		log_event(GW_LOG_ERROR, "startup", "cannot initialise the connection pool");
		return -1;
	}
	if (gw_cfg.insecure_dev_principal)
		log_event(GW_LOG_WARN, "insecure_dev_principal",
				  "authentication is OFF: every request acts as principal \"%s\" (development only)",
				  gw_cfg.insecure_dev_principal);
	probe_database();
	if (metrics_start(&(struct metrics_sources) {http_open_connections, http_inflight, db_pool_stats,
												  work_stats, features_extension_version}) != 0)
		return -1;
	/* the one LISTEN connection: its subscribers first (notify.h) */
	mcp_set_listen_hooks(&(struct mcp_listen_hooks) {watch_stream_producer, watch_stream_room});
	if (tokencache_start() != 0 || legacy_stream_init() != 0 || fileops_init() != 0 || watch_stream_init() != 0 ||
		notify_start() != 0)
	{
		log_event(GW_LOG_ERROR, "startup", "cannot start the LISTEN connection (token cache, 2025-era answers, file operations)");
		return -1;
	}
	if (tick_start() != 0)
	{
		log_event(GW_LOG_ERROR, "startup", "cannot start the audit tick thread");
		return -1;
	}
	if (http_start() != 0)
	{
		tick_stop();
		notify_stop();
		tokencache_stop();
		db_close();
		return -1;
	}
	return 0;
}

/* stages 1 and 2: stop accepting, wait for in-flight requests; true when all finished */
static bool
drain(const sigset_t *set, int sig)
{
	double		waited = 0;
	bool		idle;

	log_event(GW_LOG_INFO, "draining", "received signal %d: no new connections, draining %d in-flight request(s) for up to %ld ms",
			  sig, http_inflight(), gw_cfg.drain_timeout_ms);
	http_begin_drain();
	legacy_stream_drain();		/* waiting 2025-era streams end now */
	watch_stream_drain();		/* listen streams get their final result */
	while (!(idle = http_wait_idle(0)) && waited < (double) gw_cfg.drain_timeout_ms)
	{
		int			step = 50;

		if (wait_signal(set, step) != 0)
		{
			log_event(GW_LOG_WARN, "drain_interrupted", "second signal: stopping without waiting further");
			break;
		}
		waited += step;
	}
	if (!idle && !(idle = http_wait_idle(0)))
	{
		log_event(GW_LOG_WARN, "drain_deadline", "%d request(s) still running: cancelling their statements",
				  http_inflight());
		db_shutdown_begin();
		idle = http_wait_idle(2000);
	}
	return idle;
}

/* --stdio: no HTTP, no token cache, no listener; one client until end of input */
static int
run_stdio(void)
{
	int			status;

	if (db_init() != 0)
	{
		log_event(GW_LOG_ERROR, "startup", "cannot initialise the connection pool");
		return 1;
	}
	probe_database();
	status = stdio_run();
	db_shutdown_begin();
	db_close();
	features_shutdown();
	config_free();
	return status;
}

int
main(int argc, char **argv)
{
	sigset_t	set;
	int			rc;
	bool		idle;

	rc = config_load(argc, argv);
	if (rc != 0)
	{
		config_free();
		return rc > 0 ? 0 : 2;
	}
	log_init(gw_cfg.log_level_num, gw_cfg.gateway_id);
	if (prm_init() != 0)
	{
		config_free();
		return 2;
	}

	signal(SIGPIPE, SIG_IGN);
	if (gw_cfg.stdio)
		return run_stdio();
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	pthread_sigmask(SIG_BLOCK, &set, NULL);

	if (start() != 0)
		return 1;
	idle = drain(&set, wait_signal(&set, -1));

	/* stage 3 */
	metrics_stop();
	db_shutdown_begin();
	legacy_stream_drain();
	http_stop();
	tick_stop();
	notify_stop();
	tokencache_stop();
	db_close();
	features_shutdown();
	log_event(GW_LOG_INFO, "stopped", "shutdown complete%s", idle ? "" : " (some requests were cut off)");
	prm_free();
	config_free();
	return 0;
}
