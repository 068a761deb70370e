/*
 * prm.h
 *		OAuth 2.0 Protected Resource Metadata (RFC 9728) and the Bearer
 *		challenges that point to it (RFC 6750 section 3, RFC 9728 section
 *		5.1), from --public-url and --authorization-servers.
 *
 * The metadata is configuration, built once at startup and the same on
 * every gateway configured alike: which tokens are valid is decided by the
 * database (mcp_notes.handle), never here.  Without --public-url there is
 * no metadata and the challenges stay `Bearer realm="mcp-notes"` as before.
 */
#ifndef GW_PRM_H
#define GW_PRM_H

#include <stdbool.h>
#include <stddef.h>

/* the scopes of docs/security.md; a 401 asks for the first (what every method needs) */
#define PRM_SCOPES_SUPPORTED	{"notes.read", "notes.write", "notes.delete"}
#define PRM_CHALLENGE_SCOPE		"notes.read"

/* Checks the settings and builds the document; -1 after logging a config_error. */
extern int	prm_init(void);
extern void prm_free(void);

/* --public-url is set */
extern bool prm_enabled(void);

/*
 * The metadata document when path is /.well-known/oauth-protected-resource
 * followed by the public URL's path (RFC 9728 section 3.1), or that prefix
 * alone; else NULL.
 */
extern const char *prm_document(const char *path);

/*
 * The WWW-Authenticate value of a 401 or 403 into buf: error NULL (no
 * credentials were sent: no error code, RFC 6750 section 3.1),
 * "invalid_token" or "insufficient_scope"; scopes the space-separated
 * scopes the request needs (NULL: PRM_CHALLENGE_SCOPE).  A scope that is
 * not an RFC 6749 scope-token is left out, so nothing from the database can
 * break the header.
 */
extern const char *prm_challenge(const char *error, const char *scopes, char *buf, size_t n);

#endif							/* GW_PRM_H */
