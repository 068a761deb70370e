/*
 * legacywire.h
 *		What the legacy era (2025-11-25, 2025-06-18, 2025-03-26) looks like
 *		on the wire: its versions, and an outcome of handle() as a legacy
 *		JSON-RPC message (docs/legacy-era.md).  Shared by the adapter's
 *		requests (legacy.c) and its answer loop (legacyask.c).
 */
#ifndef GW_LEGACYWIRE_H
#define GW_LEGACYWIRE_H

#include <stdbool.h>
#include <json-c/json.h>

#include "outcome.h"

#define LEGACY_LATEST_VERSION	"2025-11-25"

/* version is one of the legacy versions served */
extern bool legacy_version_supported(const char *version);

/* ["2026-07-28", "2025-11-25", "2025-06-18", "2025-03-26"]: every version served */
extern json_object *legacy_all_versions(void);

/*
 * An outcome object of handle() (text) parsed: exactly one of result,
 * input_required (a result that asks the client, with pending: the pending
 * requests a session request recorded, {key: {pendingId, id}}) or error is
 * set; notifications beside a result.  NULL members are absent.  Every
 * member holds a reference; legacy_outcome_free drops them.
 */
struct legacy_outcome
{
	json_object *result;		/* in the legacy shape: resultType, ttlMs, cacheScope removed */
	json_object *input_required;
	json_object *pending;
	json_object *notifications;
	json_object *error;			/* {"kind", "message", "data"} */
	enum outcome_kind kind;		/* OUT_OK, the error's kind, or OUT_INTERNAL when text is no outcome */
};

extern void legacy_outcome_read(const char *text, struct legacy_outcome *out);
extern void legacy_outcome_free(struct legacy_outcome *out);

/*
 * The JSON-RPC error message of an outcome's error on the 2025 wire: the
 * outcome table's legacy code (missing_capability: -32602, the era has no
 * -32021), -32001 for an unauthenticated token on a stream (no HTTP status
 * can say it there), -32603 for an unknown kind.
 */
extern json_object *legacy_error_message(json_object *id, const struct legacy_outcome *out);

/* {"jsonrpc":"2.0","method":...,"params":...} of a notifications entry; NULL when it is not {method: string} */
extern json_object *legacy_notification(json_object *entry);

/* A JSON-RPC error message (data consumed); id NULL = without an id. */
extern json_object *legacy_error(json_object *id, int code, const char *message, json_object *data);

/* {"jsonrpc":"2.0","id":id,"result":result} (result consumed) */
extern json_object *legacy_result(json_object *id, json_object *result);

/* A tool result with one text block and isError, for what the adapter itself decides. */
extern json_object *legacy_tool_error(const char *text);

#endif							/* GW_LEGACYWIRE_H */
