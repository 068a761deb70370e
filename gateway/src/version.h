/*
 * version.h
 *		The one source of the gateway's version: --version, serverInfo, the
 *		listening and ready log lines and /readyz all use these.
 */
#ifndef GW_VERSION_H
#define GW_VERSION_H

#define GW_SERVER_NAME		"mcp-notes"
#define GW_VERSION			"2.2.0"
#define GW_PROTOCOL_VERSION	"2026-07-28"
/* the gateway-extension contract this gateway speaks (docs/contract.md) */
#define GW_CONTRACT			2

#endif							/* GW_VERSION_H */
