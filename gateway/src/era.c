/*
 * era.c
 *		Per-message era classification (era.h).  Only the routing decision
 *		lives here: each era's handler then checks the message its own way.
 *		Anything that is not a JSON object (a batch, a scalar) goes to the
 *		modern handler, which refuses it as it always has.
 */
#include "era.h"

#include <stdlib.h>
#include <string.h>

#include "version.h"

#define META_PROTOCOL_VERSION	"io.modelcontextprotocol/protocolVersion"

bool
era_version_is_modern(const char *version)
{
	return version != NULL && strcmp(version, GW_PROTOCOL_VERSION) >= 0;
}

/* the trimmed MCP-Protocol-Version header names a modern revision */
static bool
header_is_modern(const struct mcp_headers *h)
{
	char	   *value = NULL;
	bool		modern;

	if (h == NULL || h->n_protocol_version == 0 || h->protocol_version == NULL)
		return false;
	if (header_value(h->protocol_version, false, &value) != HDR_OK)
		return false;
	modern = era_version_is_modern(value);
	free(value);
	return modern;
}

/* params._meta has the protocolVersion key; *version is its value when a string */
static bool
envelope_claim(json_object *root, const char **version)
{
	json_object *params;
	json_object *meta;
	json_object *v;

	*version = NULL;
	if (!json_object_object_get_ex(root, "params", &params) || !json_object_is_type(params, json_type_object) ||
		!json_object_object_get_ex(params, "_meta", &meta) || !json_object_is_type(meta, json_type_object) ||
		!json_object_object_get_ex(meta, META_PROTOCOL_VERSION, &v))
		return false;
	if (json_object_is_type(v, json_type_string))
		*version = json_object_get_string(v);
	return true;
}

enum era
era_of(json_object *root, const struct mcp_headers *h)
{
	json_object *method;
	const char *claimed;
	bool		claim;

	if (!json_object_is_type(root, json_type_object))
		return ERA_MODERN;
	if (!json_object_object_get_ex(root, "method", &method))
	{
		/* a JSON-RPC response: the answer to a legacy server-to-client request */
		bool		response = json_object_object_get_ex(root, "id", NULL) &&
			(json_object_object_get_ex(root, "result", NULL) || json_object_object_get_ex(root, "error", NULL));

		return response ? ERA_LEGACY : ERA_MODERN;
	}
	claim = envelope_claim(root, &claimed);
	if (json_object_is_type(method, json_type_string) && strcmp(json_object_get_string(method), "initialize") == 0)
		return claim && era_version_is_modern(claimed) ? ERA_MODERN : ERA_LEGACY;
	if (claim || header_is_modern(h))
		return ERA_MODERN;
	return ERA_LEGACY;
}
