/*
 * uri.c
 *		Canonical form of file: URIs, and containment by whole path components.
 *
 * Authorization and containment compare URIs as strings, so every spelling of
 * a path must map to one string, and a URI with no single safe meaning must be
 * refused rather than guessed at.  Percent-encoding is decoded exactly once,
 * dot segments are removed after decoding, and the result is re-encoded in one
 * fixed way, which makes the canonical form a fixed point.  The policy, with
 * examples, is in docs/uri-normalization.md.
 */
#include "postgres.h"

#include "access/detoast.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"

#include "uri.h"

PG_FUNCTION_INFO_V1(mcp_notes_normalize_uri);
PG_FUNCTION_INFO_V1(mcp_notes_uri_contains);
PG_FUNCTION_INFO_V1(mcp_notes_uri_problem);

#define FILE_PREFIX		"file://"
#define FILE_PREFIX_LEN	7

/* Input bytes quoted in an error message; the rest is elided. */
#define ECHO_MAX		200

/* The details; each names one problem so an operator can fix the URI. */
static const char *const P_EMPTY = "The URI is empty.";
static const char *const P_TOO_LONG = "The URI is longer than 4096 bytes.";
static const char *const P_RESULT_TOO_LONG = "The canonical form is longer than 4096 bytes.";
static const char *const P_WHITESPACE = "The URI begins or ends with whitespace.";
static const char *const P_CONTROL = "The URI contains a raw control character.";
static const char *const P_QUERY = "The URI contains a query (?).";
static const char *const P_FRAGMENT = "The URI contains a fragment (#).";
static const char *const P_RELATIVE = "The URI has no scheme; it must be an absolute file: URI.";
static const char *const P_SCHEME = "The scheme must be file.";
static const char *const P_USERINFO = "The authority contains user information (@).";
static const char *const P_PORT = "The authority contains a port (:).";
static const char *const P_REMOTE_HOST = "The host must be empty or localhost.";
static const char *const P_NO_PATH = "The URI has no path.";
static const char *const P_ROOTLESS = "The path must be absolute (begin with /).";
static const char *const P_BACKSLASH = "The path contains a raw backslash.";
static const char *const P_MUST_ENCODE = "The path contains a character that must be percent-encoded.";
static const char *const P_BAD_PERCENT = "The path contains a percent sign not followed by two hex digits.";
static const char *const P_ENC_SLASH = "The path contains an encoded slash (%2F).";
static const char *const P_ENC_BACKSLASH = "The path contains an encoded backslash (%5C).";
static const char *const P_ENC_NUL = "The path contains an encoded NUL byte (%00).";
static const char *const P_ENC_CONTROL = "The path contains an encoded control character.";
static const char *const P_BAD_UTF8 = "The decoded path is not valid UTF-8.";
static const char *const P_EMPTY_SEGMENT = "The path contains an empty segment (//).";
static const char *const P_ABOVE_ROOT = "The path climbs above the root with \"..\".";

static inline bool
is_alpha(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
}

static inline bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static inline bool
is_control(unsigned char c)
{
	return c < 0x20 || c == 0x7F;
}

/*
 * Case-insensitive match of s against a lower-case ASCII word.  Unlike
 * pg_strncasecmp this never folds bytes above 0x7F through the server's
 * locale, so in no encoding can a non-ASCII byte pass for a letter of
 * "file" or "localhost".
 */
static bool
ascii_equal_ci(const char *s, const char *lower, size_t n)
{
	for (size_t i = 0; i < n; i++)
	{
		unsigned char c = (unsigned char) s[i];

		if (c >= 'A' && c <= 'Z')
			c += 'a' - 'A';
		if (c != (unsigned char) lower[i])
			return false;
	}
	return true;
}

static inline bool
is_space(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

/*
 * RFC 3986 pchar minus pct-encoded: unreserved, sub-delims, ':' and '@'.
 * These stay raw in the canonical form; every other byte is encoded.
 */
static inline bool
is_pchar(unsigned char c)
{
	if (is_alpha(c) || is_digit(c))
		return true;
	switch (c)
	{
		case '-':
		case '.':
		case '_':
		case '~':
		case '!':
		case '$':
		case '&':
		case '\'':
		case '(':
		case ')':
		case '*':
		case '+':
		case ',':
		case ';':
		case '=':
		case ':':
		case '@':
			return true;
		default:
			return false;
	}
}

static inline int
hex_value(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* True when s[0..len) starts with an RFC 3986 scheme followed by ':'. */
static bool
has_scheme(const unsigned char *s, size_t len)
{
	size_t		i;

	if (len == 0 || !is_alpha(s[0]))
		return false;
	for (i = 1; i < len; i++)
	{
		if (s[i] == ':')
			return true;
		if (!is_alpha(s[i]) && !is_digit(s[i]) &&
			s[i] != '+' && s[i] != '-' && s[i] != '.')
			return false;
	}
	return false;
}

/* Only the local host may be named; a file on another machine is not ours. */
static bool
check_authority(const unsigned char *a, size_t len, const char **problem)
{
	if (memchr(a, '@', len) != NULL)
	{
		*problem = P_USERINFO;
		return false;
	}
	/* An IPv6 literal contains ':' but is a host, not a port. */
	if (len > 0 && a[0] == '[')
	{
		*problem = P_REMOTE_HOST;
		return false;
	}
	if (memchr(a, ':', len) != NULL)
	{
		*problem = P_PORT;
		return false;
	}
	if (len != 0 && !(len == 9 && ascii_equal_ci((const char *) a, "localhost", 9)))
	{
		*problem = P_REMOTE_HOST;
		return false;
	}
	return true;
}

/*
 * Rejects truncated sequences, overlong forms, surrogates and code points
 * above U+10FFFF, so that one name has one byte string.
 */
static bool
utf8_is_valid(const unsigned char *s, size_t len)
{
	size_t		i = 0;

	while (i < len)
	{
		int			l;

		if (s[i] < 0x80)
		{
			i++;
			continue;
		}
		l = pg_utf_mblen(&s[i]);
		if ((size_t) l > len - i || !pg_utf8_islegal(&s[i], l))
			return false;
		i += l;
	}
	return true;
}

/*
 * The canonical form while it is built: FILE_PREFIX, then "/" and the encoded
 * name of each segment kept so far.  starts[k] is the offset in buf of the
 * '/' that begins kept segment k, so that ".." can cut the last one off.
 */
typedef struct CanonPath
{
	char	   *buf;
	size_t		len;
	size_t	   *starts;
	int			depth;
} CanonPath;

/*
 * Room for the canonical form of a path of len input bytes: each input byte
 * yields at most three output bytes, plus the root's '/' and a NUL; a path
 * has fewer than len segments.
 */
static void
canon_init(CanonPath *cp, size_t len)
{
	cp->buf = palloc(FILE_PREFIX_LEN + 3 * len + 2);
	memcpy(cp->buf, FILE_PREFIX, FILE_PREFIX_LEN);
	cp->len = FILE_PREFIX_LEN;
	cp->starts = palloc(sizeof(size_t) * len);
	cp->depth = 0;
}

/*
 * The byte encoded by the escape at p[0] == '%', of which avail bytes are
 * left in the input; -1 unless two hex digits follow.
 */
static int
decode_escape(const unsigned char *p, size_t avail)
{
	int			hi;
	int			lo;

	Assert(avail > 0 && p[0] == '%');
	if (avail < 3 || (hi = hex_value(p[1])) < 0 || (lo = hex_value(p[2])) < 0)
		return -1;
	return (hi << 4) | lo;
}

/* Why a byte decoded from an escape cannot be part of a name, or NULL. */
static const char *
decoded_byte_problem(unsigned char c)
{
	if (c == '/')
		return P_ENC_SLASH;
	if (c == '\\')
		return P_ENC_BACKSLASH;
	if (c == 0)
		return P_ENC_NUL;
	if (is_control(c))
		return P_ENC_CONTROL;
	return NULL;
}

/* Why a raw path byte other than '/' and '%' is not allowed, or NULL. */
static const char *
raw_byte_problem(unsigned char c)
{
	if (c >= 0x80 || is_pchar(c))
		return NULL;
	if (c == '\\')
		return P_BACKSLASH;
	if (is_control(c))
		return P_CONTROL;
	return P_MUST_ENCODE;
}

/*
 * Decodes the segment that begins at p[*pos] and ends before the next raw '/'
 * (or at len) into seg, each escape exactly once.  On success sets *seglen
 * and advances *pos to the segment's end; on failure sets *problem for the
 * first byte that is refused.
 */
static bool
decode_segment(const unsigned char *p, size_t len, size_t *pos,
			   unsigned char *seg, size_t *seglen, const char **problem)
{
	size_t		j = *pos;
	size_t		n = 0;

	while (j < len && p[j] != '/')
	{
		const char *why;
		int			c = p[j];

		if (c == '%')
		{
			c = decode_escape(&p[j], len - j);
			why = (c < 0) ? P_BAD_PERCENT : decoded_byte_problem((unsigned char) c);
			j += 3;
		}
		else
		{
			why = raw_byte_problem((unsigned char) c);
			j++;
		}
		if (why != NULL)
		{
			*problem = why;
			return false;
		}
		seg[n++] = (unsigned char) c;
	}
	*pos = j;
	*seglen = n;
	return true;
}

/* Appends a kept segment, each byte raw or as %XX as the canonical form says. */
static void
push_segment(CanonPath *cp, const unsigned char *seg, size_t seglen)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t		k;

	cp->starts[cp->depth++] = cp->len;
	cp->buf[cp->len++] = '/';
	for (k = 0; k < seglen; k++)
	{
		if (is_pchar(seg[k]))
			cp->buf[cp->len++] = (char) seg[k];
		else
		{
			cp->buf[cp->len++] = '%';
			cp->buf[cp->len++] = hex[seg[k] >> 4];
			cp->buf[cp->len++] = hex[seg[k] & 0x0F];
		}
	}
}

/* ".." drops the last kept segment; clamping at the root would give the URI a second meaning. */
static bool
pop_segment(CanonPath *cp, const char **problem)
{
	if (cp->depth == 0)
	{
		*problem = P_ABOVE_ROOT;
		return false;
	}
	cp->len = cp->starts[--cp->depth];
	return true;
}

/*
 * Applies one decoded segment to the path: checks it, then drops it ("."),
 * climbs (".."), or keeps it.  last says whether it ends the input.
 */
static bool
apply_segment(CanonPath *cp, const unsigned char *seg, size_t seglen, bool last,
			  const char **problem)
{
	if (seglen == 0)
	{
		/*
		 * One trailing slash names the same directory; an empty segment
		 * anywhere else is a typo or a trick.
		 */
		if (last)
			return true;
		*problem = P_EMPTY_SEGMENT;
		return false;
	}
	/* Checked before dot segments, so a segment ".." removes is checked too. */
	if (!utf8_is_valid(seg, seglen))
	{
		*problem = P_BAD_UTF8;
		return false;
	}
	if (seglen == 1 && seg[0] == '.')
		return true;			/* "." names the current directory */
	if (seglen == 2 && seg[0] == '.' && seg[1] == '.')
		return pop_segment(cp, problem);
	push_segment(cp, seg, seglen);
	return true;
}

/*
 * Ends the canonical form: the root keeps its '/'.  Encoding can triple the
 * length; the canonical form must itself be a valid input, or normalization
 * would not be idempotent.
 */
static bool
finish_path(CanonPath *cp, const char **problem)
{
	if (cp->depth == 0)
		cp->buf[cp->len++] = '/';
	cp->buf[cp->len] = '\0';
	if (cp->len > MCPN_URI_MAX_LEN)
	{
		*problem = P_RESULT_TOO_LONG;
		return false;
	}
	return true;
}

/*
 * Normalizes an absolute path (p[0] == '/') and writes the canonical URI.
 * Segments are split on raw '/' only: an encoded one is refused, so the split
 * made before decoding equals the one after it.
 */
static bool
normalize_path(const unsigned char *p, size_t len, char **out,
			   const char **problem)
{
	CanonPath	cp;
	unsigned char *seg = palloc(len);
	size_t		i = 1;
	bool		ok;

	Assert(len > 0 && p[0] == '/');
	canon_init(&cp, len);
	for (;;)
	{
		size_t		end = i;
		size_t		seglen;

		ok = decode_segment(p, len, &end, seg, &seglen, problem) &&
			apply_segment(&cp, seg, seglen, end == len, problem);
		if (!ok || end == len)
			break;
		i = end + 1;
	}
	ok = ok && finish_path(&cp, problem);

	pfree(seg);
	pfree(cp.starts);
	if (!ok)
	{
		pfree(cp.buf);
		return false;
	}
	*out = cp.buf;
	return true;
}

bool
mcpn_normalize_uri(const char *in, size_t len, char **out, const char **problem)
{
	const unsigned char *s = (const unsigned char *) in;
	const unsigned char *end = s + len;
	const unsigned char *rest;
	const unsigned char *path;
	size_t		i;

	*out = NULL;

	if (len == 0)
	{
		*problem = P_EMPTY;
		return false;
	}
	/* First, so that the cost of a hostile input is bounded. */
	if (len > MCPN_URI_MAX_LEN)
	{
		*problem = P_TOO_LONG;
		return false;
	}
	/* Trimming would make two strings one URI; refuse instead. */
	if (is_space(s[0]) || is_space(s[len - 1]))
	{
		*problem = P_WHITESPACE;
		return false;
	}
	/* Raw control bytes, '?' and '#' are refused wherever they appear. */
	for (i = 0; i < len; i++)
	{
		if (is_control(s[i]))
		{
			*problem = P_CONTROL;
			return false;
		}
		if (s[i] == '?')
		{
			*problem = P_QUERY;
			return false;
		}
		if (s[i] == '#')
		{
			*problem = P_FRAGMENT;
			return false;
		}
	}

	if (len < 5 || !ascii_equal_ci(in, "file:", 5))
	{
		*problem = has_scheme(s, len) ? P_SCHEME : P_RELATIVE;
		return false;
	}

	rest = s + 5;
	if (end - rest >= 2 && rest[0] == '/' && rest[1] == '/')
	{
		const unsigned char *auth = rest + 2;

		path = memchr(auth, '/', end - auth);
		if (!check_authority(auth, (path ? path : end) - auth, problem))
			return false;
		if (path == NULL)
		{
			*problem = P_NO_PATH;
			return false;
		}
	}
	else if (rest == end)
	{
		*problem = P_NO_PATH;
		return false;
	}
	else if (rest[0] == '/')
		path = rest;
	else
	{
		*problem = P_ROOTLESS;
		return false;
	}

	return normalize_path(path, end - path, out, problem);
}

bool
mcpn_uri_is_within(const char *workspace, const char *target)
{
	size_t		wlen = strlen(workspace);

	if (strcmp(workspace, target) == 0)
		return true;
	/* The root is the only canonical form ending in '/'. */
	if (strcmp(workspace, "file:///") == 0)
		return strncmp(target, "file:///", 8) == 0;
	/* Whole components: "/work/notes-evil" is not inside "/work/notes". */
	return strncmp(target, workspace, wlen) == 0 && target[wlen] == '/';
}

/*
 * The input as it may appear in a message: printable ASCII kept, '"' and '\'
 * escaped, every other byte as \xNN so no control or bidi character reaches a
 * log or terminal raw; long inputs are cut.
 */
static char *
quote_for_message(const char *in, size_t len)
{
	StringInfoData buf;
	size_t		shown = Min(len, ECHO_MAX);
	size_t		i;

	initStringInfo(&buf);
	for (i = 0; i < shown; i++)
	{
		unsigned char c = (unsigned char) in[i];

		if (c == '"' || c == '\\')
		{
			appendStringInfoChar(&buf, '\\');
			appendStringInfoChar(&buf, (char) c);
		}
		else if (c >= 0x20 && c < 0x7F)
			appendStringInfoChar(&buf, (char) c);
		else
			appendStringInfo(&buf, "\\x%02X", c);
	}
	if (shown < len)
		appendStringInfoString(&buf, "...");
	return buf.data;
}

/* True when a text argument is too long to be a URI; checked before detoasting it. */
static inline bool
arg_too_long(FunctionCallInfo fcinfo, int argno)
{
	return toast_raw_datum_size(PG_GETARG_DATUM(argno)) - VARHDRSZ > MCPN_URI_MAX_LEN;
}

/*
 * normalize_uri(uri text) returns text
 *		The canonical form of a file: URI; raises 22P02 when it is malformed.
 */
Datum
mcp_notes_normalize_uri(PG_FUNCTION_ARGS)
{
	text	   *uri;
	char	   *result;
	const char *problem;

	if (arg_too_long(fcinfo, 0))
	{
		/* Only the quoted prefix is needed, so do not detoast the rest. */
		uri = PG_GETARG_TEXT_P_SLICE(0, 0, ECHO_MAX + 1);
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid file URI: \"%s\"",
						quote_for_message(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri))),
				 errdetail("%s", P_TOO_LONG)));
	}

	uri = PG_GETARG_TEXT_PP(0);
	if (!mcpn_normalize_uri(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &result, &problem))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
				 errmsg("invalid file URI: \"%s\"",
						quote_for_message(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri))),
				 errdetail("%s", problem)));

	PG_RETURN_TEXT_P(cstring_to_text(result));
}

/*
 * uri_contains(workspace text, target text) returns boolean
 *		True when target lies inside (or equals) workspace; false, never an
 *		error, when either is malformed.
 */
Datum
mcp_notes_uri_contains(PG_FUNCTION_ARGS)
{
	text	   *workspace;
	text	   *target;
	char	   *nworkspace;
	char	   *ntarget;
	const char *problem;

	if (arg_too_long(fcinfo, 0) || arg_too_long(fcinfo, 1))
		PG_RETURN_BOOL(false);

	workspace = PG_GETARG_TEXT_PP(0);
	target = PG_GETARG_TEXT_PP(1);
	if (!mcpn_normalize_uri(VARDATA_ANY(workspace), VARSIZE_ANY_EXHDR(workspace),
							&nworkspace, &problem) ||
		!mcpn_normalize_uri(VARDATA_ANY(target), VARSIZE_ANY_EXHDR(target),
							&ntarget, &problem))
		PG_RETURN_BOOL(false);

	PG_RETURN_BOOL(mcpn_uri_is_within(nworkspace, ntarget));
}

/*
 * _uri_problem(uri text) returns text
 *		NULL when the URI is well formed, else the sentence saying why not.
 *		Lets PL/pgSQL callers report a bad URI without catching an error.
 */
Datum
mcp_notes_uri_problem(PG_FUNCTION_ARGS)
{
	text	   *uri;
	char	   *normalized;
	const char *problem;

	if (arg_too_long(fcinfo, 0))
		PG_RETURN_TEXT_P(cstring_to_text(P_TOO_LONG));

	uri = PG_GETARG_TEXT_PP(0);
	if (mcpn_normalize_uri(VARDATA_ANY(uri), VARSIZE_ANY_EXHDR(uri), &normalized, &problem))
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(problem));
}
