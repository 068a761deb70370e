/*
 * work.c
 *		The pool of threads that run blocking work (database calls).
 *
 * libpq calls block, and a blocked HTTP event thread would stall every
 * connection it serves, so http.c suspends a request that needs the
 * database and hands it here.  A thread is started when more jobs wait than
 * threads are idle, up to the maximum; a thread idle for WORK_IDLE_EXIT_S
 * seconds exits, so a burst's threads (and their stacks) do not stay.  Jobs
 * are a FIFO list under one mutex; idle threads wait on a condition
 * variable (CLOCK_MONOTONIC).  Threads are detached; work_stop() waits for the count of live
 * ones to reach zero.
 */
#include <errno.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <time.h>

#include "clock.h"
#include "work.h"

#define WORK_IDLE_EXIT_S	5

struct job
{
	void		(*fn) (void *);
	void	   *arg;
	struct job *next;
};

static struct
{
	pthread_mutex_t mu;
	pthread_cond_t wake;		/* a job arrived, or stopping */
	pthread_cond_t changed;		/* a job finished or a thread exited */
	struct job *head;
	struct job *tail;
	int			max;
	int			alive;			/* threads started and not exited */
	int			idle;			/* threads waiting for a job */
	int			queued;			/* jobs in the list */
	int			running;		/* jobs being run */
	size_t		stack_size;
	bool		stopping;
}			pool = {.mu = PTHREAD_MUTEX_INITIALIZER, .changed = PTHREAD_COND_INITIALIZER};	/* wake: work_start() */

static void *
worker_main(void *unused)
{
	(void) unused;
	pthread_mutex_lock(&pool.mu);
	for (;;)
	{
		struct job *j;
		bool		timed_out = false;

		while (pool.head == NULL && !pool.stopping && !timed_out)
		{
			struct timespec until = clock_deadline(WORK_IDLE_EXIT_S * 1000L);

			pool.idle++;
			timed_out = pthread_cond_timedwait(&pool.wake, &pool.mu, &until) == ETIMEDOUT;
			pool.idle--;
		}
		if (pool.head == NULL)
			break;				/* stopping or idle too long, and nothing to run */
		j = pool.head;
		pool.head = j->next;
		if (pool.head == NULL)
			pool.tail = NULL;
		pool.queued--;
		pool.running++;
		pthread_mutex_unlock(&pool.mu);

		j->fn(j->arg);
		free(j);

		pthread_mutex_lock(&pool.mu);
		pool.running--;
		pthread_cond_broadcast(&pool.changed);
	}
	pool.alive--;
	pthread_cond_broadcast(&pool.changed);
	pthread_mutex_unlock(&pool.mu);
	return NULL;
}

int
work_start(int max_threads, size_t stack_size)
{
	pool.max = max_threads;
	pool.stack_size = stack_size;
	return clock_cond_init(&pool.wake) == 0 ? 0 : -1;	/* idle timeouts on the monotonic clock */
}

/* Start one more thread; pool.mu held.  False if it could not be started. */
static bool
start_thread(void)
{
	pthread_attr_t attr;
	pthread_t	t;
	bool		ok;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, pool.stack_size);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	ok = pthread_create(&t, &attr, worker_main, NULL) == 0;
	pthread_attr_destroy(&attr);
	if (ok)
		pool.alive++;
	return ok;
}

int
work_submit(void (*fn) (void *), void *arg)
{
	struct job *j = malloc(sizeof(*j));

	if (j == NULL)
		return -1;
	j->fn = fn;
	j->arg = arg;
	j->next = NULL;

	pthread_mutex_lock(&pool.mu);
	/* more jobs than idle threads to take them: start one */
	if (pool.queued + 1 > pool.idle && pool.alive < pool.max && !start_thread() && pool.alive == 0)
	{
		/* nobody would ever run it */
		pthread_mutex_unlock(&pool.mu);
		free(j);
		return -1;
	}
	if (pool.tail)
		pool.tail->next = j;
	else
		pool.head = j;
	pool.tail = j;
	pool.queued++;
	pthread_cond_signal(&pool.wake);
	pthread_mutex_unlock(&pool.mu);
	return 0;
}

void
work_stats(int *alive, int *busy)
{
	pthread_mutex_lock(&pool.mu);
	*alive = pool.alive;
	*busy = pool.running;
	pthread_mutex_unlock(&pool.mu);
}

void
work_stop(void)
{
	pthread_mutex_lock(&pool.mu);
	while (pool.queued > 0 || pool.running > 0)
		pthread_cond_wait(&pool.changed, &pool.mu);
	pool.stopping = true;
	pthread_cond_broadcast(&pool.wake);
	while (pool.alive > 0)
		pthread_cond_wait(&pool.changed, &pool.mu);
	pthread_mutex_unlock(&pool.mu);
}
