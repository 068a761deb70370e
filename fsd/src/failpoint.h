/*
 * Failpoints for the crash tests: in the build made with -DFSD_FAILPOINTS
 * (fsd/mcp-notes-fsd-failpoints, never installed), fsd_failpoint(name)
 * kills the daemon with SIGKILL when MCP_NOTES_FSD_FAILPOINT names it, so a
 * test can stop it right after any step of a file operation; "NAME:stop"
 * stops it there (SIGSTOP, once) until the test sends SIGCONT, so the test
 * can crash the database at that step.  In the daemon itself it is
 * nothing.
 */
#ifndef FSD_FAILPOINT_H
#define FSD_FAILPOINT_H

#ifdef FSD_FAILPOINTS
void fsd_failpoint(const char *name);
#else
#define fsd_failpoint(name) ((void) 0)
#endif

#endif
