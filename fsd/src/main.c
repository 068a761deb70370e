/*
 * mcp-notes-fsd: executes the file operations of the file-backed
 * workspaces of one storage volume (docs/file-workspaces.md).
 *
 * The decisions (grants, containment, the user's confirmation, the nonce)
 * are the extension's, in the database; this daemon only carries out what
 * the database recorded, below each registered root and never outside it,
 * and tells the database what it found.  It runs as its own OS user, which
 * owns the workspace trees and nothing else, and logs in as a database role
 * that can call the fsd_* entry points and nothing else.
 *
 * The loop: connect, attach the volume's workspaces, run every unfinished
 * operation (the recovery), scan every root; then wait on mcp_notes_fsd,
 * running the pending operations when notified, scanning every
 * --scan-interval-ms and recovering every --recover-interval-ms.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "config.h"
#include "log.h"
#include "ops.h"
#include "pg.h"
#include "probe.h"
#include "sync.h"
#include "volume.h"

enum
{
	RECONNECT_MIN_MS = 100,
	RECONNECT_MAX_MS = 5000
};

static int stop_pipe[2] = {-1, -1};

static void
on_stop(int sig)
{
	(void) sig;
	if (write(stop_pipe[1], "x", 1) < 0)
		_exit(1);
}

static long long
now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long) ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void
setup_signals(void)
{
	struct sigaction sa;

	if (pipe(stop_pipe) != 0)
		exit(1);
	fcntl(stop_pipe[0], F_SETFD, FD_CLOEXEC);
	fcntl(stop_pipe[1], F_SETFD, FD_CLOEXEC);
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static void
scan_all(struct fsd_pg *pg, struct fsd_volume *v)
{
	for (size_t i = 0; i < v->n && fsd_pg_ok(pg); i++)
	{
		long sent;

		if (!v->ws[i].usable)
			continue;
		sent = fsd_sync_workspace(pg, v->name, &v->ws[i], (size_t) fsd_cfg.max_files);
		if (sent > 0)
			fsd_log(FSD_LOG_INFO, "synced", "workspace %s: %ld changed file(s) sent", v->ws[i].uri, sent);
	}
}

/* Attach and recover after (re)connecting.  False: try again later. */
static bool
attach_and_recover(struct fsd_pg *pg, struct fsd_volume *v)
{
	char sqlstate[6];
	int left;

	if (!fsd_volume_attach(v, pg, sqlstate))
	{
		if (strcmp(sqlstate, "55P03") == 0)
			fsd_log(FSD_LOG_ERROR, "volume_busy", "another mcp-notes-fsd serves volume %s; waiting", v->name);
		return false;
	}
	left = fsd_run_pending(pg, v);
	if (left > 0)
		fsd_log(FSD_LOG_WARN, "recovery", "%d operation(s) left unfinished; tried again later", left);
	return left >= 0;
}

/* One connection's life: returns when it broke (0) or on stop (1). */
static int
serve(struct fsd_pg *pg, struct fsd_volume *v)
{
	long long next_scan = 0, next_recover = now_ms() + fsd_cfg.recover_interval_ms;

	scan_all(pg, v);
	next_scan = now_ms() + fsd_cfg.scan_interval_ms;
	for (;;)
	{
		long long now = now_ms(), until = next_scan < next_recover ? next_scan : next_recover;
		int rc = fsd_pg_wait(pg, until > now ? (int) (until - now) : 0, stop_pipe[0]);

		if (rc == -2)
			return 1;
		if (rc == -1)
			return 0;
		if (rc == 1)
		{
			/* an intent, a write or a new workspace: attach first (cheap) */
			if (!fsd_volume_attach(v, pg, NULL) || fsd_run_pending(pg, v) < 0)
				return 0;
		}
		now = now_ms();
		if (now >= next_recover)
		{
			if (!attach_and_recover(pg, v))
				return 0;
			next_recover = now + fsd_cfg.recover_interval_ms;
		}
		if (now >= next_scan)
		{
			/* pending writes first, so a scan never reads a file mid-way to its new content */
			if (fsd_run_pending(pg, v) < 0)
				return 0;
			scan_all(pg, v);
			next_scan = now_ms() + fsd_cfg.scan_interval_ms;
		}
	}
}

static int
run(struct fsd_volume *v)
{
	struct fsd_pg pg = {0};
	int backoff = RECONNECT_MIN_MS;

	for (;;)
	{
		char c;

		if (fsd_pg_connect(&pg, fsd_cfg.db, v->name) && attach_and_recover(&pg, v))
		{
			fsd_log(FSD_LOG_INFO, "ready", "serving %zu workspace(s) of volume %s", v->n, v->name);
			backoff = RECONNECT_MIN_MS;
			if (serve(&pg, v) == 1)
			{
				fsd_pg_close(&pg);
				return 0;
			}
			fsd_log(FSD_LOG_WARN, "db_lost", "lost the database connection; reconnecting");
		}
		fsd_pg_close(&pg);
		/* the wait before reconnecting ends early on a stop signal */
		{
			struct timespec ts = {backoff / 1000, (long) (backoff % 1000) * 1000000};

			nanosleep(&ts, NULL);
		}
		if (read(stop_pipe[0], &c, 0) < 0 && errno != EAGAIN)
			return 0;
		backoff = backoff * 2 > RECONNECT_MAX_MS ? RECONNECT_MAX_MS : backoff * 2;
	}
}

int
main(int argc, char **argv)
{
	struct fsd_volume v = {0};
	char why[256];
	int rc = fsd_config_load(argc, argv);

	if (rc != 0)
		return rc > 0 ? 0 : 2;
	fsd_log_init(fsd_cfg.log_level_num, fsd_cfg.volume);
	if (!fsd_probe_openat2(why, sizeof why))
	{
		fsd_log(FSD_LOG_ERROR, "file_mode_refused", "refusing file mode: %s", why);
		return 1;
	}
	if (fsd_cfg.probe)
	{
		printf("file mode available: %s\n", why);
		return 0;
	}
	if (geteuid() == 0)
		fsd_log(
			FSD_LOG_WARN, "running_as_root",
			"running as root: run mcp-notes-fsd as a user that owns the workspace trees and nothing else");
	v.name = fsd_cfg.volume;
	v.basefd = open(fsd_cfg.base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (v.basefd < 0)
	{
		fsd_log(FSD_LOG_ERROR, "base_refused", "cannot open the base directory %s: %s", fsd_cfg.base,
				strerror(errno));
		return 1;
	}
	setup_signals();
	rc = run(&v);
	fsd_volume_free(&v);
	close(v.basefd);
	fsd_log(FSD_LOG_INFO, "stopped", "stopped");
	return rc;
}
