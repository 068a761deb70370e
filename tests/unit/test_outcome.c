/*
 * test_outcome.c
 *		gateway/src/outcome.c alone: the one outcome table on both wires,
 *		the kinds handle() may return, SQLSTATEs.  gw_cfg is defined here
 *		(config.c fills it in the gateway) so the module links alone.
 */
#include "config.h"
#include "jsonrpc.h"
#include "outcome.h"
#include "unit.h"

#define M "outcome"

struct gw_config gw_cfg;

static void
every_kind_has_a_name_and_a_status(void)
{
	for (int k = 0; k < N_OUTCOMES; k++)
	{
		const struct outcome *o = outcome_of((enum outcome_kind) k);

		CHECK(o->kind != NULL && o->http_status >= 200 && o->http_status < 600);
		CHECK(k == OUT_OK || o->message != NULL);
	}
	CHECK(outcome_of((enum outcome_kind) -1) == outcome_of(OUT_INTERNAL));
	CHECK(outcome_of(N_OUTCOMES) == outcome_of(OUT_INTERNAL));
}

static void
modern_wire_statuses_and_codes(void)
{
	unsigned	s;
	int			c;

	outcome_wire(OUT_METHOD_NOT_FOUND, ERA_WIRE_MODERN, &s, &c);
	CHECK(s == 404 && c == RPC_METHOD_NOT_FOUND);
	outcome_wire(OUT_MISSING_CAPABILITY, ERA_WIRE_MODERN, &s, &c);
	CHECK(s == 400 && c == RPC_MISSING_CAPABILITY);
	outcome_wire(OUT_UNSUPPORTED_VERSION, ERA_WIRE_MODERN, &s, &c);
	CHECK(s == 400 && c == RPC_UNSUPPORTED_VERSION);
	outcome_wire(OUT_HEADER_MISMATCH, ERA_WIRE_MODERN, &s, &c);
	CHECK(s == 400 && c == RPC_HEADER_MISMATCH);
	outcome_wire(OUT_INVALID_PARAMS, ERA_WIRE_MODERN, &s, &c);
	CHECK(s == 200 && c == RPC_INVALID_PARAMS);
}

static void
legacy_wire_differs_where_the_era_does(void)
{
	unsigned	s;
	int			c;

	/* a JSON-RPC error is HTTP 200 there, and it has no -32021 */
	outcome_wire(OUT_METHOD_NOT_FOUND, ERA_WIRE_LEGACY, &s, &c);
	CHECK(s == 200 && c == RPC_METHOD_NOT_FOUND);
	outcome_wire(OUT_MISSING_CAPABILITY, ERA_WIRE_LEGACY, &s, &c);
	CHECK(s == 200 && c == RPC_INVALID_PARAMS);
	/* the SDKs' "Session not found": HTTP 404, -32001 */
	outcome_wire(OUT_SESSION_NOT_FOUND, ERA_WIRE_LEGACY, &s, &c);
	CHECK(s == 404 && c == RPC_SESSION_NOT_FOUND);
	outcome_wire(OUT_NO_PENDING_REQUEST, ERA_WIRE_LEGACY, &s, &c);
	CHECK(s == 400 && c == RPC_INVALID_REQUEST);
}

static void
unauthenticated_is_oauth_without_rpc_code(void)
{
	const struct outcome *o = outcome_of(OUT_UNAUTHENTICATED);
	const struct outcome *m = outcome_of(OUT_CREDENTIALS_MISSING);

	CHECK(o->http_status == 401 && o->rpc_code == 0);
	CHECK_STR(o->challenge, "invalid_token");	/* a token was sent and refused */
	CHECK_STR(o->oauth_error, "invalid_token");
	CHECK(m->http_status == 401 && m->rpc_code == 0);
	CHECK_STR(m->challenge, "");	/* no token: a challenge without error (RFC 6750 3.1) */
}

/* a missing scope is 403 with a challenge naming it, in both eras */
static void
insufficient_scope_is_403_with_a_challenge(void)
{
	const struct outcome *o = outcome_of(OUT_INSUFFICIENT_SCOPE);
	unsigned	s;
	int			c;

	CHECK(o->http_status == 403 && o->rpc_code == 0);
	CHECK_STR(o->challenge, "insufficient_scope");
	outcome_wire(OUT_INSUFFICIENT_SCOPE, ERA_WIRE_LEGACY, &s, &c);
	CHECK(s == 403);
}

static void
database_outcomes_are_503_with_retry_after(void)
{
	const enum outcome_kind k[] = {OUT_DATABASE_UNAVAILABLE, OUT_DATABASE_BUSY, OUT_RETRIES_EXHAUSTED,
	OUT_SHUTTING_DOWN, OUT_STATEMENT_TIMEOUT, OUT_INCOMPATIBLE_EXTENSION};

	for (size_t i = 0; i < sizeof(k) / sizeof(k[0]); i++)
		CHECK(outcome_of(k[i])->http_status == 503 && outcome_of(k[i])->retry_after);
}

static void
extension_kinds_only_those_handle_may_return(void)
{
	bool		known;

	CHECK(outcome_from_extension("invalid_params", &known) == OUT_INVALID_PARAMS && known);
	CHECK(outcome_from_extension("session_not_found", &known) == OUT_SESSION_NOT_FOUND && known);
	CHECK(outcome_from_extension("no_pending_request", &known) == OUT_NO_PENDING_REQUEST && known);
	CHECK(outcome_from_extension("unauthenticated", &known) == OUT_UNAUTHENTICATED && known);
	/* gateway-only kinds are not the extension's to return */
	CHECK(outcome_from_extension("database_busy", &known) == OUT_INTERNAL && !known);
	CHECK(outcome_from_extension("session_required", &known) == OUT_INTERNAL && !known);
	CHECK(outcome_from_extension("no_such_kind", &known) == OUT_INTERNAL && !known);
	CHECK(outcome_from_extension(NULL, &known) == OUT_INTERNAL && !known);
}

static void
sqlstates_map_and_retry(void)
{
	bool		retry;

	CHECK(outcome_from_sqlstate("40001", true, false, &retry) == OUT_RETRIES_EXHAUSTED && retry);
	CHECK(outcome_from_sqlstate("40P01", true, false, &retry) == OUT_RETRIES_EXHAUSTED && retry);
	CHECK(outcome_from_sqlstate("08006", true, false, &retry) == OUT_DATABASE_UNAVAILABLE && !retry);
	CHECK(outcome_from_sqlstate("57P01", true, false, &retry) == OUT_DATABASE_UNAVAILABLE && !retry);
	CHECK(outcome_from_sqlstate("22P02", true, false, &retry) == OUT_INVALID_PARAMS && !retry);
	CHECK(outcome_from_sqlstate("42501", true, false, &retry) == OUT_INTERNAL && !retry);
	CHECK(outcome_from_sqlstate(NULL, false, false, &retry) == OUT_DATABASE_UNAVAILABLE);
	CHECK(outcome_from_sqlstate(NULL, true, false, &retry) == OUT_INTERNAL);
}

static void
cancel_while_closing_is_shutting_down(void)
{
	bool		retry;

	CHECK(outcome_from_sqlstate("57014", true, false, &retry) == OUT_STATEMENT_TIMEOUT);
	CHECK(outcome_from_sqlstate("57014", true, true, &retry) == OUT_SHUTTING_DOWN);
}

static void
retries_exhausted_message_names_attempts(void)
{
	char		buf[256];

	gw_cfg.tool_call_attempts = 7;
	CHECK(strstr(outcome_message(OUT_RETRIES_EXHAUSTED, buf, sizeof(buf)), "after 7 attempts") != NULL);
	CHECK(outcome_message(OUT_DATABASE_BUSY, buf, sizeof(buf)) == outcome_of(OUT_DATABASE_BUSY)->message);
}

int
main(void)
{
	RUN(M, every_kind_has_a_name_and_a_status);
	RUN(M, modern_wire_statuses_and_codes);
	RUN(M, legacy_wire_differs_where_the_era_does);
	RUN(M, unauthenticated_is_oauth_without_rpc_code);
	RUN(M, insufficient_scope_is_403_with_a_challenge);
	RUN(M, database_outcomes_are_503_with_retry_after);
	RUN(M, extension_kinds_only_those_handle_may_return);
	RUN(M, sqlstates_map_and_retry);
	RUN(M, cancel_while_closing_is_shutting_down);
	RUN(M, retries_exhausted_message_names_attempts);
	return unit_status();
}
