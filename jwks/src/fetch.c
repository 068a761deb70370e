/*
 * fetch.c
 *		The issuer's metadata and its JWKS over HTTPS (libcurl).
 *
 * What an answer may be is bounded: https only (http with --allow-http, for
 * development), no redirects (a redirect could move the keys elsewhere),
 * --timeout-ms for the whole exchange, --max-bytes of body, status 200, and
 * a JSON object.  The metadata's "issuer" must equal the configured issuer
 * exactly (RFC 8414 section 3.3), so metadata served for another issuer is
 * never believed.  The database checks every key again (jwks_store).
 */
#include "jwks.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <curl/curl.h>
#include <json-c/json.h>

struct body
{
	char	   *data;
	size_t		len;
	bool		too_long;
};

static size_t
take_body(char *ptr, size_t size, size_t nmemb, void *userdata)
{
	struct body *b = userdata;
	size_t		n = size * nmemb;
	char	   *grown;

	if (b->len + n > (size_t) jwks_cfg.max_bytes)
	{
		b->too_long = true;
		return 0;				/* curl stops with CURLE_WRITE_ERROR */
	}
	grown = realloc(b->data, b->len + n + 1);
	if (grown == NULL)
		return 0;
	b->data = grown;
	memcpy(b->data + b->len, ptr, n);
	b->len += n;
	b->data[b->len] = '\0';
	return n;
}

int
fetch_init(void)
{
	return curl_global_init(CURL_GLOBAL_DEFAULT) == CURLE_OK ? 0 : -1;
}

void
fetch_cleanup(void)
{
	curl_global_cleanup();
}

/* the options every request has */
static struct curl_slist *
setup(CURL *c, const char *url, struct body *b, char *errbuf)
{
	struct curl_slist *connect_to = NULL;

	curl_easy_setopt(c, CURLOPT_URL, url);
	curl_easy_setopt(c, CURLOPT_PROTOCOLS_STR, jwks_cfg.allow_http ? "https,http" : "https");
	curl_easy_setopt(c, CURLOPT_FOLLOWLOCATION, 0L);
	curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(c, CURLOPT_TIMEOUT_MS, jwks_cfg.timeout_ms);
	curl_easy_setopt(c, CURLOPT_CONNECTTIMEOUT_MS, jwks_cfg.timeout_ms);
	curl_easy_setopt(c, CURLOPT_MAXFILESIZE_LARGE, (curl_off_t) jwks_cfg.max_bytes);
	curl_easy_setopt(c, CURLOPT_USERAGENT, "mcp-notes-jwks/" JWKS_VERSION);
	curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, take_body);
	curl_easy_setopt(c, CURLOPT_WRITEDATA, b);
	curl_easy_setopt(c, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(c, CURLOPT_SSL_VERIFYHOST, 2L);
	if (jwks_cfg.ca_file)
		curl_easy_setopt(c, CURLOPT_CAINFO, jwks_cfg.ca_file);
	for (int i = 0; i < jwks_cfg.n_connect_to; i++)
		connect_to = curl_slist_append(connect_to, jwks_cfg.connect_to[i]);
	if (connect_to)
		curl_easy_setopt(c, CURLOPT_CONNECT_TO, connect_to);
	return connect_to;
}

/* GET url -> a JSON object (caller puts it), or NULL with problem set */
static json_object *
get_json(const char *url, const char *what, char **text, char *problem, size_t problem_len)
{
	CURL	   *c = curl_easy_init();
	struct body b = {0};
	char		errbuf[CURL_ERROR_SIZE] = "";
	struct curl_slist *connect_to;
	CURLcode	rc;
	long		status = 0;
	json_object *o = NULL;

	if (c == NULL)
	{
		snprintf(problem, problem_len, "out of memory");
		return NULL;
	}
	connect_to = setup(c, url, &b, errbuf);
	rc = curl_easy_perform(c);
	curl_easy_getinfo(c, CURLINFO_RESPONSE_CODE, &status);
	curl_easy_cleanup(c);
	curl_slist_free_all(connect_to);
	if (b.too_long || rc == CURLE_FILESIZE_EXCEEDED)
		snprintf(problem, problem_len, "the %s is larger than %ld bytes", what, jwks_cfg.max_bytes);
	else if (rc != CURLE_OK)
		snprintf(problem, problem_len, "GET %s failed: %s", url, errbuf[0] ? errbuf : curl_easy_strerror(rc));
	else if (status != 200)
		snprintf(problem, problem_len, "GET %s answered HTTP %ld (redirects are not followed)", url, status);
	else if (b.data == NULL || (o = json_tokener_parse(b.data)) == NULL || !json_object_is_type(o, json_type_object))
		snprintf(problem, problem_len, "the %s at %s is not a JSON object", what, url);
	else if (text)
	{
		*text = b.data;
		return o;
	}
	if (o && problem[0])
	{
		json_object_put(o);
		o = NULL;
	}
	free(b.data);
	return o;
}

static const char *
string_member(json_object *o, const char *key)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, json_type_string))
		return NULL;
	return json_object_get_string(v);
}

int
fetch_jwks(const char *issuer, const char *metadata_url, char **jwks_uri, char **jwks_text,
		   char *problem, size_t problem_len)
{
	json_object *meta;
	json_object *set;
	json_object *keys;
	const char *named;
	const char *uri;

	*jwks_uri = *jwks_text = NULL;
	problem[0] = '\0';
	if ((meta = get_json(metadata_url, "metadata", NULL, problem, problem_len)) == NULL)
		return -1;
	named = string_member(meta, "issuer");
	uri = string_member(meta, "jwks_uri");
	if (named == NULL || strcmp(named, issuer) != 0)
		snprintf(problem, problem_len, "the metadata at %s names issuer \"%.200s\", not this one",
				 metadata_url, named ? named : "(none)");
	else if (uri == NULL)
		snprintf(problem, problem_len, "the metadata at %s has no jwks_uri", metadata_url);
	else
		*jwks_uri = strdup(uri);
	json_object_put(meta);
	if (*jwks_uri == NULL)
		return -1;
	if ((set = get_json(*jwks_uri, "JWKS", jwks_text, problem, problem_len)) == NULL)
		return -1;
	if (!json_object_object_get_ex(set, "keys", &keys) || !json_object_is_type(keys, json_type_array))
	{
		snprintf(problem, problem_len, "the JWKS at %s has no \"keys\" array", *jwks_uri);
		free(*jwks_text);
		*jwks_text = NULL;
	}
	json_object_put(set);
	return *jwks_text ? 0 : -1;
}
