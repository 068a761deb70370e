/* TEMPORARY: merged into uri.c once that file settles. */
#include "postgres.h"

#include "fmgr.h"
#include "utils/builtins.h"

#include "uri.h"

PG_FUNCTION_INFO_V1(mcp_notes_uri_problem);

/* _uri_problem(uri) — NULL when the URI is well formed, else why it is not. */
Datum
mcp_notes_uri_problem(PG_FUNCTION_ARGS)
{
	text	   *uri = PG_GETARG_TEXT_PP(0);
	char	   *normalized;
	const char *problem;

	if (mcpn_normalize_uri(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &normalized, &problem))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(problem));
}
