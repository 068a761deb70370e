/*
 * outcome.c
 *		The outcome table and the SQLSTATE (class) -> outcome mapping.
 *
 * Like PostgREST's one table from SQLSTATE to HTTP status: nothing else in
 * the gateway chooses an HTTP status or a JSON-RPC code for an error.  The
 * gateway's envelope errors, the kinds an extension's outcome object names
 * (docs/contract.md) and the database failures all end here.
 */
#include "outcome.h"

#include <stdio.h>
#include <string.h>

#include "config.h"
#include "jsonrpc.h"

static const struct outcome table[N_OUTCOMES] = {
	/*
	 * kind, HTTP, JSON-RPC, Retry-After, challenge error, default message,
	 * from handle(), OAuth error, and where the 2025 era differs: HTTP,
	 * JSON-RPC
	 */
	[OUT_OK] = {"ok", 200, 0, false, NULL, NULL, false, NULL, 0, 0},
	[OUT_PARSE_ERROR] = {"parse_error", 400, RPC_PARSE_ERROR, false, NULL, "Parse error", false, NULL, 0, 0},
	[OUT_INVALID_REQUEST] = {"invalid_request", 400, RPC_INVALID_REQUEST, false, NULL, "Invalid Request", false, NULL, 0, 0},
	[OUT_INVALID_META] = {"invalid_meta", 400, RPC_INVALID_PARAMS, false, NULL, "Invalid params", false, NULL, 0, 0},
	[OUT_HEADER_MISMATCH] = {"header_mismatch", 400, RPC_HEADER_MISMATCH, false, NULL, "Header mismatch", false, NULL, 0, 0},
	[OUT_UNSUPPORTED_VERSION] = {"unsupported_version", 400, RPC_UNSUPPORTED_VERSION, false, NULL,
	"Unsupported protocol version", false, NULL, 0, 0},
	[OUT_METHOD_NOT_FOUND] = {"method_not_found", 404, RPC_METHOD_NOT_FOUND, false, NULL, "Method not found", true, NULL,
	200, 0},
	[OUT_CREDENTIALS_MISSING] = {"credentials_missing", 401, 0, false, "",
	"Unauthorized: send Authorization: Bearer <token>", false, "invalid_token", 0, 0},
	[OUT_UNAUTHENTICATED] = {"unauthenticated", 401, 0, false, "invalid_token",
	"Unauthorized: the bearer token is invalid, expired or revoked", true, "invalid_token", 0, 0},
	[OUT_INVALID_PARAMS] = {"invalid_params", 200, RPC_INVALID_PARAMS, false, NULL, "Invalid params", true, NULL, 0, 0},
	[OUT_MISSING_CAPABILITY] = {"missing_capability", 400, RPC_MISSING_CAPABILITY, false, NULL,
	"Missing required client capability", true, NULL, 200, RPC_INVALID_PARAMS},
	/* data.scopes: every scope the request needs, for the challenge (RFC 6750 section 3.1) */
	[OUT_INSUFFICIENT_SCOPE] = {"insufficient_scope", 403, 0, false, "insufficient_scope",
	"Forbidden: the access token lacks a scope this request needs", true, "insufficient_scope", 0, 0},
	[OUT_SESSION_NOT_FOUND] = {"session_not_found", 404, RPC_SESSION_NOT_FOUND, false, NULL, "Session not found", true, NULL, 0, 0},
	[OUT_NO_PENDING_REQUEST] = {"no_pending_request", 400, RPC_INVALID_REQUEST, false, NULL,
	"Bad Request: no request is waiting for this response", true, NULL, 0, 0},
	[OUT_INPUT_PENDING] = {"input_pending", 500, RPC_INTERNAL_ERROR, false, NULL, "Internal error", true, NULL, 0, 0},
	[OUT_SESSION_REQUIRED] = {"session_required", 400, RPC_INVALID_PARAMS, false, NULL,
	"Invalid params: params._meta is required (MCP 2026-07-28), or the Mcp-Session-Id "
	"header of a session opened by initialize (MCP 2025-11-25 and older)", false, NULL, 0, 0},
	/* in-band, as the official TypeScript SDK answers a listen over its limit */
	[OUT_STREAM_LIMIT] = {"stream_limit", 200, RPC_INTERNAL_ERROR, false, NULL,
	"Too many open streams: close one and listen again", true, NULL, 0, 0},
	[OUT_DATABASE_UNAVAILABLE] = {"database_unavailable", 503, RPC_INTERNAL_ERROR, true, NULL,
	"Database unavailable; try again later", false, NULL, 0, 0},
	[OUT_DATABASE_BUSY] = {"database_busy", 503, RPC_INTERNAL_ERROR, true, NULL,
	"Gateway busy: no database connection became free in time; try again later", false, NULL, 0, 0},
	[OUT_RETRIES_EXHAUSTED] = {"retries_exhausted", 503, RPC_INTERNAL_ERROR, true, NULL,
	"Concurrent requests kept conflicting (serialization failure) after %ld attempts; try again", false, NULL, 0, 0},
	[OUT_SHUTTING_DOWN] = {"shutting_down", 503, RPC_INTERNAL_ERROR, true, NULL,
	"Gateway shutting down; try again", false, NULL, 0, 0},
	[OUT_STATEMENT_TIMEOUT] = {"statement_timeout", 503, RPC_INTERNAL_ERROR, true, NULL,
	"Database statement timed out; try again later", false, NULL, 0, 0},
	[OUT_INCOMPATIBLE_EXTENSION] = {"incompatible_extension", 503, RPC_INTERNAL_ERROR, true, NULL,
	"The database's mcp_notes extension is not compatible with this gateway: run ALTER EXTENSION mcp_notes UPDATE",
	false, NULL, 0, 0},
	[OUT_INTERNAL] = {"internal", 500, RPC_INTERNAL_ERROR, false, NULL, "Internal error", false, NULL, 0, 0},
};

/* SQLSTATE -> outcome: an exact code, or a class when the pattern has two characters */
static const struct
{
	const char *pattern;
	enum outcome_kind kind;
	bool		retry;
}			sqlstates[] = {
	{"40001", OUT_RETRIES_EXHAUSTED, true},	/* serialization_failure */
	{"40P01", OUT_RETRIES_EXHAUSTED, true},	/* deadlock_detected */
	{"08", OUT_DATABASE_UNAVAILABLE, false},	/* connection exception */
	{"57P01", OUT_DATABASE_UNAVAILABLE, false},	/* admin_shutdown */
	{"57P02", OUT_DATABASE_UNAVAILABLE, false},	/* crash_shutdown */
	{"57P03", OUT_DATABASE_UNAVAILABLE, false},	/* cannot_connect_now */
	{"53300", OUT_DATABASE_UNAVAILABLE, false},	/* too_many_connections */
	{"57014", OUT_STATEMENT_TIMEOUT, false},	/* query_canceled */
	{"22", OUT_INVALID_PARAMS, false},	/* data exception: a value the database cannot take */
};

const struct outcome *
outcome_of(enum outcome_kind kind)
{
	if ((int) kind < 0 || kind >= N_OUTCOMES)
		kind = OUT_INTERNAL;
	return &table[kind];
}

void
outcome_wire(enum outcome_kind kind, enum outcome_era era, unsigned *http_status, int *rpc_code)
{
	const struct outcome *o = outcome_of(kind);

	*http_status = era == ERA_WIRE_LEGACY && o->legacy_http_status ? o->legacy_http_status : o->http_status;
	*rpc_code = era == ERA_WIRE_LEGACY && o->legacy_rpc_code ? o->legacy_rpc_code : o->rpc_code;
}

enum outcome_kind
outcome_from_extension(const char *kind, bool *known)
{
	*known = false;
	for (int k = 0; k < N_OUTCOMES && kind != NULL; k++)
		if (table[k].extension_kind && strcmp(table[k].kind, kind) == 0)
		{
			*known = true;
			return (enum outcome_kind) k;
		}
	return OUT_INTERNAL;
}

enum outcome_kind
outcome_from_sqlstate(const char *sqlstate, bool connection_ok, bool closing, bool *retry)
{
	*retry = false;
	if (sqlstate == NULL)
		return connection_ok ? OUT_INTERNAL : OUT_DATABASE_UNAVAILABLE;
	for (size_t i = 0; i < sizeof(sqlstates) / sizeof(sqlstates[0]); i++)
		if (strncmp(sqlstate, sqlstates[i].pattern, strlen(sqlstates[i].pattern)) == 0)
		{
			*retry = sqlstates[i].retry;
			if (sqlstates[i].kind == OUT_STATEMENT_TIMEOUT && closing)
				return OUT_SHUTTING_DOWN;	/* cancelled by the drain deadline */
			return sqlstates[i].kind;
		}
	return OUT_INTERNAL;
}

const char *
outcome_message(enum outcome_kind kind, char *buf, size_t n)
{
	const struct outcome *o = outcome_of(kind);

	if (kind != OUT_RETRIES_EXHAUSTED)
		return o->message;
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(buf, n, o->message, gw_cfg.tool_call_attempts);
#pragma GCC diagnostic pop
	return buf;
}
