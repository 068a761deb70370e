/*
 * clock.c
 *		Monotonic time and condition variables that wait on it.
 */
#include "clock.h"

double
clock_mono(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int64_t
clock_mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t) ts.tv_sec * 1000000000 + ts.tv_nsec;
}

int
clock_cond_init(pthread_cond_t *cv)
{
	pthread_condattr_t attr;
	int			rc;

	pthread_condattr_init(&attr);
	rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
	if (rc == 0)
		rc = pthread_cond_init(cv, &attr);
	pthread_condattr_destroy(&attr);
	return rc;
}

struct timespec
clock_deadline(long ms)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	ts.tv_sec += ms / 1000;
	ts.tv_nsec += (ms % 1000) * 1000000L;
	if (ts.tv_nsec >= 1000000000L)
	{
		ts.tv_sec++;
		ts.tv_nsec -= 1000000000L;
	}
	return ts;
}
