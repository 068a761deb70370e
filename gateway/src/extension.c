/*
 * extension.c
 *		mcp_notes.features(): read, checked against the contract this gateway
 *		speaks, and turned into what the gateway answers from memory.
 *
 * Read by the first caller that needs it (a worker, /readyz, the token
 * cache's listener, or startup) and kept for the life of the process: what
 * an extension serves changes only with ALTER EXTENSION ... UPDATE, after
 * which gateways are restarted (rolling).  An extension without features()
 * (1.0, 1.1) or with another contract is refused: every request gets 503
 * and /readyz 503, with one log line naming what was found and what is
 * needed.  That refusal is re-checked at most once a second, so an upgrade
 * of the extension is picked up without a restart.
 */
#include "extension.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "clock.h"
#include "jsonrpc.h"
#include "log.h"
#include "paramheaders.h"
#include "text.h"
#include "version.h"

#define DISCOVER_TTL_MS		3600000 /* capabilities change only with an extension upgrade */
#define RECHECK_S			1.0		/* an incompatible extension is read again after this */
#define MAX_PUBLIC			16
#define MAX_INTERNAL		16

enum features_state
{
	FEATURES_UNREAD = 0,		/* not read yet, or the database was unreachable */
	FEATURES_OK,
	FEATURES_INCOMPATIBLE
};

struct public_result
{
	char	   *method;
	char	   *text;			/* serialized result */
};

/* what a successful read yields; immutable once installed */
struct features
{
	char	  **methods;
	size_t		n_methods;
	char	  **era_methods[2];	/* modernMethods, legacyMethods (NULL-ended; extension 1.4 and later) */
	char	   *change_channel;	/* subscriptions.changeChannel, or NULL */
	char	   *stream_channel;	/* subscriptions.streamChannel, or NULL */
	struct public_result publics[MAX_PUBLIC];
	size_t		n_publics;
	char	   *discover;
	char	   *token_channel;	/* NULL when absent */
	struct public_result internal[MAX_INTERNAL];	/* internalMethods: method, channel ("" = none) */
	size_t		n_internal;
	char		version[32];
	struct param_table params;	/* x-mcp-header declarations of the public tools/list */
};

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static enum features_state state;	/* guarded by mu */
static struct features current;	/* written under mu before state = OK, then read-only */
static char problem[300];		/* guarded by mu: why the extension is refused */
static char found_version[32];	/* guarded by mu */
static double last_try;			/* guarded by mu */

static void
features_free(struct features *f)
{
	for (size_t i = 0; i < f->n_methods; i++)
		free(f->methods[i]);
	free(f->methods);
	for (int e = 0; e < 2; e++)
	{
		for (size_t i = 0; f->era_methods[e] && f->era_methods[e][i]; i++)
			free(f->era_methods[e][i]);
		free(f->era_methods[e]);
	}
	free(f->change_channel);
	free(f->stream_channel);
	for (size_t i = 0; i < f->n_publics; i++)
	{
		free(f->publics[i].method);
		free(f->publics[i].text);
	}
	for (size_t i = 0; i < f->n_internal; i++)
	{
		free(f->internal[i].method);
		free(f->internal[i].text);
	}
	free(f->discover);
	free(f->token_channel);
	param_table_free(&f->params);
	memset(f, 0, sizeof(*f));
}

static json_object *
member(json_object *o, const char *key, json_type type)
{
	json_object *v;

	if (!json_object_object_get_ex(o, key, &v) || !json_object_is_type(v, type))
		return NULL;
	return v;
}

/* result (consumed) with resultType and serverInfo, serialized */
static char *
serialize_result(json_object *result)
{
	char	   *text;

	jsonrpc_add_server_info(result);
	text = jsonrpc_serialize(result);
	json_object_put(result);
	return text;
}

static const char *
read_methods(json_object *root, struct features *f)
{
	json_object *methods = member(root, "methods", json_type_array);
	size_t		n = methods ? json_object_array_length(methods) : 0;

	if (methods == NULL)
		return "features().methods is not an array";
	f->methods = calloc(n + 1, sizeof(char *));
	if (f->methods == NULL)
		return "out of memory";
	for (size_t i = 0; i < n; i++)
	{
		json_object *m = json_object_array_get_idx(methods, i);

		if (!json_object_is_type(m, json_type_string))
			return "features().methods holds a value that is not a string";
		f->methods[f->n_methods] = strdup(json_object_get_string(m));
		if (f->methods[f->n_methods++] == NULL)
			return "out of memory";
	}
	return NULL;
}

/* modernMethods / legacyMethods (optional: before 1.4 every method is of both eras) */
static const char *
read_era_methods(json_object *root, const char *key, char ***out)
{
	json_object *methods = member(root, key, json_type_array);
	size_t		n = methods ? json_object_array_length(methods) : 0;

	if (methods == NULL)
		return NULL;
	if ((*out = calloc(n + 1, sizeof(char *))) == NULL)
		return "out of memory";
	for (size_t i = 0; i < n; i++)
	{
		json_object *m = json_object_array_get_idx(methods, i);

		if (!json_object_is_type(m, json_type_string))
			return "features().modernMethods or legacyMethods holds a value that is not a string";
		if (((*out)[i] = strdup(json_object_get_string(m))) == NULL)
			return "out of memory";
	}
	return NULL;
}

/* subscriptions: the channels of the change feed and of the listen streams (optional) */
static const char *
read_channels(json_object *root, struct features *f)
{
	json_object *subs = member(root, "subscriptions", json_type_object);
	json_object *v;

	if (subs == NULL)
		return NULL;
	if ((v = member(subs, "changeChannel", json_type_string)) != NULL &&
		(f->change_channel = strdup(json_object_get_string(v))) == NULL)
		return "out of memory";
	if ((v = member(subs, "streamChannel", json_type_string)) != NULL &&
		(f->stream_channel = strdup(json_object_get_string(v))) == NULL)
		return "out of memory";
	return NULL;
}

static const char *
read_publics(json_object *root, struct features *f)
{
	json_object *publics;

	if (!json_object_object_get_ex(root, "publicResults", &publics) || publics == NULL)
		return NULL;			/* optional */
	if (!json_object_is_type(publics, json_type_object))
		return "features().publicResults is not an object";
	json_object_object_foreach(publics, method, result)
	{
		if (!json_object_is_type(result, json_type_object))
			return "a features().publicResults entry is not an object";
		if (f->n_publics >= MAX_PUBLIC)
			return "features().publicResults has too many entries";
		f->publics[f->n_publics].method = strdup(method);
		f->publics[f->n_publics].text = serialize_result(json_object_get(result));
		if (f->publics[f->n_publics].method == NULL || f->publics[f->n_publics++].text == NULL)
			return "out of memory";
	}
	return NULL;
}

/* internalMethods (optional: extensions before 1.4 have none): each method and its channel */
static const char *
read_internal(json_object *root, struct features *f)
{
	json_object *internal = member(root, "internalMethods", json_type_object);

	if (internal == NULL)
		return NULL;
	json_object_object_foreach(internal, method, entry)
	{
		json_object *channel = member(entry, "channel", json_type_string);

		if (!json_object_is_type(entry, json_type_object))
			return "a features().internalMethods entry is not an object";
		if (f->n_internal >= MAX_INTERNAL)
			return "features().internalMethods has too many entries";
		f->internal[f->n_internal].method = strdup(method);
		f->internal[f->n_internal].text = strdup(channel ? json_object_get_string(channel) : "");
		if (f->internal[f->n_internal].method == NULL || f->internal[f->n_internal++].text == NULL)
			return "out of memory";
	}
	return NULL;
}

/*
 * features().capabilities with gatewayCapabilities merged in, one level
 * deep: what the extension can do only through a gateway that holds
 * streams (resources.subscribe) or carries log levels (logging).  This
 * gateway serves both, so it advertises both; gateways before 2.2.0 ignore
 * the member and advertise neither.
 */
static json_object *
merged_capabilities(json_object *root)
{
	json_object *caps = member(root, "capabilities", json_type_object);
	json_object *extra = member(root, "gatewayCapabilities", json_type_object);
	json_object *out = NULL;

	if (caps == NULL || json_object_deep_copy(caps, &out, NULL) != 0)
		out = json_object_new_object();
	if (extra == NULL)
		return out;
	json_object_object_foreach(extra, key, val)
	{
		json_object *have = member(out, key, json_type_object);

		if (have && json_object_is_type(val, json_type_object))
		{
			json_object_object_foreach(val, k2, v2)
				json_object_object_add(have, k2, json_object_get(v2));
		}
		else
			json_object_object_add(out, key, json_object_get(val));
	}
	return out;
}

/* server/discover: the gateway's fields plus features().capabilities and instructions */
static const char *
build_discover(json_object *root, struct features *f)
{
	json_object *result = json_object_new_object();
	json_object *versions = json_object_new_array();
	json_object *instructions = member(root, "instructions", json_type_string);

	json_object_object_add(result, "resultType", json_object_new_string("complete"));
	json_object_array_add(versions, json_object_new_string(GW_PROTOCOL_VERSION));
	json_object_object_add(result, "supportedVersions", versions);
	json_object_object_add(result, "capabilities", merged_capabilities(root));
	json_object_object_add(result, "ttlMs", json_object_new_int(DISCOVER_TTL_MS));
	json_object_object_add(result, "cacheScope", json_object_new_string("public"));
	if (instructions)
		json_object_object_add(result, "instructions", json_object_get(instructions));
	f->discover = serialize_result(result);
	return f->discover ? NULL : "out of memory";
}

/*
 * features() as text -> f.  NULL when compatible; otherwise what is wrong
 * (into why[n], naming the contract found).
 */
static const char *
parse_features(const char *text, struct features *f, char *why, size_t n)
{
	json_object *root = text ? json_tokener_parse(text) : NULL;
	json_object *v;
	const char *bad = NULL;

	if (root == NULL || !json_object_is_type(root, json_type_object))
		bad = "features() is not a JSON object";
	else if ((v = member(root, "extensionVersion", json_type_string)) != NULL)
		str_copy(f->version, sizeof(f->version), json_object_get_string(v));
	if (bad == NULL && ((v = member(root, "contract", json_type_int)) == NULL ||
						json_object_get_int64(v) != GW_CONTRACT))
	{
		snprintf(why, n, "features().contract is %s", v ? json_object_to_json_string(v) : "missing");
		bad = why;
	}
	if (bad == NULL)
		bad = read_methods(root, f);
	if (bad == NULL)
		bad = read_era_methods(root, "modernMethods", &f->era_methods[0]);
	if (bad == NULL)
		bad = read_era_methods(root, "legacyMethods", &f->era_methods[1]);
	if (bad == NULL)
		bad = read_channels(root, f);
	if (bad == NULL)
		bad = read_publics(root, f);
	if (bad == NULL && (v = member(root, "publicResults", json_type_object)) != NULL)
		bad = param_table_read(member(v, "tools/list", json_type_object), &f->params);
	if (bad == NULL)
		bad = read_internal(root, f);
	if (bad == NULL)
		bad = build_discover(root, f);
	if (bad == NULL && (v = member(root, "tokenChannel", json_type_string)) != NULL &&
		(f->token_channel = strdup(json_object_get_string(v))) == NULL)
		bad = "out of memory";
	json_object_put(root);
	return bad;
}

/* the refusal, in the log once per distinct problem, and for the caller */
static enum outcome_kind
refuse(const char *found, const char *what, struct db_error *err)
{
	char		msg[sizeof(problem)];
	bool		changed;
	struct log_line line;

	snprintf(msg, sizeof(msg),
			 "incompatible mcp_notes extension: found %s (%s); this gateway (%s) needs contract %d "
			 "(mcp_notes 1.2 or later): run ALTER EXTENSION mcp_notes UPDATE",
			 found, what, GW_VERSION, GW_CONTRACT);
	pthread_mutex_lock(&mu);
	changed = state != FEATURES_INCOMPATIBLE || strcmp(problem, msg) != 0;
	state = FEATURES_INCOMPATIBLE;
	str_copy(problem, sizeof(problem), msg);
	pthread_mutex_unlock(&mu);
	if (changed && log_line_begin(&line, GW_LOG_ERROR, "extension_incompatible"))
	{
		log_line_str(&line, "gateway_version", GW_VERSION);
		log_line_str(&line, "found", found);
		log_line_int(&line, "needed_contract", GW_CONTRACT);
		log_line_str(&line, "msg", msg);
		log_line_end(&line);
	}
	err->kind = OUT_INCOMPATIBLE_EXTENSION;
	str_copy(err->message, sizeof(err->message), msg);
	return OUT_INCOMPATIBLE_EXTENSION;
}

/* "mcp_notes 1.1", or "no mcp_notes extension", from pg_extension */
static void
describe_installed(char *buf, size_t n)
{
	struct db_error err = {0};
	char	   *version = NULL;

	if (db_extension_version(&version, &err) != OUT_OK)
		snprintf(buf, n, "an mcp_notes extension of unknown version");
	else if (version == NULL)
		snprintf(buf, n, "no mcp_notes extension");
	else
		snprintf(buf, n, "mcp_notes %s", version);
	pthread_mutex_lock(&mu);
	str_copy(found_version, sizeof(found_version), version ? version : "");
	pthread_mutex_unlock(&mu);
	free(version);
}

static void
install(struct features *f)
{
	struct log_line line;
	bool		first;

	pthread_mutex_lock(&mu);
	first = state != FEATURES_OK;
	if (first)
	{
		current = *f;
		str_copy(found_version, sizeof(found_version), f->version);
		state = FEATURES_OK;
	}
	pthread_mutex_unlock(&mu);
	if (!first)
	{
		features_free(f);		/* another thread read it first */
		return;
	}
	if (log_line_begin(&line, GW_LOG_INFO, "extension_ready"))
	{
		log_line_str(&line, "gateway_version", GW_VERSION);
		log_line_str(&line, "extension_version", current.version);
		log_line_int(&line, "contract", GW_CONTRACT);
		log_line_int(&line, "methods", (long long) current.n_methods);
		log_line_int(&line, "public_results", (long long) current.n_publics);
		log_line_int(&line, "param_headers", (long long) current.params.n);
		log_line_str(&line, "token_channel", current.token_channel ? current.token_channel : "");
		log_line_end(&line);
	}
}

/* the state now; true when the caller should read features() */
static bool
should_read(enum outcome_kind *kind, struct db_error *err)
{
	bool		read = true;
	double		now = clock_mono();

	pthread_mutex_lock(&mu);
	*kind = OUT_OK;
	if (state == FEATURES_OK)
		read = false;
	else if (state == FEATURES_INCOMPATIBLE && now - last_try < RECHECK_S)
	{
		read = false;
		*kind = err->kind = OUT_INCOMPATIBLE_EXTENSION;
		str_copy(err->message, sizeof(err->message), problem);
	}
	else
		last_try = now;
	pthread_mutex_unlock(&mu);
	return read;
}

enum outcome_kind
features_ensure(struct db_error *err)
{
	enum outcome_kind kind;
	char	   *text = NULL;
	struct features f = {0};
	char		why[120];
	char		found[80];
	const char *bad;

	if (!should_read(&kind, err))
		return kind;
	kind = db_features(&text, err);
	if (kind != OUT_OK && (strcmp(err->sqlstate, "42883") == 0 || strcmp(err->sqlstate, "3F000") == 0))
	{
		/* undefined_function, invalid_schema_name: no features() to call */
		describe_installed(found, sizeof(found));
		return refuse(found, "it has no mcp_notes.features()", err);
	}
	if (kind != OUT_OK)
		return kind;
	bad = parse_features(text, &f, why, sizeof(why));
	free(text);
	if (bad != NULL)
	{
		snprintf(found, sizeof(found), "mcp_notes %s", f.version[0] ? f.version : "of unknown version");
		refuse(found, bad, err);
		features_free(&f);
		return OUT_INCOMPATIBLE_EXTENSION;
	}
	install(&f);
	return OUT_OK;
}

bool
features_ready(void)
{
	bool		ok;

	pthread_mutex_lock(&mu);
	ok = state == FEATURES_OK;
	pthread_mutex_unlock(&mu);
	return ok;
}

bool
features_method_known(const char *method)
{
	if (!features_ready())
		return false;
	if (strcmp(method, "server/discover") == 0)
		return true;
	for (size_t i = 0; i < current.n_methods; i++)
		if (strcmp(current.methods[i], method) == 0)
			return true;
	return false;
}

bool
features_era_method_known(const char *method, bool legacy)
{
	char	  **list;

	if (features_method_known(method))
		return strcmp(method, "server/discover") != 0 || !legacy;
	list = current.era_methods[legacy ? 1 : 0];
	for (size_t i = 0; list && list[i]; i++)
		if (strcmp(list[i], method) == 0)
			return true;
	return false;
}

const char *
features_change_channel(void)
{
	return features_ready() ? current.change_channel : NULL;
}

const char *
features_stream_channel(void)
{
	return features_ready() ? current.stream_channel : NULL;
}

const char *
features_public_result(const char *method)
{
	if (!features_ready())
		return NULL;
	for (size_t i = 0; i < current.n_publics; i++)
		if (strcmp(current.publics[i].method, method) == 0)
			return current.publics[i].text;
	return NULL;
}

const struct param_table *
features_param_table(void)
{
	return features_ready() ? &current.params : NULL;
}

const char *
features_discover_result(void)
{
	return features_ready() ? current.discover : NULL;
}

const char *
features_token_channel(void)
{
	return features_ready() ? current.token_channel : NULL;
}

static const struct public_result *
internal_method(const char *method)
{
	for (size_t i = 0; features_ready() && i < current.n_internal; i++)
		if (strcmp(current.internal[i].method, method) == 0)
			return &current.internal[i];
	return NULL;
}

bool
features_has_internal(const char *method)
{
	return internal_method(method) != NULL;
}

const char *
features_internal_channel(const char *method)
{
	const struct public_result *m = internal_method(method);

	return m && m->text[0] ? m->text : NULL;
}

void
features_extension_version(char *buf, size_t n)
{
	pthread_mutex_lock(&mu);
	str_copy(buf, n, found_version);
	pthread_mutex_unlock(&mu);
}

void
features_shutdown(void)
{
	pthread_mutex_lock(&mu);
	if (state == FEATURES_OK)
		features_free(&current);
	state = FEATURES_UNREAD;
	pthread_mutex_unlock(&mu);
}
