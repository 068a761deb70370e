/*
 * mcp_notes.c
 *		Module entry point: the magic block, the extension's settings and the
 *		transaction callbacks of the title key counts (title_counts.c).
 */
#include "postgres.h"

#include <limits.h>

#include "fmgr.h"
#include "utils/guc.h"

#include "mcp_notes.h"

PG_MODULE_MAGIC;

/* Lifetime of a sealed requestState, in seconds (mcp_notes.state_ttl). */
int			mcpn_state_ttl = MCPN_STATE_TTL_DEFAULT;

/* Decline and cancel audit rows a principal may write per hour (mcp_notes.audit_budget). */
int			mcpn_audit_budget = MCPN_AUDIT_BUDGET_DEFAULT;

void		_PG_init(void);

void
_PG_init(void)
{
	DefineCustomIntVariable("mcp_notes.state_ttl",
							"Lifetime of a sealed requestState, in seconds.",
							"A state older than this is refused; the user must start the tool call again.",
							&mcpn_state_ttl,
							MCPN_STATE_TTL_DEFAULT,
							1,
							MCPN_STATE_TTL_MAX,
							PGC_SUSET,
							GUC_UNIT_S,
							NULL, NULL, NULL);
	DefineCustomIntVariable("mcp_notes.audit_budget",
							"Decline and cancel audit rows a principal may write per hour.",
							"Beyond it they are counted in mcp_notes.audit_budget instead of written one by one.",
							&mcpn_audit_budget,
							MCPN_AUDIT_BUDGET_DEFAULT,
							0,
							INT_MAX,
							PGC_SUSET,
							0,
							NULL, NULL, NULL);
	MarkGUCPrefixReserved("mcp_notes");
	mcpn_title_counts_init();
}
