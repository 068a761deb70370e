/*
 * extension.h
 *		What the database's extension serves: mcp_notes.features(), read once
 *		per process (docs/contract.md).  Until it has been read, nothing that
 *		depends on it (the method check, the public results, server/discover,
 *		the token cache) is answered from memory.
 *
 * Thread safety: the state is guarded by a mutex; once it is FEATURES_OK the
 * values never change until features_shutdown(), so the strings returned
 * below stay valid and need no lock.
 */
#ifndef GW_EXTENSION_H
#define GW_EXTENSION_H

#include <stdbool.h>
#include <stddef.h>

#include "db.h"

/* true once a compatible features() has been read (never blocks) */
extern bool features_ready(void);

/*
 * Read features() unless it has been read: OUT_OK, the database failure
 * (OUT_DATABASE_UNAVAILABLE, ...), or OUT_INCOMPATIBLE_EXTENSION with
 * err->message saying what was found and what is needed.  A failed read is
 * tried again by the next caller (an incompatible extension at most once a
 * second, so an ALTER EXTENSION ... UPDATE is noticed without a restart).
 * May block on the database.
 */
extern enum outcome_kind features_ensure(struct db_error *err);

/* method is server/discover or in features().methods (features_ready() only) */
extern bool features_method_known(const char *method);

/*
 * method is routed in that era (features_ready() only): features().methods
 * (both eras; server/discover in the modern one) or the era's own list,
 * modernMethods (subscriptions/listen) or legacyMethods (ping,
 * logging/setLevel, resources/subscribe, resources/unsubscribe).
 */
extern bool features_era_method_known(const char *method, bool legacy);

/* features().subscriptions.changeChannel / streamChannel, or NULL */
extern const char *features_change_channel(void);
extern const char *features_stream_channel(void);

/*
 * The serialized result for a features().publicResults method (with
 * resultType and _meta.serverInfo), or NULL when method has none.
 */
extern const char *features_public_result(const char *method);

/*
 * The x-mcp-header declarations of the tools in the public tools/list
 * (paramheaders.h), or NULL until features() has been read.
 */
struct param_table;
extern const struct param_table *features_param_table(void);

/* The serialized server/discover result. */
extern const char *features_discover_result(void);

/* features().tokenChannel, or NULL when absent or not read yet */
extern const char *features_token_channel(void);

/* features().internalMethods has method (the 2025-era adapter's, extension 1.4 and later) */
extern bool features_has_internal(const char *method);

/* the channel internal method notifies, or NULL */
extern const char *features_internal_channel(const char *method);

/* the extension version found into buf[n] ("" until known) */
extern void features_extension_version(char *buf, size_t n);

extern void features_shutdown(void);

#endif							/* GW_EXTENSION_H */
