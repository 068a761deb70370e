/*
 * work.h
 *		Threads for work that may block: every request that needs the
 *		database runs on one, so the HTTP event threads never wait on libpq.
 */
#ifndef GW_WORK_H
#define GW_WORK_H

#include <stddef.h>

/*
 * At most max_threads threads, started on demand, exiting when idle for a
 * few seconds; stack_size bytes of stack each.  0 on success.
 */
extern int	work_start(int max_threads, size_t stack_size);

/*
 * Run fn(arg) on a worker thread.  The caller bounds the number of jobs
 * outstanding at once to max_threads (one per HTTP connection), so a job
 * never waits for a thread, only for a new one to start.  -1 if no thread
 * could be started (the job did not run).
 */
extern int	work_submit(void (*fn) (void *), void *arg);

/* Threads alive and threads running a job now (for /metrics). */
extern void work_stats(int *alive, int *busy);

/* Wait for queued and running jobs to finish, then for every thread to exit. */
extern void work_stop(void);

#endif							/* GW_WORK_H */
