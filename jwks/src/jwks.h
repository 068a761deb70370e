/*
 * jwks.h
 *		mcp-notes-jwks: keeps the signing keys of the OAuth issuers an
 *		operator configured (mcp_notes.oauth_issuers) in the database, read
 *		from each issuer's metadata (jwks_uri), so the extension can verify
 *		JWT access tokens without the gateways ever fetching or writing keys.
 *
 * Modules: main.c (settings, the loop), fetch.c (HTTP with libcurl, the
 * metadata and JWKS checks), store.c (the database, as a role that may only
 * run mcp_notes.jwks_issuers/jwks_store/jwks_failed), log.c (JSON lines).
 */
#ifndef JWKS_H
#define JWKS_H

#include <stdbool.h>
#include <stddef.h>

#define JWKS_VERSION		"2.2.0"
#define JWKS_CHANNEL		"mcp_notes_jwks"	/* NOTIFY'd by the extension for an early refresh */
#define JWKS_MAX_ISSUERS	64
#define JWKS_MAX_CONNECT_TO	8

struct jwks_config
{
	const char *db;				/* libpq conninfo; "" = the PG* environment */
	bool		once;			/* fetch every issuer once, then exit */
	long		refresh_s;		/* every issuer is fetched at least this often */
	long		min_interval_s; /* an early refresh of one issuer at most this often */
	long		timeout_ms;		/* of one HTTP request, connect included */
	long		max_bytes;		/* of one HTTP answer */
	const char *ca_file;		/* NULL = the system's CA bundle */
	const char *connect_to[JWKS_MAX_CONNECT_TO];	/* curl --connect-to HOST:PORT:HOST2:PORT2 */
	int			n_connect_to;
	bool		allow_http;		/* development only: http:// URLs */
};

extern struct jwks_config jwks_cfg;

/* ---- log.c ---- */
enum
{
	JLOG_ERROR = 0,
	JLOG_WARN,
	JLOG_INFO
};
/* one JSON line on stderr: {"ts","level","event", then key/value string pairs (NULL-terminated)} */
extern void jlog(int level, const char *event, ...);

/* ---- fetch.c ---- */
extern int	fetch_init(void);
extern void fetch_cleanup(void);

/*
 * The JWKS of issuer, from its metadata at metadata_url: the metadata's
 * "issuer" must be exactly issuer and its jwks_uri an https (or, with
 * --allow-http, http) URL; the JWKS must be a JSON object with a "keys"
 * array.  Returns 0 with *jwks_text (malloc'd JSON) and *jwks_uri
 * (malloc'd), or -1 with why (a sentence) in problem.
 */
extern int	fetch_jwks(const char *issuer, const char *metadata_url, char **jwks_uri, char **jwks_text,
					   char *problem, size_t problem_len);

/* ---- store.c ---- */
struct issuer
{
	char	   *issuer;
	char	   *metadata_url;
};

/* connect and LISTEN; -1 when the database cannot be reached (logged) */
extern int	store_connect(void);
extern void store_disconnect(void);
extern bool store_connected(void);
extern int	store_socket(void);

/* the issuers to fetch (malloc'd array and strings, free with store_free_issuers); -1 on error */
extern int	store_issuers(struct issuer **out, int *n);
extern void store_free_issuers(struct issuer *list, int n);

/* the keys of issuer; the number of keys the database kept, or -1 (logged) */
extern int	store_keys(const char *issuer, const char *jwks_uri, const char *jwks_text);
extern void store_failure(const char *issuer, const char *problem);

/*
 * Reads the notifications that arrived: sets *all when one named no issuer,
 * else adds each named issuer (malloc'd) to names (at most max).  -1 when the
 * connection was lost.
 */
extern int	store_notifications(char **names, int max, int *n, bool *all);

#endif							/* JWKS_H */
