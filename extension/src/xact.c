/*
 * xact.c
 *		The guard of the token-taking entry points: the statement that
 *		presents a bearer token must be its own transaction, begun just now.
 *
 * A token is judged by the transaction's snapshot.  In a transaction block
 * (BEGIN ..., several statements sent as one query, a pipeline of Execute
 * messages without Sync) or in a statement that has been running for a
 * while (a DO block that slept), that snapshot may predate a revocation, so
 * a revoked or expired token would still be accepted and the act would be
 * audited at a time before the revocation.  handle(), call_tool() and
 * authenticate() call mcp_notes._require_own_transaction() first.
 */
#include "postgres.h"

#include "access/xact.h"
#include "fmgr.h"
#include "utils/builtins.h"
#include "utils/timestamp.h"

/*
 * How old the transaction may be when an entry point is entered.  A single
 * statement from a gateway reaches it within microseconds of its Parse (or
 * Query) message; this bound only has to be far above that and far below
 * the time an operator needs to notice a leaked token.
 */
#define MCPN_MAX_TRANSACTION_AGE_MS 5000

PG_FUNCTION_INFO_V1(mcp_notes_require_own_transaction);

Datum
mcp_notes_require_own_transaction(PG_FUNCTION_ARGS)
{
	char	   *entry = text_to_cstring(PG_GETARG_TEXT_PP(0));
	TimestampTz began = GetCurrentTransactionStartTimestamp();

	if (IsTransactionBlock() || IsSubTransaction() || (MyXactFlags & XACT_FLAGS_PIPELINING) != 0)
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("%s must be its own transaction", entry),
				 errdetail("It was called inside a transaction block (BEGIN, several statements in one query, "
						   "a savepoint or a pipeline); a bearer token is judged by the transaction's snapshot, "
						   "which may predate its revocation or expiry."),
				 errhint("Send it as a single statement outside BEGIN ... COMMIT, as mcp-notes-gateway does.")));
	if (TimestampDifferenceExceeds(began, GetCurrentTimestamp(), MCPN_MAX_TRANSACTION_AGE_MS))
		ereport(ERROR,
				(errcode(ERRCODE_ACTIVE_SQL_TRANSACTION),
				 errmsg("%s must be called when its transaction begins", entry),
				 errdetail("Its transaction began more than %d ms earlier; a bearer token is judged by the "
						   "transaction's snapshot, which may predate its revocation or expiry.",
						   MCPN_MAX_TRANSACTION_AGE_MS),
				 errhint("Send it as a single statement of its own, as mcp-notes-gateway does.")));
	PG_RETURN_VOID();
}
