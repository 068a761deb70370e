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

#endif							/* MCP_NOTES_H */
