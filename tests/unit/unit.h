/*
 * unit.h
 *		The unit tier's whole framework: a test is a void function, CHECK
 *		stops it at the first false condition, RUN prints one line per test
 *		in the form the suite runner counts ("NAME ... ok" or
 *		"NAME ... FAIL: file:line condition"), unit_status() is the exit
 *		status.  Nothing here needs a database, a network or a server.
 */
#ifndef UNIT_H
#define UNIT_H

#include <stdbool.h>
#include <stdio.h>
#include <string.h>

static int	unit_failed_count;
static const char *unit_failure;	/* set by CHECK in the running test */
static char unit_failure_text[512];

#define CHECK(cond) \
	do { \
		if (!(cond)) \
		{ \
			snprintf(unit_failure_text, sizeof(unit_failure_text), "%s:%d %s", __FILE__, __LINE__, #cond); \
			unit_failure = unit_failure_text; \
			return; \
		} \
	} while (0)

/* strings equal, both non-NULL */
#define CHECK_STR(a, b) CHECK((a) != NULL && (b) != NULL && strcmp((a), (b)) == 0)

static inline void
unit_run(const char *module, const char *name, void (*fn) (void))
{
	unit_failure = NULL;
	fn();
	if (unit_failure == NULL)
		printf("unit.%s.%s ... ok\n", module, name);
	else
	{
		printf("unit.%s.%s ... FAIL: %s\n", module, name, unit_failure);
		unit_failed_count++;
	}
	fflush(stdout);
}

#define RUN(module, fn) unit_run(module, #fn, fn)

static inline int
unit_status(void)
{
	return unit_failed_count == 0 ? 0 : 1;
}

#endif							/* UNIT_H */
