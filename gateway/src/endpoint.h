/*
 * endpoint.h
 *		POST /mcp and DELETE /mcp: the body is parsed once and each message
 *		goes to its era's handler (era.h): mcp.c for 2026-07-28, legacy.c
 *		for the 2025 era.
 */
#ifndef GW_ENDPOINT_H
#define GW_ENDPOINT_H

#include <stdbool.h>
#include <stddef.h>

#include "headers.h"
#include "mcp.h"

#include <json-c/json.h>

/* One POST body; as mcp_process (mcp.h), plus r->session_id and r->producer of the legacy era. */
extern void endpoint_process(const char *body, size_t len, const struct mcp_headers *h, bool may_block,
							 struct mcp_reply *r);

/*
 * One parsed message (root consumed) to its era's handler: the one routing
 * branch of the two eras, for HTTP and stdio (local: the stdio session).
 */
struct legacy_local;
extern void endpoint_route(json_object *root, const struct mcp_headers *h, bool may_block,
						   struct legacy_local *local, struct mcp_reply *r);

/* DELETE /mcp */
extern void endpoint_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r);

/* GET /mcp (the 2025 era's session stream) */
extern void endpoint_get(const struct mcp_headers *h, bool may_block, struct mcp_reply *r);

#endif							/* GW_ENDPOINT_H */
