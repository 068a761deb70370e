/*
 * The smallest test harness: each check prints one line in the form
 * tests/suites/fs reads ("name ... ok", "name ... FAIL: why"), and
 * check_exit() ends the program non-zero when any check failed.
 */
#ifndef FSD_CHECK_H
#define FSD_CHECK_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>

static int check_failures;
static int check_passes;

__attribute__((format(printf, 3, 4), unused)) static bool
check(bool ok, const char *name, const char *why_fmt, ...)
{
	if (ok)
	{
		printf("%s ... ok\n", name);
		check_passes++;
	}
	else
	{
		va_list ap;

		printf("%s ... FAIL: ", name);
		va_start(ap, why_fmt);
		vprintf(why_fmt, ap);
		va_end(ap);
		printf("\n");
		check_failures++;
	}
	fflush(stdout);
	return ok;
}

/* A failure of the test's own setup: reported as a failed test, never a pass. */
__attribute__((noreturn, unused)) static void
check_setup_failed(const char *name, const char *what)
{
	printf("%s ... FAIL: setup: %s\n", name, what);
	exit(1);
}

__attribute__((unused)) static int
check_exit(void)
{
	if (check_passes + check_failures == 0)
	{
		printf("no checks ran ... FAIL: nothing was tested\n");
		return 1;
	}
	return check_failures ? 1 : 0;
}

#endif
