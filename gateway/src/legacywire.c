/*
 * legacywire.c
 *		Legacy-era messages (legacywire.h).
 */
#include "legacywire.h"

#include <string.h>

#include "jsonrpc.h"
#include "version.h"

static const char *const versions[] = {"2025-11-25", "2025-06-18", "2025-03-26"};

bool
legacy_version_supported(const char *version)
{
	for (size_t i = 0; version && i < sizeof(versions) / sizeof(versions[0]); i++)
		if (strcmp(version, versions[i]) == 0)
			return true;
	return false;
}

json_object *
legacy_all_versions(void)
{
	json_object *a = json_object_new_array();

	json_object_array_add(a, json_object_new_string(GW_PROTOCOL_VERSION));
	for (size_t i = 0; i < sizeof(versions) / sizeof(versions[0]); i++)
		json_object_array_add(a, json_object_new_string(versions[i]));
	return a;
}

json_object *
legacy_error(json_object *id, int code, const char *message, json_object *data)
{
	return jsonrpc_error(id, code, message, data);
}

json_object *
legacy_result(json_object *id, json_object *result)
{
	return jsonrpc_result(id, result);
}

json_object *
legacy_tool_error(const char *text)
{
	json_object *result = json_object_new_object();
	json_object *content = json_object_new_array();
	json_object *block = json_object_new_object();

	json_object_object_add(block, "type", json_object_new_string("text"));
	json_object_object_add(block, "text", json_object_new_string(text));
	json_object_array_add(content, block);
	json_object_object_add(result, "content", content);
	json_object_object_add(result, "isError", json_object_new_boolean(1));
	return result;
}

json_object *
legacy_notification(json_object *entry)
{
	json_object *method;
	json_object *params;
	json_object *msg;

	if (!json_object_is_type(entry, json_type_object) || !json_object_object_get_ex(entry, "method", &method) ||
		!json_object_is_type(method, json_type_string))
		return NULL;
	msg = json_object_new_object();
	json_object_object_add(msg, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(msg, "method", json_object_get(method));
	if (json_object_object_get_ex(entry, "params", &params) && json_object_is_type(params, json_type_object))
		json_object_object_add(msg, "params", json_object_get(params));
	return msg;
}

static json_object *
member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, type) ? json_object_get(v) : NULL;
}

void
legacy_outcome_read(const char *text, struct legacy_outcome *out)
{
	json_object *answer = text ? json_tokener_parse(text) : NULL;
	json_object *result = member(answer, "result", json_type_object);
	json_object *type;
	json_object *kind;
	bool		known = false;

	memset(out, 0, sizeof(*out));
	out->kind = OUT_INTERNAL;
	if (result && json_object_object_get_ex(result, "resultType", &type) && json_string_equals(type, "input_required"))
	{
		out->input_required = result;
		out->pending = member(answer, "pending", json_type_object);
		out->kind = OUT_OK;
	}
	else if (result)
	{
		json_object_object_del(result, "resultType");
		json_object_object_del(result, "ttlMs");
		json_object_object_del(result, "cacheScope");
		out->result = result;
		out->notifications = member(answer, "notifications", json_type_array);
		out->kind = OUT_OK;
	}
	else if ((out->error = member(answer, "error", json_type_object)) != NULL &&
			 json_object_object_get_ex(out->error, "kind", &kind) && json_object_is_type(kind, json_type_string))
		out->kind = outcome_from_extension(json_object_get_string(kind), &known);
	json_object_put(answer);
}

void
legacy_outcome_free(struct legacy_outcome *out)
{
	json_object_put(out->result);
	json_object_put(out->input_required);
	json_object_put(out->pending);
	json_object_put(out->notifications);
	json_object_put(out->error);
	memset(out, 0, sizeof(*out));
}

json_object *
legacy_error_message(json_object *id, const struct legacy_outcome *out)
{
	json_object *message = NULL;
	json_object *data = NULL;
	unsigned	status;
	int			code;

	outcome_wire(out->kind, ERA_WIRE_LEGACY, &status, &code);
	if (code == 0)
		code = RPC_SESSION_NOT_FOUND;	/* the SDKs' -32001 for "Unauthorized" too */
	if (out->kind == OUT_INTERNAL || out->error == NULL)
		return legacy_error(id, RPC_INTERNAL_ERROR, "Internal error", NULL);
	json_object_object_get_ex(out->error, "message", &message);
	json_object_object_get_ex(out->error, "data", &data);
	return legacy_error(id, code, json_object_is_type(message, json_type_string)
						? json_object_get_string(message) : outcome_of(out->kind)->message,
						data ? json_object_get(data) : NULL);
}
