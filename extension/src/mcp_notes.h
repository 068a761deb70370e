/*
 * mcp_notes.h
 *		Declarations shared by the extension's C files.
 */
#ifndef MCP_NOTES_H
#define MCP_NOTES_H

#define MCPN_STATE_TTL_DEFAULT	300		/* five minutes */
#define MCPN_STATE_TTL_MAX		86400	/* a retired key may be pruned after this */

#define MCPN_AUDIT_BUDGET_DEFAULT	1000	/* decline and cancel rows per principal and hour */

extern int	mcpn_state_ttl;
extern int	mcpn_audit_budget;

/* search.c: the distinct title keys of a note, sorted (palloc'd) */
extern int64 *mcpn_title_keys(text *uri, Datum title, int *nkeys);

/* title_counts.c: the per-transaction sums of title key counts */
extern void mcpn_title_counts_init(void);

#endif							/* MCP_NOTES_H */
