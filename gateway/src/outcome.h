/*
 * outcome.h
 *		The one outcome table: every way a request can end, whether the
 *		gateway, the extension (an outcome object's error.kind) or a SQLSTATE
 *		decided it, and what each becomes on the wire (HTTP status, JSON-RPC
 *		code or OAuth error, Retry-After, the WWW-Authenticate challenge).  docs/gateway.md
 *		prints it.
 */
#ifndef GW_OUTCOME_H
#define GW_OUTCOME_H

#include <stdbool.h>
#include <stddef.h>

enum outcome_kind
{
	OUT_OK = 0,					/* a result */
	/* the envelope (gateway) */
	OUT_PARSE_ERROR,
	OUT_INVALID_REQUEST,
	OUT_INVALID_META,
	OUT_HEADER_MISMATCH,
	OUT_UNSUPPORTED_VERSION,
	OUT_METHOD_NOT_FOUND,
	OUT_CREDENTIALS_MISSING,	/* no Authorization header */
	/* the extension may return these (error.kind) */
	OUT_UNAUTHENTICATED,
	OUT_INVALID_PARAMS,
	OUT_MISSING_CAPABILITY,
	OUT_INSUFFICIENT_SCOPE,		/* a JWT without a scope the request needs (403) */
	/* ... and these, for the 2025-era adapter (docs/legacy-era.md) */
	OUT_SESSION_NOT_FOUND,
	OUT_NO_PENDING_REQUEST,
	OUT_INPUT_PENDING,			/* a retry came before the client answered: the waiter waits on */
	OUT_SESSION_REQUIRED,		/* (gateway) a 2025-era request without Mcp-Session-Id */
	OUT_STREAM_LIMIT,			/* too many open streams (per principal, or on this gateway) */
	/* the database connection (SQLSTATE, pool) */
	OUT_DATABASE_UNAVAILABLE,
	OUT_DATABASE_BUSY,
	OUT_RETRIES_EXHAUSTED,
	OUT_SHUTTING_DOWN,
	OUT_STATEMENT_TIMEOUT,
	OUT_INCOMPATIBLE_EXTENSION,
	OUT_INTERNAL,
	N_OUTCOMES
};

struct outcome
{
	const char *kind;			/* the name, as error.kind spells it */
	unsigned	http_status;
	int			rpc_code;
	bool		retry_after;	/* add Retry-After: 1 */
	/*
	 * A Bearer challenge (WWW-Authenticate, prm.c) with this error code, ""
	 * for one without (no credentials were sent); NULL = no challenge.
	 */
	const char *challenge;
	const char *message;		/* the client's message when the caller has none */
	bool		extension_kind; /* handle() may return it */
	/*
	 * A 401 or 403 with a challenge: the body is the OAuth error object {"error": oauth_error,
	 * "error_description": message} of RFC 6750 / OAuth 2.1 section 5.3, as
	 * the official MCP SDKs answer, and there is no JSON-RPC code (rpc_code
	 * 0): MCP 2026-07-28 defines none for an unauthenticated request, and
	 * -32000..-32019 are legacy codes new implementations should not send.
	 */
	const char *oauth_error;
	/*
	 * The 2025 era (2025-11-25 and older) answers some outcomes otherwise:
	 * a JSON-RPC error is HTTP 200 there, and it has no -32021.  0 = as
	 * above.
	 */
	unsigned	legacy_http_status;
	int			legacy_rpc_code;
};

/* which wire an outcome goes out on */
enum outcome_era
{
	ERA_WIRE_MODERN,
	ERA_WIRE_LEGACY
};

extern const struct outcome *outcome_of(enum outcome_kind kind);

/* The HTTP status and JSON-RPC code of kind on era's wire. */
extern void outcome_wire(enum outcome_kind kind, enum outcome_era era, unsigned *http_status, int *rpc_code);

/* A kind handle() may return, by name; OUT_INTERNAL for any other name. */
extern enum outcome_kind outcome_from_extension(const char *kind, bool *known);

/*
 * A failed statement, by SQLSTATE (NULL when libpq has none): *retry is set
 * for 40001/40P01, which guarantee a rollback and are run again.
 * connection_ok: PQstatus after the failure; closing: the pool is shutting
 * down (a cancelled statement is then shutting_down, not a timeout).
 */
extern enum outcome_kind outcome_from_sqlstate(const char *sqlstate, bool connection_ok,
											   bool closing, bool *retry);

/* The client's message of a database-side outcome into buf (retries_exhausted names the attempts). */
extern const char *outcome_message(enum outcome_kind kind, char *buf, size_t n);

#endif							/* GW_OUTCOME_H */
