/*
 * test_era.c
 *		gateway/src/era.c and the routing branch of endpoint.c: which era's
 *		handler a message goes to.  endpoint.c is linked unchanged; the
 *		handlers it routes to (mcp.c, legacy.c, which need the database) are
 *		replaced here by recorders of which one was called, and the body is
 *		parsed by the real jsonrpc.c.
 */
#include <stdlib.h>

#include "endpoint.h"
#include "era.h"
#include "jsonrpc.h"
#include "legacy.h"
#include "unit.h"

#define M "era"

enum called
{
	NONE, MODERN, LEGACY, PARSE_ERROR, DELETE, GET
};
static enum called last;

void
mcp_process_parsed(json_object *root, const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	(void) h, (void) may_block, (void) r;
	last = MODERN;
	json_object_put(root);
}

void
legacy_process(json_object *root, const struct mcp_headers *h, bool may_block, struct legacy_local *local,
			   struct mcp_reply *r)
{
	(void) h, (void) may_block, (void) local, (void) r;
	last = LEGACY;
	json_object_put(root);
}

void
mcp_reply_parse_error(struct mcp_reply *r, const char *why)
{
	(void) r, (void) why;
	last = PARSE_ERROR;
}

void
legacy_delete(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	(void) h, (void) may_block, (void) r;
	last = DELETE;
}

void
legacy_get(const struct mcp_headers *h, bool may_block, struct mcp_reply *r)
{
	(void) h, (void) may_block, (void) r;
	last = GET;
}

/* where endpoint_process sends body with MCP-Protocol-Version header version (NULL: none) */
static enum called
route(const char *body, const char *version)
{
	struct mcp_headers h;
	struct mcp_reply r;

	memset(&h, 0, sizeof(h));
	memset(&r, 0, sizeof(r));
	if (version)
	{
		h.protocol_version = version;
		h.n_protocol_version = 1;
	}
	last = NONE;
	endpoint_process(body, strlen(body), &h, false, &r);
	return last;
}

#define MODERN_META "\"_meta\":{\"io.modelcontextprotocol/protocolVersion\":\"2026-07-28\"}"

static void
envelope_claim_is_modern(void)
{
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{" MODERN_META "}}", NULL)
		  == MODERN);
	/* a claim of an older version is still a claim: the modern handler refuses it (-32022) */
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{\"_meta\":"
				"{\"io.modelcontextprotocol/protocolVersion\":\"2025-11-25\"}}}", NULL) == MODERN);
}

static void
modern_header_is_modern(void)
{
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", " 2026-07-28 ") == MODERN);
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", "2025-11-25") == LEGACY);
}

static void
neither_is_legacy(void)
{
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\"}", NULL) == LEGACY);
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"tools/list\",\"params\":{}}", NULL) == LEGACY);
}

static void
initialize_needs_a_modern_claim(void)
{
	const char *init = "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{"
		"\"protocolVersion\":\"2025-11-25\",\"capabilities\":{},\"clientInfo\":{\"name\":\"c\",\"version\":\"1\"}}}";

	CHECK(route(init, NULL) == LEGACY);
	CHECK(route(init, "2026-07-28") == LEGACY);	/* a header alone does not make initialize modern */
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"initialize\",\"params\":{" MODERN_META "}}", NULL)
		  == MODERN);
}

static void
posted_response_is_legacy(void)
{
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"result\":{}}", NULL) == LEGACY);
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":\"p1\",\"error\":{\"code\":-1,\"message\":\"no\"}}", NULL) == LEGACY);
	/* neither method nor result/error: the modern handler refuses it */
	CHECK(route("{\"jsonrpc\":\"2.0\",\"id\":1}", NULL) == MODERN);
}

static void
non_objects_go_to_the_modern_handler(void)
{
	CHECK(route("[{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}]", NULL) == MODERN);
	CHECK(route("42", NULL) == MODERN);
}

static void
unparsable_body_is_a_parse_error(void)
{
	CHECK(route("{\"a\":1,\"a\":2}", NULL) == PARSE_ERROR);
	CHECK(route("not json", NULL) == PARSE_ERROR);
}

static void
version_compared_as_a_date(void)
{
	CHECK(era_version_is_modern("2026-07-28"));
	CHECK(era_version_is_modern("2027-01-01"));
	CHECK(!era_version_is_modern("2025-11-25"));
	CHECK(!era_version_is_modern(NULL));
}

static void
delete_goes_to_the_legacy_era(void)
{
	struct mcp_headers h;
	struct mcp_reply r;

	memset(&h, 0, sizeof(h));
	last = NONE;
	endpoint_delete(&h, false, &r);
	CHECK(last == DELETE);
}

/* GET /mcp is only the 2025 era's session stream */
static void
get_goes_to_the_legacy_era(void)
{
	struct mcp_headers h;
	struct mcp_reply r;

	memset(&h, 0, sizeof(h));
	last = NONE;
	endpoint_get(&h, false, &r);
	CHECK(last == GET);
}

int
main(void)
{
	RUN(M, envelope_claim_is_modern);
	RUN(M, modern_header_is_modern);
	RUN(M, neither_is_legacy);
	RUN(M, initialize_needs_a_modern_claim);
	RUN(M, posted_response_is_legacy);
	RUN(M, non_objects_go_to_the_modern_handler);
	RUN(M, unparsable_body_is_a_parse_error);
	RUN(M, version_compared_as_a_date);
	RUN(M, delete_goes_to_the_legacy_era);
	RUN(M, get_goes_to_the_legacy_era);
	return unit_status();
}
