/*
 * prm.c
 *		Protected Resource Metadata and the Bearer challenges (prm.h).
 *
 * The public URL is the RFC 8707 resource clients ask tokens for and the
 * audience the database checks (mcp_notes.oauth_resource must hold the same
 * string): it is configured, never derived from Host, so a client cannot be
 * told to fetch tokens for another name by a forged header.  Plain http is
 * accepted only for a loopback host (development, tests), as the MCP
 * clients accept token endpoints.
 */
#include "prm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <json-c/json.h>

#include "config.h"
#include "log.h"

#define WELL_KNOWN	"/.well-known/oauth-protected-resource"

static char *document;			/* built once by prm_init(), then read-only */
static char *path_inserted;		/* WELL_KNOWN + the public URL's path, or NULL for "/" */
static char *metadata_url;		/* the resource_metadata of the challenges */

static bool
host_is_loopback(const char *host, size_t n)
{
	if ((n == 9 && strncasecmp(host, "localhost", 9) == 0) || (n == 5 && strncmp(host, "[::1]", 5) == 0))
		return true;
	if (n < 4 || strncmp(host, "127.", 4) != 0)
		return false;
	for (size_t i = 4; i < n; i++)
		if (!((host[i] >= '0' && host[i] <= '9') || host[i] == '.'))
			return false;
	return true;
}

/*
 * NULL when url is an absolute https URL (http on a loopback host) with no
 * userinfo, query or fragment, else why not; *path is where its path begins.
 */
static const char *
url_problem(const char *url, const char **path)
{
	bool		https = strncmp(url, "https://", 8) == 0;
	const char *host = url + (https ? 8 : 7);
	const char *end;

	if (!https && strncmp(url, "http://", 7) != 0)
		return "must begin with https:// (or http:// for a loopback host)";
	for (const char *p = url; *p; p++)
		if ((unsigned char) *p <= 0x20 || (unsigned char) *p >= 0x7f || strchr("?#@\"\\", *p))
			return "must have no userinfo, query, fragment, quotes, spaces or non-ASCII characters";
	end = host;
	if (*end == '[')
		end = strchr(end, ']') ? strchr(end, ']') + 1 : end + strlen(end);
	else
		while (*end && *end != ':' && *end != '/')
			end++;
	if (end == host)
		return "has no host";
	if (!https && !host_is_loopback(host, (size_t) (end - host)))
		return "uses http:// for a host that is not loopback: use https://";
	if (*end == ':')
	{
		const char *digits = ++end;

		while (*end >= '0' && *end <= '9')
			end++;
		if (end == digits || end - digits > 5)
			return "has a malformed port";
	}
	if (*end != '\0' && *end != '/')
		return "has a malformed host";
	*path = end;
	return NULL;
}

static char *
build_document(char **servers, size_t n_servers)
{
	static const char *const scopes[] = PRM_SCOPES_SUPPORTED;
	json_object *o = json_object_new_object();
	json_object *as = json_object_new_array();
	json_object *sc = json_object_new_array();
	json_object *bm = json_object_new_array();
	char	   *text;

	for (size_t i = 0; i < n_servers; i++)
		json_object_array_add(as, json_object_new_string(servers[i]));
	for (size_t i = 0; i < sizeof(scopes) / sizeof(scopes[0]); i++)
		json_object_array_add(sc, json_object_new_string(scopes[i]));
	json_object_array_add(bm, json_object_new_string("header"));
	json_object_object_add(o, "resource", json_object_new_string(gw_cfg.public_url));
	json_object_object_add(o, "authorization_servers", as);
	json_object_object_add(o, "scopes_supported", sc);
	json_object_object_add(o, "bearer_methods_supported", bm);
	json_object_object_add(o, "resource_name", json_object_new_string("mcp_notes"));
	text = strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(o);
	return text;
}

/* --authorization-servers split at commas, each an issuer URL */
static int
split_servers(char ***out, size_t *n)
{
	char	   *copy = strdup(gw_cfg.authorization_servers ? gw_cfg.authorization_servers : "");
	char	   *save = NULL;
	const char *unused;

	*out = NULL;
	*n = 0;
	for (char *s = copy ? strtok_r(copy, ", \t", &save) : NULL; s; s = strtok_r(NULL, ", \t", &save))
	{
		const char *why = url_problem(s, &unused);
		char	  **grown;

		if (why != NULL)
		{
			log_event(GW_LOG_ERROR, "config_error", "--authorization-servers: \"%s\" %s", s, why);
			free(copy);
			return -1;
		}
		grown = realloc(*out, (*n + 1) * sizeof(char *));
		if (grown == NULL || (grown[*n] = strdup(s)) == NULL)
			break;
		*out = grown;
		(*n)++;
	}
	free(copy);
	return 0;
}

int
prm_init(void)
{
	const char *path;
	const char *why;
	char	  **servers;
	size_t		n_servers;
	size_t		origin_len;
	int			rc = 0;

	if (gw_cfg.public_url == NULL || gw_cfg.public_url[0] == '\0')
		return 0;
	if ((why = url_problem(gw_cfg.public_url, &path)) != NULL)
	{
		log_event(GW_LOG_ERROR, "config_error", "--public-url %s", why);
		return -1;
	}
	if (split_servers(&servers, &n_servers) != 0)
		return -1;
	if (n_servers == 0)
	{
		log_event(GW_LOG_ERROR, "config_error",
				  "--public-url needs --authorization-servers (the metadata must name at least one issuer)");
		return -1;
	}
	document = build_document(servers, n_servers);
	origin_len = (size_t) (path - gw_cfg.public_url);
	if (path[0] != '\0' && strcmp(path, "/") != 0)
	{
		path_inserted = malloc(strlen(WELL_KNOWN) + strlen(path) + 1);
		if (path_inserted)
			sprintf(path_inserted, "%s%s", WELL_KNOWN, path);
	}
	metadata_url = malloc(origin_len + strlen(WELL_KNOWN) + strlen(path) + 1);
	if (metadata_url)
		sprintf(metadata_url, "%.*s%s", (int) origin_len, gw_cfg.public_url,
				path_inserted ? path_inserted : WELL_KNOWN);
	if (document == NULL || metadata_url == NULL)
		rc = -1;
	for (size_t i = 0; i < n_servers; i++)
		free(servers[i]);
	free(servers);
	return rc;
}

void
prm_free(void)
{
	free(document);
	free(path_inserted);
	free(metadata_url);
	document = path_inserted = metadata_url = NULL;
}

bool
prm_enabled(void)
{
	return document != NULL;
}

const char *
prm_document(const char *path)
{
	if (document == NULL || path == NULL)
		return NULL;
	if (strcmp(path, WELL_KNOWN) == 0 || (path_inserted && strcmp(path, path_inserted) == 0))
		return document;
	return NULL;
}

/* scope-token = 1*( %x21 / %x23-5B / %x5D-7E ) (RFC 6749 appendix A.4) */
static bool
scope_char(char c)
{
	return c == 0x21 || (c >= 0x23 && c <= 0x5B) || (c >= 0x5D && c <= 0x7E);
}

/* the valid scope-tokens of scopes, space-separated, into out (n bytes) */
static void
clean_scopes(const char *scopes, char *out, size_t n)
{
	size_t		used = 0;
	const char *p = scopes;

	out[0] = '\0';
	while (*p)
	{
		const char *start;
		bool		ok = true;

		while (*p == ' ')
			p++;
		start = p;
		while (*p && *p != ' ')
			ok &= scope_char(*p++);
		if (p > start && ok && used + (size_t) (p - start) + 2 < n)
		{
			used += (size_t) snprintf(out + used, n - used, "%s%.*s", used ? " " : "", (int) (p - start), start);
		}
	}
}

const char *
prm_challenge(const char *error, const char *scopes, char *buf, size_t n)
{
	char		clean[256];
	int			w;

	clean_scopes(scopes ? scopes : PRM_CHALLENGE_SCOPE, clean, sizeof(clean));
	if (clean[0] == '\0')
		snprintf(clean, sizeof(clean), "%s", PRM_CHALLENGE_SCOPE);
	w = snprintf(buf, n, "Bearer realm=\"mcp-notes\"%s%s%s", error ? ", error=\"" : "", error ? error : "",
				 error ? "\"" : "");
	if (metadata_url && w > 0 && (size_t) w < n)
		snprintf(buf + w, n - (size_t) w, ", resource_metadata=\"%s\", scope=\"%s\"", metadata_url, clean);
	else if (w > 0 && (size_t) w < n && scopes != NULL)
		snprintf(buf + w, n - (size_t) w, ", scope=\"%s\"", clean);
	return buf;
}
