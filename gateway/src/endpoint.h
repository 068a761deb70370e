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

/* One POST body; as mcp_process (mcp.h), plus r->session_id and r->job of the legacy era. */
extern void endpoint_process(const char *body, size_t len, const struct mcp_headers *h, bool may_block,
							 struct mcp_reply *r);

/* DELETE /mcp */
extern void endpoint_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r);

#endif							/* GW_ENDPOINT_H */
