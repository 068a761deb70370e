/*
 * test_paramheaders.c
 *		gateway/src/paramheaders.c alone (with headers.c): which x-mcp-header
 *		marks are declarations, and the Mcp-Param-* check of a tools/call.
 */
#include "paramheaders.h"
#include "unit.h"

#define M "paramheaders"

static const char *const tools_list =
	"{\"tools\":["
	"{\"name\":\"tagged\",\"inputSchema\":{\"type\":\"object\",\"properties\":{"
	"\"region\":{\"type\":\"string\",\"x-mcp-header\":\"Region\"},"
	"\"n\":{\"type\":\"integer\",\"x-mcp-header\":\"N\"},"
	"\"flag\":{\"type\":\"boolean\",\"x-mcp-header\":\"Flag\"},"
	"\"where\":{\"type\":\"object\",\"properties\":{\"zone\":{\"type\":\"string\",\"x-mcp-header\":\"Zone\"}}},"
	"\"bad\":{\"type\":\"string\",\"x-mcp-header\":\"not a token\"},"
	"\"list\":{\"type\":\"array\",\"x-mcp-header\":\"List\"}}}},"
	"{\"name\":\"plain\",\"inputSchema\":{\"type\":\"object\",\"properties\":{\"x\":{\"type\":\"string\"}}}}"
	"]}";

static struct param_table table;

static void
load(void)
{
	json_object *o = json_tokener_parse(tools_list);

	param_table_read(o, &table);
	json_object_put(o);
}

/* the check of a tools/call of tool with args (JSON text) and headers "Name=value" pairs */
static bool
call(const char *tool, const char *args, const char *const *hdrs, size_t nh)
{
	struct mcp_headers h;
	json_object *a = json_tokener_parse(args);
	char		why[256];
	bool		ok;

	memset(&h, 0, sizeof(h));
	for (size_t i = 0; i < nh; i += 2)
		header_param_take(&h, hdrs[i], hdrs[i + 1]);
	ok = param_headers_check(&table, tool, a, &h, why, sizeof(why));
	json_object_put(a);
	return ok;
}

static void
declarations_read_from_tools_list(void)
{
	size_t		nested = 0;

	CHECK(table.n == 4);		/* region, n, flag, where.zone; not "bad" (no token), not "list" (array) */
	CHECK(param_table_has(&table, "tagged"));
	CHECK(!param_table_has(&table, "plain"));
	for (size_t i = 0; i < table.n; i++)
		if (strcmp(table.decls[i].header, "Zone") == 0)
		{
			CHECK(table.decls[i].depth == 2);
			CHECK_STR(table.decls[i].path[0], "where");
			CHECK_STR(table.decls[i].path[1], "zone");
			nested++;
		}
	CHECK(nested == 1);
}

static void
matching_headers_pass(void)
{
	const char *const h[] = {"Mcp-Param-Region", " eu-west ", "Mcp-Param-N", "42",
	"Mcp-Param-Flag", "true", "Mcp-Param-Zone", "=?base64?YQ==?="};

	CHECK(call("tagged", "{\"region\":\"eu-west\",\"n\":42,\"flag\":true,\"where\":{\"zone\":\"a\"}}", h, 8));
}

static void
missing_header_refused(void)
{
	const char *const h[] = {"Mcp-Param-N", "42"};

	CHECK(!call("tagged", "{\"region\":\"eu\",\"n\":42}", h, 2));
}

static void
absent_or_null_argument_needs_no_header(void)
{
	CHECK(call("tagged", "{}", NULL, 0));
	CHECK(call("tagged", "{\"region\":null}", NULL, 0));
	CHECK(call("plain", "{\"x\":\"y\"}", NULL, 0));
}

static void
different_value_refused(void)
{
	const char *const h[] = {"Mcp-Param-Region", "us"};

	CHECK(!call("tagged", "{\"region\":\"eu\"}", h, 2));
}

static void
duplicate_header_refused(void)
{
	const char *const h[] = {"Mcp-Param-Region", "eu", "mcp-param-region", "eu"};

	CHECK(!call("tagged", "{\"region\":\"eu\"}", h, 4));
}

static void
bad_base64_refused(void)
{
	const char *const h[] = {"Mcp-Param-Region", "=?base64?ZXU?="};	/* "eu" unpadded */
	const char *const good[] = {"Mcp-Param-Region", "=?base64?ZXU=?="};

	CHECK(!call("tagged", "{\"region\":\"eu\"}", h, 2));
	CHECK(call("tagged", "{\"region\":\"eu\"}", good, 2));
}

static void
numbers_compared_numerically(void)
{
	const char *const h[] = {"Mcp-Param-N", "42.0"};
	const char *const bad[] = {"Mcp-Param-N", "42x"};

	CHECK(call("tagged", "{\"n\":42}", h, 2));
	CHECK(!call("tagged", "{\"n\":42}", bad, 2));
}

int
main(void)
{
	load();
	RUN(M, declarations_read_from_tools_list);
	RUN(M, matching_headers_pass);
	RUN(M, missing_header_refused);
	RUN(M, absent_or_null_argument_needs_no_header);
	RUN(M, different_value_refused);
	RUN(M, duplicate_header_refused);
	RUN(M, bad_base64_refused);
	RUN(M, numbers_compared_numerically);
	param_table_free(&table);
	return unit_status();
}
