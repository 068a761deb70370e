/*
 * clock.h
 *		The monotonic clock, for every duration and every timed wait: a
 *		wall-clock step (NTP, an operator) must not stretch or cut a wait.
 */
#ifndef GW_CLOCK_H
#define GW_CLOCK_H

#include <pthread.h>
#include <stdint.h>
#include <time.h>

/* CLOCK_MONOTONIC in seconds */
extern double clock_mono(void);

/* CLOCK_MONOTONIC in nanoseconds */
extern int64_t clock_mono_ns(void);

/* A condition variable whose timed waits use CLOCK_MONOTONIC. 0 on success. */
extern int	clock_cond_init(pthread_cond_t *cv);

/* The CLOCK_MONOTONIC time ms milliseconds from now, for pthread_cond_timedwait. */
extern struct timespec clock_deadline(long ms);

#endif							/* GW_CLOCK_H */
