/*
 * era.h
 *		Which protocol era one message belongs to, decided per message as the
 *		official TypeScript SDK (v2) decides it for a server that serves both
 *		(docs/legacy-era.md): the 2026-07-28 envelope claim in params._meta
 *		makes a message modern, so does a modern MCP-Protocol-Version header;
 *		initialize without a valid modern claim, a posted JSON-RPC response
 *		and any message with neither are legacy (2025-11-25 and older).
 */
#ifndef GW_ERA_H
#define GW_ERA_H

#include <stdbool.h>
#include <json-c/json.h>

#include "headers.h"

enum era
{
	ERA_MODERN,
	ERA_LEGACY
};

/* root: the parsed body (anything JSON); h: its headers (none on stdio) */
extern enum era era_of(json_object *root, const struct mcp_headers *h);

/* version is 2026-07-28 or later (the SDK's rule: a date string compared as text) */
extern bool era_version_is_modern(const char *version);

#endif							/* GW_ERA_H */
