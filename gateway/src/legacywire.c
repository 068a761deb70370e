/*
 * legacywire.c
 *		Legacy-era messages (legacywire.h).
 */
#include "legacywire.h"

#include <string.h>

#include "jsonrpc.h"
#include "text.h"
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

/* {"error": {"kind", "message", "data"}} -> out */
static void
translate_error(json_object *id, json_object *error, struct legacy_out *out)
{
	json_object *kind = NULL;
	json_object *message = NULL;
	json_object *data = NULL;
	json_object *reason;
	bool		known = false;
	const struct outcome *o;

	json_object_object_get_ex(error, "kind", &kind);
	json_object_object_get_ex(error, "message", &message);
	json_object_object_get_ex(error, "data", &data);
	out->kind = outcome_from_extension(json_object_is_type(kind, json_type_string)
									   ? json_object_get_string(kind) : "", &known);
	o = outcome_of(out->kind);
	out->code = out->kind == OUT_MISSING_CAPABILITY ? -32602 : o->rpc_code != 0 ? o->rpc_code : -32603;
	str_copy(out->message_text, sizeof(out->message_text),
			 json_object_is_type(message, json_type_string) ? json_object_get_string(message) : o->message);
	if (data && json_object_object_get_ex(data, "reason", &reason) && json_object_is_type(reason, json_type_string))
		str_copy(out->reason, sizeof(out->reason), json_object_get_string(reason));
	if (o->challenge != NULL)
	{
		/* an HTTP-level answer (401, 403 insufficient_scope): the caller sends it */
		out->challenge_data = data ? json_object_get(data) : NULL;
		return;
	}
	out->message = legacy_error(id, out->code, out->message_text, known && data ? json_object_get(data) : NULL);
}

void
legacy_translate(json_object *id, const char *outcome_text, struct legacy_out *out)
{
	json_object *answer = outcome_text ? json_tokener_parse(outcome_text) : NULL;
	json_object *v;
	json_object *type;

	memset(out, 0, sizeof(*out));
	if (json_object_object_get_ex(answer, "result", &v) && json_object_is_type(v, json_type_object))
	{
		if (json_object_object_get_ex(v, "resultType", &type) && json_string_equals(type, "input_required"))
			out->input_required = json_object_get(v);
		else
		{
			json_object *result = json_object_get(v);

			json_object_object_del(result, "resultType");
			json_object_object_del(result, "ttlMs");
			json_object_object_del(result, "cacheScope");
			out->message = legacy_result(id, result);
			if (json_object_object_get_ex(answer, "notifications", &v) && json_object_is_type(v, json_type_array) &&
				json_object_array_length(v) > 0)
				out->notifications = json_object_get(v);
		}
	}
	else if (json_object_object_get_ex(answer, "error", &v) && json_object_is_type(v, json_type_object))
		translate_error(id, v, out);
	else
	{
		out->kind = OUT_INTERNAL;
		out->code = -32603;
		str_copy(out->message_text, sizeof(out->message_text), "handle() returned neither result nor error");
		out->message = legacy_error(id, -32603, "Internal error", NULL);
	}
	json_object_put(answer);
}
