/*
 * extension_canary.c
 *		Linked into the AddressSanitizer + UBSan build of mcp_notes.so that
 *		tests/suites/sanitizers loads into a private PostgreSQL server.
 *
 *	1. The sanitizer options.  A backend cannot take them from the
 *	   environment: the runtimes read /proc/self/environ, which PostgreSQL
 *	   overwrites with the process title.  And the ASan runtime is not
 *	   preloaded (LD_PRELOAD of libasan into postgres deadlocks in glibc's
 *	   bindtextdomain at startup), so it arrives with mcp_notes.so and must
 *	   not insist on coming first.  SAN_LOG_DIR is given by the build.
 *
 *	2. ereport(ERROR) leaves by siglongjmp, and the server's siglongjmp is
 *	   libc's own: the ASan runtime came too late to intercept it, so the
 *	   redzones of the instrumented frames it abandons stay poisoned, and a
 *	   later call whose frame lands on them is reported as a stack overflow
 *	   (a false positive).  The build links this library with
 *	   -Wl,--wrap=errfinish, so every report the extension raises first goes
 *	   through __wrap_errfinish, which does what the interceptor would have
 *	   done: unpoison the stack the longjmp may abandon.  (For a report that
 *	   returns, that only forgets some redzones of live frames: fewer
 *	   reports, never a false one.)
 *
 *	3. mcp_notes_sanitizer_canary(kind): a deliberate stack-buffer-overflow
 *	   (kind 1) or shift out of range (kind 2), so the suite can prove that a
 *	   report from inside a backend reaches the log directory.  Only this test
 *	   build has it; the SQL function is created by the suite, not the
 *	   extension.
 */
#include "postgres.h"

#include "fmgr.h"

#ifndef SAN_LOG_DIR
#error "build with -DSAN_LOG_DIR=\"/path\""
#endif

const char *__asan_default_options(void);
const char *__ubsan_default_options(void);

const char *
__asan_default_options(void)
{
	return "verify_asan_link_order=0:detect_leaks=0:abort_on_error=1:log_path=" SAN_LOG_DIR "/asan";
}

const char *
__ubsan_default_options(void)
{
	return "halt_on_error=1:print_stacktrace=1:log_path=" SAN_LOG_DIR "/ubsan";
}

void		__asan_handle_no_return(void);
void		__real_errfinish(const char *filename, int lineno, const char *funcname);
void		__wrap_errfinish(const char *filename, int lineno, const char *funcname);

void
__wrap_errfinish(const char *filename, int lineno, const char *funcname)
{
	__asan_handle_no_return();
	__real_errfinish(filename, lineno, funcname);
}

PG_FUNCTION_INFO_V1(mcp_notes_sanitizer_canary);

Datum
mcp_notes_sanitizer_canary(PG_FUNCTION_ARGS)
{
	int32		kind = PG_GETARG_INT32(0);
	char		buf[8] = {0};
	char	   *volatile p = buf;	/* through a pointer: UBSan's bounds check cannot see it */
	volatile int i = 8;
	volatile int shift = 40;

	if (kind == 1)
		p[i] = 1;				/* stack-buffer-overflow */
	if (kind == 2)
		PG_RETURN_INT32(1 << shift);	/* shift exponent too large */
	PG_RETURN_INT32(buf[0]);
}
