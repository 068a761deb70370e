/*
 * legacywire.h
 *		What the legacy era (2025-11-25, 2025-06-18, 2025-03-26) looks like
 *		on the wire: its versions, and an outcome of handle() as a legacy
 *		JSON-RPC message (docs/legacy-era.md).  Shared by the HTTP adapter
 *		(legacy.c, stream.c) and stdio (stdio.c).
 */
#ifndef GW_LEGACYWIRE_H
#define GW_LEGACYWIRE_H

#include <stdbool.h>
#include <json-c/json.h>

#include "config.h"
#include "outcome.h"

#define LEGACY_LATEST_VERSION	"2025-11-25"

/*
 * The statement calling a legacy-era session entry point: name(token, ...)
 * for the bearer token, name_as(principal, ...) with --insecure-dev-principal.
 */
#define LEGACY_SQL(name, args) (gw_cfg.insecure_dev_principal \
	? "SELECT mcp_notes." name "_as(" args ")::text" : "SELECT mcp_notes." name "(" args ")::text")

/* version is one of the legacy versions served */
extern bool legacy_version_supported(const char *version);

/* ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]: every version served */
extern json_object *legacy_all_versions(void);

/* what an outcome became */
struct legacy_out
{
	json_object *message;		/* the JSON-RPC response; NULL when input_required is set */
	json_object *input_required;	/* the result, when it asks the client (resultType input_required) */
	json_object *notifications;	/* [{method, params}] to send before a result (progress), or NULL */
	enum outcome_kind kind;		/* OUT_OK, or the error kind (a 401 or 403 challenge is the caller's to send) */
	json_object *challenge_data;	/* that challenge's error.data (the scopes a 403 names), or NULL */
	int			code;			/* JSON-RPC error code, 0 = a result */
	char		reason[64];
	char		message_text[160];
};

/*
 * The outcome object handle() returned (text), for the request with this
 * id.  A result loses what the legacy schema does not have (resultType,
 * ttlMs, cacheScope); an error of a kind the outcome table knows becomes a
 * JSON-RPC error with the table's code (missing_capability: -32602, the
 * legacy era has no -32021), any other is -32603.  A result's
 * "notifications" (docs/contract.md) are kept for the caller to send first.
 */
extern void legacy_translate(json_object *id, const char *outcome_text, struct legacy_out *out);

/* {"jsonrpc":"2.0","method":...,"params":...} of a notifications entry; NULL when it is not {method: string} */
extern json_object *legacy_notification(json_object *entry);

/* A JSON-RPC error message (data consumed); id NULL = without an id. */
extern json_object *legacy_error(json_object *id, int code, const char *message, json_object *data);

/* {"jsonrpc":"2.0","id":id,"result":result} (result consumed) */
extern json_object *legacy_result(json_object *id, json_object *result);

/* A tool result with one text block and isError, for what the adapter itself decides. */
extern json_object *legacy_tool_error(const char *text);

#endif							/* GW_LEGACYWIRE_H */
