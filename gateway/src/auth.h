/*
 * auth.h
 *		Bearer tokens from the Authorization header (RFC 6750).
 *
 * The gateway never decides whether a token is valid: it only extracts it,
 * and the database resolves it (mcp_notes.authenticate / handle).  Tokens
 * are never logged.
 */
#ifndef GW_AUTH_H
#define GW_AUTH_H

enum auth_result
{
	AUTH_OK = 0,
	AUTH_MISSING,				/* no Authorization header */
	AUTH_MALFORMED				/* not "Bearer <token68>", repeated, or too long */
};

/*
 * header: the first Authorization value (NULL if none), count: how many
 * Authorization headers the request had.  On AUTH_OK *token is malloc'd.
 */
extern enum auth_result auth_bearer_token(const char *header, int count, char **token);

/* WWW-Authenticate values for a 401 */
#define AUTH_CHALLENGE_MISSING	"Bearer realm=\"mcp-notes\""
#define AUTH_CHALLENGE_INVALID	"Bearer realm=\"mcp-notes\", error=\"invalid_token\""

#endif							/* GW_AUTH_H */
