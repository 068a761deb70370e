/*
 * paramheaders.c
 *		The x-mcp-header declarations of the tools and the Mcp-Param-* check
 *		(SEP-2243, as the official TypeScript SDK's server performs it).
 *
 * An argument that is absent or null needs no header (one sent anyway is
 * ignored), as does an object or array value; any other value needs exactly
 * one header whose value, trimmed and, as =?base64?...?=, decoded, equals the
 * argument's string form: the string itself, "true"/"false", or the number
 * (compared numerically for integer and number properties, so "42.0" is 42).
 * Messages name the header, never a value.
 */
#include "paramheaders.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SAFE_INTEGER	9007199254740991LL	/* 2^53 - 1: a client mirrors no larger integer */

static bool
type_of(json_object *schema, enum param_type *type)
{
	json_object *v;
	const char *s;

	if (!json_object_object_get_ex(schema, "type", &v) || !json_object_is_type(v, json_type_string))
		return false;
	s = json_object_get_string(v);
	if (strcmp(s, "string") == 0)
		*type = PARAM_STRING;
	else if (strcmp(s, "integer") == 0 || strcmp(s, "number") == 0)
		*type = PARAM_INTEGER;
	else if (strcmp(s, "boolean") == 0)
		*type = PARAM_BOOLEAN;
	else
		return false;
	return true;
}

static bool
add_decl(struct param_table *t, const char *tool, const char *header, char *const *path, size_t depth,
		 enum param_type type)
{
	struct param_decl *grown = realloc(t->decls, (t->n + 1) * sizeof(*grown));
	struct param_decl *d;

	if (grown == NULL)
		return false;
	t->decls = grown;
	d = &t->decls[t->n++];
	memset(d, 0, sizeof(*d));
	d->type = type;
	d->depth = depth;
	d->tool = strdup(tool);
	d->header = strdup(header);
	for (size_t i = 0; i < depth; i++)
		d->path[i] = strdup(path[i]);
	if (d->tool == NULL || d->header == NULL)
		return false;
	for (size_t i = 0; i < depth; i++)
		if (d->path[i] == NULL)
			return false;
	return true;
}

/* the members of one "properties" object at depth (path[0..depth-1] leads here) */
static bool
read_properties(struct param_table *t, const char *tool, json_object *props, char **path, size_t depth)
{
	json_object_object_foreach(props, key, child)
	{
		json_object *mark;
		json_object *inner;
		enum param_type type;

		if (!json_object_is_type(child, json_type_object))
			continue;
		path[depth] = key;
		if (json_object_object_get_ex(child, "x-mcp-header", &mark) && json_object_is_type(mark, json_type_string) &&
			header_is_token(json_object_get_string(mark)) && type_of(child, &type) &&
			!add_decl(t, tool, json_object_get_string(mark), path, depth + 1, type))
			return false;
		if (depth + 1 < GW_PARAM_MAX_DEPTH && json_object_object_get_ex(child, "properties", &inner) &&
			json_object_is_type(inner, json_type_object) &&
			!read_properties(t, tool, inner, path, depth + 1))
			return false;
	}
	return true;
}

const char *
param_table_read(json_object *tools_list_result, struct param_table *t)
{
	json_object *tools;
	char	   *path[GW_PARAM_MAX_DEPTH];

	memset(t, 0, sizeof(*t));
	if (tools_list_result == NULL || !json_object_object_get_ex(tools_list_result, "tools", &tools) ||
		!json_object_is_type(tools, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(tools); i++)
	{
		json_object *tool = json_object_array_get_idx(tools, i);
		json_object *name, *schema, *props;

		if (json_object_object_get_ex(tool, "name", &name) && json_object_is_type(name, json_type_string) &&
			json_object_object_get_ex(tool, "inputSchema", &schema) &&
			json_object_object_get_ex(schema, "properties", &props) && json_object_is_type(props, json_type_object) &&
			!read_properties(t, json_object_get_string(name), props, path, 0))
		{
			param_table_free(t);
			return "out of memory";
		}
	}
	return NULL;
}

void
param_table_free(struct param_table *t)
{
	for (size_t i = 0; i < t->n; i++)
	{
		free(t->decls[i].tool);
		free(t->decls[i].header);
		for (size_t j = 0; j < t->decls[i].depth; j++)
			free(t->decls[i].path[j]);
	}
	free(t->decls);
	memset(t, 0, sizeof(*t));
}

bool
param_table_has(const struct param_table *t, const char *tool)
{
	for (size_t i = 0; t != NULL && i < t->n; i++)
		if (strcmp(t->decls[i].tool, tool) == 0)
			return true;
	return false;
}

static json_object *
value_at(json_object *arguments, const struct param_decl *d)
{
	json_object *v = arguments;

	for (size_t i = 0; i < d->depth; i++)
		if (!json_object_is_type(v, json_type_object) || !json_object_object_get_ex(v, d->path[i], &v))
			return NULL;
	return v;
}

/* -?digits(.digits)?: the form a number is compared numerically in */
static bool
canonical_decimal(const char *s, size_t n)
{
	size_t		i = (n > 0 && s[0] == '-') ? 1 : 0;
	size_t		digits = 0;

	while (i < n && s[i] >= '0' && s[i] <= '9')
		i++, digits++;
	if (digits == 0)
		return false;
	if (i < n && s[i] == '.')
	{
		size_t		frac = ++i;

		while (i < n && s[i] >= '0' && s[i] <= '9')
			i++;
		if (i == frac)
			return false;
	}
	return i == n;
}

/*
 * The argument's string form into buf (or *text), false when the argument
 * needs no header (null, object, array, an unsafe integer, not finite).
 */
static bool
argument_text(json_object *v, char *buf, size_t n, const char **text, size_t *len)
{
	switch (json_object_get_type(v))
	{
		case json_type_string:
			*text = json_object_get_string(v);
			*len = (size_t) json_object_get_string_len(v);
			return true;
		case json_type_boolean:
			*text = json_object_get_boolean(v) ? "true" : "false";
			break;
		case json_type_int:
			if (llabs((long long) json_object_get_int64(v)) > SAFE_INTEGER)
				return false;
			snprintf(buf, n, "%lld", (long long) json_object_get_int64(v));
			*text = buf;
			break;
		case json_type_double:
			if (!isfinite(json_object_get_double(v)))
				return false;
			*text = json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN);
			break;
		default:
			return false;
	}
	*len = strlen(*text);
	return true;
}

static bool
refuse(char *why, size_t n, const char *fmt, const char *header)
{
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
	snprintf(why, n, fmt, GW_PARAM_HEADER_PREFIX, header);
#pragma GCC diagnostic pop
	return false;
}

/* one declaration against the headers */
static bool
check_one(const struct param_decl *d, json_object *v, const struct mcp_headers *h, char *why, size_t n)
{
	char		buf[32];
	const char *text;
	size_t		len;
	int			count;
	const char *raw;
	char	   *decoded;
	size_t		dlen;
	enum hdr_status hs;
	bool		same;

	if (v == NULL || !argument_text(v, buf, sizeof(buf), &text, &len))
		return true;
	raw = header_param_find(h, d->header, &count);
	if (h->params_overflow)
		return refuse(why, n, "Header mismatch: more Mcp-Param headers than this server reads (%s%s)", d->header);
	if (count > 1)
		return refuse(why, n, "Header mismatch: %s%s header appears more than once", d->header);
	if (count == 0)
		return refuse(why, n, "Header mismatch: required %s%s header is missing", d->header);
	hs = header_value_n(raw, true, &decoded, &dlen);
	if (hs == HDR_INVALID)
		return refuse(why, n, "Header mismatch: %s%s header contains invalid characters", d->header);
	if (hs != HDR_OK)
		return refuse(why, n, "Header mismatch: %s%s header has an invalid =?base64?...?= encoding", d->header);
	if (d->type == PARAM_INTEGER && (json_object_is_type(v, json_type_int) || json_object_is_type(v, json_type_double)) &&
		canonical_decimal(decoded, dlen))
		same = strtod(decoded, NULL) == json_object_get_double(v);
	else
		same = dlen == len && memcmp(decoded, text, len) == 0;
	free(decoded);
	if (!same)
		return refuse(why, n, "Header mismatch: %s%s header does not match the request body", d->header);
	return true;
}

bool
param_headers_check(const struct param_table *t, const char *tool, json_object *arguments,
					const struct mcp_headers *h, char *why, size_t n)
{
	for (size_t i = 0; t != NULL && i < t->n; i++)
		if (strcmp(t->decls[i].tool, tool) == 0 &&
			!check_one(&t->decls[i], value_at(arguments, &t->decls[i]), h, why, n))
			return false;
	return true;
}
