/*
 * test_legacywire.c
 *		gateway/src/legacywire.c alone (with outcome.c, jsonrpc.c): the 2025
 *		era's versions and an outcome of handle() as a 2025-era message.
 *		gw_cfg is defined here (config.c fills it in the gateway).
 */
#include "config.h"
#include "jsonrpc.h"
#include "legacywire.h"
#include "unit.h"

#define M "legacywire"

struct gw_config gw_cfg;

/* the error code and message of a JSON-RPC error message (which is dropped) */
static int
code_of(json_object *msg, char *message, size_t n)
{
	json_object *err;
	json_object *v;
	int			code = 0;

	message[0] = '\0';
	if (json_object_object_get_ex(msg, "error", &err))
	{
		if (json_object_object_get_ex(err, "code", &v))
			code = json_object_get_int(v);
		if (json_object_object_get_ex(err, "message", &v))
			snprintf(message, n, "%s", json_object_get_string(v));
	}
	json_object_put(msg);
	return code;
}

static void
versions_served(void)
{
	json_object *all = legacy_all_versions();
	size_t		n = json_object_array_length(all);
	bool		first_modern = json_string_equals(json_object_array_get_idx(all, 0), "2026-07-28");

	json_object_put(all);
	CHECK(legacy_version_supported("2025-11-25"));
	CHECK(legacy_version_supported("2025-06-18"));
	CHECK(legacy_version_supported("2025-03-26"));
	CHECK(!legacy_version_supported("2024-11-05"));
	CHECK(!legacy_version_supported("2026-07-28"));
	CHECK(!legacy_version_supported(NULL));
	CHECK(n == 4 && first_modern);
}

static void
result_loses_the_modern_members(void)
{
	struct legacy_outcome o;

	legacy_outcome_read("{\"result\":{\"resultType\":\"complete\",\"ttlMs\":5,\"cacheScope\":\"x\",\"tools\":[]},"
						"\"notifications\":[{\"method\":\"notifications/message\",\"params\":{}}]}", &o);
	CHECK(o.kind == OUT_OK && o.result != NULL && o.error == NULL && o.input_required == NULL);
	CHECK(!json_object_object_get_ex(o.result, "resultType", NULL));
	CHECK(!json_object_object_get_ex(o.result, "ttlMs", NULL));
	CHECK(!json_object_object_get_ex(o.result, "cacheScope", NULL));
	CHECK(json_object_object_get_ex(o.result, "tools", NULL));
	CHECK(o.notifications != NULL && json_object_array_length(o.notifications) == 1);
	legacy_outcome_free(&o);
}

static void
input_required_keeps_pending(void)
{
	struct legacy_outcome o;

	legacy_outcome_read("{\"result\":{\"resultType\":\"input_required\",\"inputRequests\":{}},"
						"\"pending\":{\"k\":{\"pendingId\":\"p\",\"id\":1}}}", &o);
	CHECK(o.kind == OUT_OK && o.input_required != NULL && o.pending != NULL && o.result == NULL);
	legacy_outcome_free(&o);
}

static void
not_an_outcome_is_internal(void)
{
	struct legacy_outcome o;
	char		message[128];

	legacy_outcome_read("not json", &o);
	CHECK(o.kind == OUT_INTERNAL);
	CHECK(code_of(legacy_error_message(NULL, &o), message, sizeof(message)) == RPC_INTERNAL_ERROR);
	legacy_outcome_free(&o);
	legacy_outcome_read(NULL, &o);
	CHECK(o.kind == OUT_INTERNAL);
	legacy_outcome_free(&o);
	legacy_outcome_read("{\"error\":{\"kind\":\"database_busy\",\"message\":\"x\"}}", &o);
	CHECK(o.kind == OUT_INTERNAL);	/* not a kind handle() may return */
	legacy_outcome_free(&o);
}

static void
error_codes_of_the_2025_wire(void)
{
	struct legacy_outcome o;
	char		message[128];

	legacy_outcome_read("{\"error\":{\"kind\":\"missing_capability\",\"message\":\"needs elicitation\"}}", &o);
	CHECK(code_of(legacy_error_message(NULL, &o), message, sizeof(message)) == RPC_INVALID_PARAMS);
	CHECK_STR(message, "needs elicitation");
	legacy_outcome_free(&o);
	legacy_outcome_read("{\"error\":{\"kind\":\"session_not_found\"}}", &o);
	CHECK(code_of(legacy_error_message(NULL, &o), message, sizeof(message)) == RPC_SESSION_NOT_FOUND);
	CHECK_STR(message, "Session not found");	/* the table's message when there is none */
	legacy_outcome_free(&o);
	legacy_outcome_read("{\"error\":{\"kind\":\"unauthenticated\",\"message\":\"m\"}}", &o);
	CHECK(code_of(legacy_error_message(NULL, &o), message, sizeof(message)) == RPC_SESSION_NOT_FOUND);
	legacy_outcome_free(&o);
	legacy_outcome_read("{\"error\":{\"kind\":\"no_pending_request\"}}", &o);
	CHECK(code_of(legacy_error_message(NULL, &o), message, sizeof(message)) == RPC_INVALID_REQUEST);
	legacy_outcome_free(&o);
}

static void
error_message_echoes_id_and_data(void)
{
	struct legacy_outcome o;
	json_object *id = json_object_new_string("req-1");
	json_object *msg;
	json_object *v;
	json_object *err;
	bool		id_ok;
	bool		data_ok;

	legacy_outcome_read("{\"error\":{\"kind\":\"invalid_params\",\"message\":\"m\",\"data\":{\"reason\":\"r\"}}}", &o);
	msg = legacy_error_message(id, &o);
	id_ok = json_object_object_get_ex(msg, "id", &v) && json_string_equals(v, "req-1");
	data_ok = json_object_object_get_ex(msg, "error", &err) && json_object_object_get_ex(err, "data", &v) &&
		json_object_object_get_ex(v, "reason", NULL);
	json_object_put(msg);
	json_object_put(id);
	legacy_outcome_free(&o);
	CHECK(id_ok);
	CHECK(data_ok);
}

static void
notification_needs_a_method(void)
{
	json_object *good = json_tokener_parse("{\"method\":\"notifications/progress\",\"params\":{\"p\":1},\"x\":1}");
	json_object *bad = json_tokener_parse("{\"params\":{}}");
	json_object *msg = legacy_notification(good);
	json_object *v;
	bool		ok = msg != NULL && json_object_object_get_ex(msg, "jsonrpc", &v) && json_string_equals(v, "2.0") &&
		json_object_object_get_ex(msg, "params", NULL) && !json_object_object_get_ex(msg, "x", NULL) &&
		!json_object_object_get_ex(msg, "id", NULL);
	json_object *none = legacy_notification(bad);

	json_object_put(msg);
	json_object_put(good);
	json_object_put(bad);
	CHECK(ok);
	CHECK(none == NULL);
}

static void
tool_error_is_an_is_error_result(void)
{
	json_object *r = legacy_tool_error("no");
	json_object *v;
	bool		ok = json_object_object_get_ex(r, "isError", &v) && json_object_get_boolean(v) &&
		json_object_object_get_ex(r, "content", &v) && json_object_array_length(v) == 1;

	json_object_put(r);
	CHECK(ok);
}

int
main(void)
{
	RUN(M, versions_served);
	RUN(M, result_loses_the_modern_members);
	RUN(M, input_required_keeps_pending);
	RUN(M, not_an_outcome_is_internal);
	RUN(M, error_codes_of_the_2025_wire);
	RUN(M, error_message_echoes_id_and_data);
	RUN(M, notification_needs_a_method);
	RUN(M, tool_error_is_an_is_error_result);
	return unit_status();
}
