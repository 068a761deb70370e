/*
 * jsonrpc.c
 *		Strict request parsing, JSON-RPC 2.0 shape checks, response objects.
 *
 * json-c's strict mode still accepts single-quoted strings, NaN, raw control
 * characters in strings; it silently saturates integers beyond 64 bits,
 * replaces lone surrogates and keeps only the last of duplicate member names.
 * A body that means different things to different parsers is a security
 * problem (the database, a proxy and this gateway must agree on what a
 * request says), so a small RFC 8259 scanner runs first and refuses all of
 * that; json-c (strict, UTF-8 validating, depth-limited) then builds the tree.
 */
#include "jsonrpc.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"
#include "version.h"

#define META_SERVER_INFO	"io.modelcontextprotocol/serverInfo"

/* ---------- strict scanner ---------- */

struct scan
{
	const unsigned char *p;
	const unsigned char *end;
	int			depth;
	int			max_depth;
	long		members;		/* object members seen, for the duplicate check */
	const char *why;
};

static bool scan_value(struct scan *s);

static void
skip_ws(struct scan *s)
{
	while (s->p < s->end && (*s->p == ' ' || *s->p == '\t' || *s->p == '\n' || *s->p == '\r'))
		s->p++;
}

static bool
fail(struct scan *s, const char *why)
{
	if (s->why == NULL)
		s->why = why;
	return false;
}

static int
hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool
read_u4(struct scan *s, unsigned *out)
{
	unsigned	v = 0;

	if (s->end - s->p < 4)
		return fail(s, "truncated \\u escape");
	for (int i = 0; i < 4; i++)
	{
		int			h = hexval(s->p[i]);

		if (h < 0)
			return fail(s, "invalid \\u escape");
		v = (v << 4) | (unsigned) h;
	}
	s->p += 4;
	*out = v;
	return true;
}

/* one UTF-8 sequence starting at a byte >= 0x80 */
static bool
scan_utf8(struct scan *s)
{
	size_t		n = utf8_sequence_length(s->p, (size_t) (s->end - s->p));

	if (n == 0)
		return fail(s, "invalid UTF-8");
	s->p += n;
	return true;
}

static bool
scan_string(struct scan *s)
{
	s->p++;						/* opening quote */
	while (s->p < s->end)
	{
		unsigned char c = *s->p;

		if (c == '"')
		{
			s->p++;
			return true;
		}
		if (c < 0x20)
			return fail(s, "control character in string");
		if (c >= 0x80)
		{
			if (!scan_utf8(s))
				return false;
			continue;
		}
		if (c != '\\')
		{
			s->p++;
			continue;
		}
		s->p++;
		if (s->p >= s->end)
			break;
		c = *s->p++;
		if (strchr("\"\\/bfnrt", c) != NULL && c != '\0')
			continue;
		if (c != 'u')
			return fail(s, "invalid escape in string");
		{
			unsigned	u;

			if (!read_u4(s, &u))
				return false;
			if (u == 0)
				return fail(s, "\\u0000 is not supported");
			if (u >= 0xDC00 && u <= 0xDFFF)
				return fail(s, "lone UTF-16 surrogate in string");
			if (u >= 0xD800 && u <= 0xDBFF)
			{
				unsigned	low;

				if (s->end - s->p < 2 || s->p[0] != '\\' || s->p[1] != 'u')
					return fail(s, "lone UTF-16 surrogate in string");
				s->p += 2;
				if (!read_u4(s, &low))
					return false;
				if (low < 0xDC00 || low > 0xDFFF)
					return fail(s, "lone UTF-16 surrogate in string");
			}
		}
	}
	return fail(s, "unterminated string");
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static bool
scan_number(struct scan *s)
{
	const unsigned char *digits;
	bool		neg = false;
	bool		integer = true;
	size_t		ndigits;

	if (*s->p == '-')
	{
		neg = true;
		s->p++;
	}
	digits = s->p;
	if (s->p >= s->end || !is_digit(*s->p))
		return fail(s, "invalid number");
	if (*s->p == '0')
		s->p++;
	else
		while (s->p < s->end && is_digit(*s->p))
			s->p++;
	ndigits = (size_t) (s->p - digits);
	if (s->p < s->end && *s->p == '.')
	{
		integer = false;
		s->p++;
		if (s->p >= s->end || !is_digit(*s->p))
			return fail(s, "invalid number");
		while (s->p < s->end && is_digit(*s->p))
			s->p++;
	}
	if (s->p < s->end && (*s->p == 'e' || *s->p == 'E'))
	{
		integer = false;
		s->p++;
		if (s->p < s->end && (*s->p == '+' || *s->p == '-'))
			s->p++;
		if (s->p >= s->end || !is_digit(*s->p))
			return fail(s, "invalid number");
		while (s->p < s->end && is_digit(*s->p))
			s->p++;
	}
	if (integer)
	{
		const char *limit = neg ? "9223372036854775808" : "9223372036854775807";

		if (ndigits > 19 || (ndigits == 19 && memcmp(digits, limit, 19) > 0))
			return fail(s, "integer out of the 64-bit range");
	}
	return true;
}

static bool
scan_literal(struct scan *s, const char *lit)
{
	size_t		n = strlen(lit);

	if ((size_t) (s->end - s->p) < n || memcmp(s->p, lit, n) != 0)
		return fail(s, "unexpected character");
	s->p += n;
	return true;
}

static bool
scan_container(struct scan *s, bool object)
{
	unsigned char close = object ? '}' : ']';

	if (++s->depth > s->max_depth)
		return fail(s, "nesting too deep");
	s->p++;
	skip_ws(s);
	if (s->p < s->end && *s->p == close)
	{
		s->p++;
		s->depth--;
		return true;
	}
	for (;;)
	{
		skip_ws(s);
		if (object)
		{
			if (s->p >= s->end || *s->p != '"')
				return fail(s, "object member name expected");
			if (!scan_string(s))
				return false;
			skip_ws(s);
			if (s->p >= s->end || *s->p != ':')
				return fail(s, "':' expected");
			s->p++;
			s->members++;
		}
		if (!scan_value(s))
			return false;
		skip_ws(s);
		if (s->p < s->end && *s->p == ',')
		{
			s->p++;
			continue;
		}
		if (s->p < s->end && *s->p == close)
		{
			s->p++;
			s->depth--;
			return true;
		}
		return fail(s, object ? "',' or '}' expected" : "',' or ']' expected");
	}
}

static bool
scan_value(struct scan *s)
{
	skip_ws(s);
	if (s->p >= s->end)
		return fail(s, "unexpected end of input");
	switch (*s->p)
	{
		case '{':
			return scan_container(s, true);
		case '[':
			return scan_container(s, false);
		case '"':
			return scan_string(s);
		case 't':
			return scan_literal(s, "true");
		case 'f':
			return scan_literal(s, "false");
		case 'n':
			return scan_literal(s, "null");
		default:
			if (*s->p == '-' || is_digit(*s->p))
				return scan_number(s);
			return fail(s, "unexpected character");
	}
}

static long
count_members(json_object *o)
{
	long		n = 0;

	if (json_object_is_type(o, json_type_object))
	{
		json_object_object_foreach(o, key, val)
		{
			(void) key;
			n += 1 + count_members(val);
		}
	}
	else if (json_object_is_type(o, json_type_array))
	{
		size_t		len = json_object_array_length(o);

		for (size_t i = 0; i < len; i++)
			n += count_members(json_object_array_get_idx(o, i));
	}
	return n;
}

int
jsonrpc_parse(const char *buf, size_t len, int max_depth, json_object **out, const char **why)
{
	struct scan s = {(const unsigned char *) buf, (const unsigned char *) buf + len, 0, max_depth, 0, NULL};
	json_tokener *tok;
	json_object *root;

	*why = NULL;
	*out = NULL;
	if (!scan_value(&s))
	{
		*why = s.why;
		return -1;
	}
	skip_ws(&s);
	if (s.p != s.end)
	{
		*why = "trailing characters after the JSON value";
		return -1;
	}
	if (len > (size_t) 0x7ffffffe)
	{
		*why = "body too large";
		return -1;
	}

	tok = json_tokener_new_ex(max_depth + 1);
	if (tok == NULL)
	{
		*why = "out of memory";
		return -1;
	}
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	root = json_tokener_parse_ex(tok, buf, (int) len);
	if (root == NULL && json_tokener_get_error(tok) == json_tokener_continue)
		root = json_tokener_parse_ex(tok, "", 1);	/* end of input finishes a bare number */
	if (root == NULL && json_tokener_get_error(tok) != json_tokener_success)
		*why = json_tokener_error_desc(json_tokener_get_error(tok));
	json_tokener_free(tok);
	if (*why != NULL)
		return -1;				/* the scanner and json-c disagree: refuse */
	if (count_members(root) != s.members)
	{
		json_object_put(root);
		*why = "duplicate member names in an object";
		return -1;
	}
	*out = root;				/* NULL for a JSON null */
	return 0;
}

/* ---------- envelope ---------- */

bool
json_string_equals(json_object *o, const char *s)
{
	return o != NULL && json_object_is_type(o, json_type_string) &&
		(size_t) json_object_get_string_len(o) == strlen(s) &&
		memcmp(json_object_get_string(o), s, strlen(s)) == 0;
}

static bool
valid_id(json_object *id)
{
	return id != NULL && (json_object_is_type(id, json_type_string) || json_object_is_type(id, json_type_int));
}

int
jsonrpc_check(json_object *root, struct rpc_msg *m, const char **why)
{
	json_object *v;
	json_object *idv = NULL;

	memset(m, 0, sizeof(*m));
	m->root = root;
	if (!json_object_is_type(root, json_type_object))
	{
		*why = json_object_is_type(root, json_type_array)
			? "Invalid Request: batches are not supported; send one JSON-RPC message per POST"
			: "Invalid Request: the body must be a JSON-RPC 2.0 object";
		return RPC_INVALID_REQUEST;
	}
	m->has_id = json_object_object_get_ex(root, "id", &idv);
	if (valid_id(idv))
		m->id = idv;

	if (!json_object_object_get_ex(root, "jsonrpc", &v) || !json_string_equals(v, "2.0"))
	{
		*why = "Invalid Request: \"jsonrpc\" must be \"2.0\"";
		return RPC_INVALID_REQUEST;
	}
	if (m->has_id && m->id == NULL)
	{
		*why = "Invalid Request: \"id\" must be a string or an integer";
		return RPC_INVALID_REQUEST;
	}
	if (!json_object_object_get_ex(root, "method", &v) || !json_object_is_type(v, json_type_string))
	{
		*why = json_object_object_get_ex(root, "result", NULL) || json_object_object_get_ex(root, "error", NULL)
			? "Invalid Request: JSON-RPC responses are not accepted"
			: "Invalid Request: \"method\" must be a string";
		return RPC_INVALID_REQUEST;
	}
	m->method = json_object_get_string(v);
	if (json_object_object_get_ex(root, "params", &v) && v != NULL)
	{
		if (json_object_is_type(v, json_type_array))
		{
			*why = "Invalid params: params must be an object";
			return RPC_INVALID_PARAMS;
		}
		if (!json_object_is_type(v, json_type_object))
		{
			*why = "Invalid Request: \"params\" must be an object";
			return RPC_INVALID_REQUEST;
		}
		m->params = v;
	}
	else if (json_object_object_get_ex(root, "params", NULL))
	{
		*why = "Invalid Request: \"params\" must be an object";
		return RPC_INVALID_REQUEST;
	}
	return 0;
}

json_object *
jsonrpc_error(json_object *id, int code, const char *message, json_object *data)
{
	json_object *resp = json_object_new_object();
	json_object *err = json_object_new_object();

	json_object_object_add(resp, "jsonrpc", json_object_new_string("2.0"));
	/* an id that could not be read is omitted: the 2026-07-28 schema has no null id */
	if (id != NULL)
		json_object_object_add(resp, "id", json_object_get(id));
	json_object_object_add(err, "code", json_object_new_int(code));
	json_object_object_add(err, "message", json_object_new_string(message));
	if (data)
		json_object_object_add(err, "data", data);
	json_object_object_add(resp, "error", err);
	return resp;
}

json_object *
jsonrpc_result(json_object *id, json_object *result)
{
	json_object *resp = json_object_new_object();

	json_object_object_add(resp, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(resp, "id", json_object_get(id));
	json_object_object_add(resp, "result", result);
	return resp;
}

char *
jsonrpc_serialize(json_object *o)
{
	return strdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
}

void
jsonrpc_add_server_info(json_object *result)
{
	json_object *meta;
	json_object *info = json_object_new_object();

	json_object_object_add(info, "name", json_object_new_string(GW_SERVER_NAME));
	json_object_object_add(info, "version", json_object_new_string(GW_VERSION));
	if (!json_object_object_get_ex(result, "_meta", &meta) || !json_object_is_type(meta, json_type_object))
	{
		meta = json_object_new_object();
		json_object_object_add(result, "_meta", meta);
	}
	json_object_object_add(meta, META_SERVER_INFO, info);
	if (!json_object_object_get_ex(result, "resultType", NULL))
		json_object_object_add(result, "resultType", json_object_new_string("complete"));
}
