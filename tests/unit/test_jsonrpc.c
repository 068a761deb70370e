/*
 * test_jsonrpc.c
 *		gateway/src/jsonrpc.c alone: the strict parser (RFC 8259 and the
 *		gateway's additions) and the JSON-RPC 2.0 request shape.
 */
#include <stdlib.h>

#include "jsonrpc.h"
#include "unit.h"

#define M "jsonrpc"

/* 0 when text parses; the object is dropped */
static int
parse(const char *text, int depth)
{
	json_object *o = NULL;
	const char *why = NULL;
	int			rc = jsonrpc_parse(text, strlen(text), depth, &o, &why);

	json_object_put(o);
	return rc;
}

/* jsonrpc_check's code for text (which must parse) */
static int
check(const char *text, struct rpc_msg *m, json_object **root)
{
	const char *why = NULL;

	*root = NULL;
	if (jsonrpc_parse(text, strlen(text), 64, root, &why) != 0)
		return 1;
	return jsonrpc_check(*root, m, &why);
}

static void
parse_accepts_a_request(void)
{
	CHECK(parse("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":{}}", 64) == 0);
	CHECK(parse(" [1, 2.5, \"\\u00e9\", true, null] ", 64) == 0);
}

static void
parse_refuses_duplicate_member_names(void)
{
	CHECK(parse("{\"a\":1,\"a\":2}", 64) != 0);
	CHECK(parse("{\"o\":{\"b\":1,\"b\":1}}", 64) != 0);
	CHECK(parse("{\"a\":1,\"b\":2}", 64) == 0);
}

static void
parse_refuses_trailing_characters(void)
{
	CHECK(parse("{} x", 64) != 0);
	CHECK(parse("{}{}", 64) != 0);
}

static void
parse_refuses_nul_escapes(void)
{
	CHECK(parse("{\"a\":\"x\\u0000y\"}", 64) != 0);
}

static void
parse_refuses_lone_surrogates(void)
{
	CHECK(parse("{\"a\":\"\\ud800\"}", 64) != 0);
	CHECK(parse("{\"a\":\"\\udc00\"}", 64) != 0);
	CHECK(parse("{\"a\":\"\\ud83d\\ude00\"}", 64) == 0);
}

static void
parse_refuses_invalid_utf8(void)
{
	CHECK(parse("{\"a\":\"\xc3\"}", 64) != 0);
	CHECK(parse("{\"a\":\"\xed\xa0\x80\"}", 64) != 0);	/* an encoded surrogate */
	CHECK(parse("{\"a\":\"\xc0\xaf\"}", 64) != 0);	/* overlong */
}

static void
parse_refuses_integers_beyond_64_bits(void)
{
	CHECK(parse("{\"id\":9223372036854775807}", 64) == 0);
	CHECK(parse("{\"id\":9223372036854775808}", 64) != 0);
	CHECK(parse("{\"id\":-9223372036854775809}", 64) != 0);
}

static void
parse_enforces_the_depth_limit(void)
{
	CHECK(parse("[[[[1]]]]", 4) == 0);
	CHECK(parse("[[[[[1]]]]]", 4) != 0);
}

static void
parse_refuses_non_json(void)
{
	CHECK(parse("", 64) != 0);
	CHECK(parse("{\"a\":01}", 64) != 0);
	CHECK(parse("{'a':1}", 64) != 0);
	CHECK(parse("{\"a\":1,}", 64) != 0);
}

static void
check_accepts_a_request_and_a_notification(void)
{
	struct rpc_msg m;
	json_object *root;

	CHECK(check("{\"jsonrpc\":\"2.0\",\"id\":\"x\",\"method\":\"tools/list\",\"params\":{}}", &m, &root) == 0);
	CHECK(m.has_id && m.id != NULL && m.params != NULL);
	CHECK_STR(m.method, "tools/list");
	json_object_put(root);
	CHECK(check("{\"jsonrpc\":\"2.0\",\"method\":\"notifications/initialized\"}", &m, &root) == 0);
	CHECK(!m.has_id && m.id == NULL && m.params == NULL);
	json_object_put(root);
}

static void
check_requires_jsonrpc_2_0(void)
{
	struct rpc_msg m;
	json_object *root;
	int			rc;

	rc = check("{\"jsonrpc\":\"1.0\",\"id\":7,\"method\":\"ping\"}", &m, &root);
	CHECK(rc == RPC_INVALID_REQUEST);
	CHECK(m.id != NULL && json_object_get_int(m.id) == 7);	/* echoed in the error */
	json_object_put(root);
	rc = check("{\"id\":7,\"method\":\"ping\"}", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_REQUEST);
}

static void
check_requires_a_string_or_integer_id(void)
{
	const char *const bad[] = {"null", "true", "1.5", "{}", "[]"};

	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
	{
		char		text[128];
		struct rpc_msg m;
		json_object *root;
		int			rc;

		snprintf(text, sizeof(text), "{\"jsonrpc\":\"2.0\",\"id\":%s,\"method\":\"ping\"}", bad[i]);
		rc = check(text, &m, &root);
		json_object_put(root);
		CHECK(rc == RPC_INVALID_REQUEST);
		CHECK(m.id == NULL);	/* never echoed: the error goes without an id */
	}
}

static void
check_refuses_batches_and_scalars(void)
{
	struct rpc_msg m;
	json_object *root;
	int			rc;

	rc = check("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_REQUEST);
	rc = check("\"ping\"", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_REQUEST);
}

static void
check_refuses_posted_responses(void)
{
	struct rpc_msg m;
	json_object *root;
	int			rc;

	rc = check("{\"jsonrpc\":\"2.0\",\"id\":1,\"result\":{}}", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_REQUEST);
}

static void
check_params_must_be_an_object(void)
{
	struct rpc_msg m;
	json_object *root;
	int			rc;

	rc = check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":[1]}", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_PARAMS);
	rc = check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":3}", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_REQUEST);
	rc = check("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\",\"params\":null}", &m, &root);
	json_object_put(root);
	CHECK(rc == RPC_INVALID_REQUEST);
}

static void
error_without_id_has_no_id_member(void)
{
	json_object *e = jsonrpc_error(NULL, RPC_PARSE_ERROR, "Parse error", NULL);
	json_object *err;
	json_object *code;
	bool		has_id = json_object_object_get_ex(e, "id", NULL);
	bool		ok = json_object_object_get_ex(e, "error", &err) && json_object_object_get_ex(err, "code", &code) &&
		json_object_get_int(code) == RPC_PARSE_ERROR;

	json_object_put(e);
	CHECK(!has_id);
	CHECK(ok);
}

static void
server_info_added_and_result_type_complete(void)
{
	json_object *r = json_object_new_object();
	json_object *meta;
	json_object *t;
	bool		info;
	bool		complete;

	jsonrpc_add_server_info(r);
	info = json_object_object_get_ex(r, "_meta", &meta) &&
		json_object_object_get_ex(meta, "io.modelcontextprotocol/serverInfo", NULL);
	complete = json_object_object_get_ex(r, "resultType", &t) && json_string_equals(t, "complete");
	json_object_put(r);
	CHECK(info);
	CHECK(complete);
}

int
main(void)
{
	RUN(M, parse_accepts_a_request);
	RUN(M, parse_refuses_duplicate_member_names);
	RUN(M, parse_refuses_trailing_characters);
	RUN(M, parse_refuses_nul_escapes);
	RUN(M, parse_refuses_lone_surrogates);
	RUN(M, parse_refuses_invalid_utf8);
	RUN(M, parse_refuses_integers_beyond_64_bits);
	RUN(M, parse_enforces_the_depth_limit);
	RUN(M, parse_refuses_non_json);
	RUN(M, check_accepts_a_request_and_a_notification);
	RUN(M, check_requires_jsonrpc_2_0);
	RUN(M, check_requires_a_string_or_integer_id);
	RUN(M, check_refuses_batches_and_scalars);
	RUN(M, check_refuses_posted_responses);
	RUN(M, check_params_must_be_an_object);
	RUN(M, error_without_id_has_no_id_member);
	RUN(M, server_info_added_and_result_type_complete);
	return unit_status();
}
