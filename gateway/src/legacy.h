/*
 * legacy.h
 *		The legacy-era adapter (2025-11-25, 2025-06-18, 2025-03-26): one
 *		legacy message in, a reply out, through the same database entry
 *		point as the modern era (docs/legacy-era.md): every message that
 *		needs the database is one handle() statement, whose request object
 *		names the session; handle() checks and renews it and takes the
 *		capabilities from it, and the outcome goes back in the legacy shape.
 *		Isolated from the modern handlers (mcp.c), which never see a legacy
 *		message.  The era is this family of files (legacy*.c) and one
 *		routing branch (endpoint.c).
 */
#ifndef GW_LEGACY_H
#define GW_LEGACY_H

#include <stdbool.h>
#include <json-c/json.h>

#include "legacyask.h"
#include "headers.h"
#include "mcp.h"

/* stdio: the one session of the process, kept in memory (no Mcp-Session-Id) */
struct legacy_local
{
	bool		initialized;
	char		version[32];
	char		log_level[16];	/* logging/setLevel, "" = none set */
	json_object *caps;			/* what initialize declared */
	json_object *info;
	const struct legacy_asker *asker;	/* server requests on stdout, answers from stdin */
};

/*
 * One legacy message (root is consumed).  local: the stdio session, NULL
 * over HTTP.  As mcp_process: with may_block false a reply that needs the
 * database is left with needs_database set.  Over HTTP an input_required
 * outcome leaves r->producer set (the stream, legacystream.h); on stdio it
 * is answered inline through local->asker and r->body stays NULL.
 */
extern void legacy_process(json_object *root, const struct mcp_headers *h, bool may_block,
						   struct legacy_local *local, struct mcp_reply *r);

/* DELETE /mcp: end the session named by Mcp-Session-Id. */
extern void legacy_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r);

/* GET /mcp: the stream of the session named by Mcp-Session-Id (watchstream.h), or 405. */
extern void legacy_get(const struct mcp_headers *h, bool may_block, struct mcp_reply *r);

#endif							/* GW_LEGACY_H */
