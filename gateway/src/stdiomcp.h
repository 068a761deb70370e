/*
 * stdiomcp.h
 *		mcp-notes-gateway --stdio: one client on stdin/stdout, as a desktop
 *		host launches a local server.  Newline-delimited JSON-RPC both ways,
 *		both eras (era.h) through the same handlers and the same database
 *		entry point as HTTP; the bearer token comes from MCP_NOTES_TOKEN.
 *		Logs go to stderr only.  The legacy era's session is the process
 *		(no Mcp-Session-Id); its server requests are written to stdout and
 *		their answers read from stdin.
 */
#ifndef GW_STDIOMCP_H
#define GW_STDIOMCP_H

/* Serve until end of input; the exit status (0 at end of input). */
extern int	stdio_run(void);

#endif							/* GW_STDIOMCP_H */
