/*
 * endpoint.c
 *		Era routing for the HTTP endpoint (endpoint.h).
 */
#include "endpoint.h"

#include <json-c/json.h>

#include "config.h"
#include "era.h"
#include "jsonrpc.h"
#include "legacy.h"

void
endpoint_process(const char *body, size_t len, const struct mcp_headers *h, bool may_block,
				 struct mcp_reply *r)
{
	json_object *root = NULL;
	const char *why = NULL;

	if (jsonrpc_parse(body, len, GW_JSON_MAX_DEPTH, &root, &why) != 0)
	{
		mcp_reply_parse_error(r, why);
		return;
	}
	endpoint_route(root, h, may_block, NULL, r);
}

void
endpoint_route(json_object *root, const struct mcp_headers *h, bool may_block, struct legacy_local *local,
			   struct mcp_reply *r)
{
	if (era_of(root, h) == ERA_LEGACY)
		legacy_process(root, h, may_block, local, r);
	else
		mcp_process_parsed(root, h, may_block, r);
}

void
endpoint_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	legacy_delete(h, may_block, r);
}

void
endpoint_get(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	legacy_get(h, may_block, r);
}
