/*
 * uri_fuzz.c
 *		libFuzzer target for extension/src/uri.c.  Every input is checked
 *		against the oracle in uri_reference.c and against the invariants of
 *		docs/uri-normalization.md; any violation prints what differs and aborts.
 *
 *	The input is a URI, or two URIs separated by the first newline (a
 *	workspace, then a target).  Since a newline is a control byte, the whole
 *	input is then malformed, and each half is checked as a URI of its own and
 *	as a (workspace, target) pair both ways round.  An input without a newline
 *	is also paired with a few targets derived from it (itself plus "/..",
 *	"/%2e%2E/x", "-evil", ...).
 *
 *	Invariants:
 *	 1. uri.c and the reference agree on the verdict, and on the canonical
 *		form byte for byte.
 *	 2. The canonical form normalizes to itself (idempotence).
 *	 3. The canonical form has the documented shape: ASCII, "file:///",
 *		no empty, "." or ".." segment, no trailing "/", every "%" followed
 *		by two upper-case hex digits encoding a byte that must be encoded
 *		and is not a control byte, "/" or "\", at most 4096 bytes.
 *	 4. mcpn_uri_is_within agrees with the reference (component prefix), with
 *		the document's string rule, and is never true when the target's
 *		decoded components leave the workspace's.
 *	 5. The SQL-callable wrappers agree (normalize_uri, uri_contains,
 *		_uri_problem), and normalize_uri's error message quotes the input as
 *		the document says: printable ASCII only, at most 200 input bytes.
 */
#include "postgres.h"

#include <stdarg.h>
#include <stdint.h>

#include "fmgr.h"
#include "pg_backend_shim.h"
#include "uri.h"
#include "uri_reference.h"

extern Datum mcp_notes_normalize_uri(PG_FUNCTION_ARGS);
extern Datum mcp_notes_uri_contains(PG_FUNCTION_ARGS);
extern Datum mcp_notes_uri_problem(PG_FUNCTION_ARGS);
extern int	uri_selftest(void);

/* ------------------------------------------------------------ reporting */

static const uint8_t *cur_data;
static size_t cur_size;

static void
print_bytes(const char *label, const void *p, size_t n)
{
	const unsigned char *s = p;
	size_t		i;

	fprintf(stderr, "  %s (%zu bytes): \"", label, n);
	for (i = 0; i < n && i < 300; i++)
	{
		if (s[i] >= 0x20 && s[i] < 0x7F && s[i] != '"' && s[i] != '\\')
			fputc(s[i], stderr);
		else
			fprintf(stderr, "\\x%02X", s[i]);
	}
	fprintf(stderr, "%s\"\n", i < n ? "..." : "");
}

static void
violation(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));

static void
violation(const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "\n==== uri_fuzz: INVARIANT VIOLATED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
	if (cur_data)
		print_bytes("whole fuzzer input", cur_data, cur_size);
	abort();
}

/* ------------------------------------------------------- one URI, checked */

struct checked
{
	const uint8_t *in;
	size_t		len;
	bool		ok;				/* uri.c's verdict */
	char	   *out;			/* uri.c's canonical form */
	const char *problem;
	struct ref_uri ref;
};

static int
upper_hex(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static bool
raw_in_canonical(unsigned char c)	/* the "Canonical form" list, again */
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		(c != '\0' && strchr("-._~!$&'()*+,;=:@", c) != NULL);
}

/* Invariant 3. */
static void
check_shape(const struct checked *c)
{
	const char *o = c->out;
	size_t		n = strlen(o);
	size_t		i;
	size_t		seg_start;

	if (n > MCPN_URI_MAX_LEN)
		violation("canonical form longer than %d bytes: %zu", MCPN_URI_MAX_LEN, n);
	if (strncmp(o, "file:///", 8) != 0)
		violation("canonical form does not start with file:///: %.60s", o);
	for (i = 0; i < n; i++)
		if ((unsigned char) o[i] >= 0x80 || (unsigned char) o[i] < 0x20 || o[i] == 0x7F)
			violation("canonical form has a non-ASCII or control byte 0x%02X at %zu",
					  (unsigned char) o[i], i);
	if (n == 8)
		return;					/* the root */

	/* segments of o[8..n) */
	seg_start = 8;
	for (i = 8; i <= n; i++)
	{
		if (i < n && o[i] != '/')
			continue;
		{
			size_t		len = i - seg_start;
			const char *s = o + seg_start;

			if (len == 0)
				violation("canonical form has an empty segment or trailing /: %.80s", o);
			if ((len == 1 && s[0] == '.') || (len == 2 && s[0] == '.' && s[1] == '.'))
				violation("canonical form has a dot segment: %.80s", o);
		}
		seg_start = i + 1;
	}

	for (i = 8; i < n; i++)
	{
		unsigned char ch = (unsigned char) o[i];

		if (ch == '/' || raw_in_canonical(ch))
			continue;
		if (ch == '%')
		{
			int			hi = i + 1 < n ? upper_hex((unsigned char) o[i + 1]) : -1;
			int			lo = i + 2 < n ? upper_hex((unsigned char) o[i + 2]) : -1;
			unsigned char b;

			if (hi < 0 || lo < 0)
				violation("canonical form has %% not followed by two upper-case hex digits at %zu: %.80s",
						  i, o);
			b = (unsigned char) (hi * 16 + lo);
			if (b < 0x20 || b == 0x7F)
				violation("canonical form encodes a control byte %%%02X", b);
			if (b == '/' || b == '\\')
				violation("canonical form encodes a slash or backslash %%%02X", b);
			if (raw_in_canonical(b))
				violation("canonical form encodes %%%02X, which must be written raw", b);
			i += 2;
			continue;
		}
		violation("canonical form has raw byte '%c' that must be encoded", ch);
	}
}

/* Invariants 1, 2, 3 for in[0..len); c->in must stay valid while c is used. */
static void
check_uri(struct checked *c, const uint8_t *in, size_t len)
{
	char	   *again;
	const char *problem2;

	c->in = in;
	c->len = len;
	c->out = NULL;
	c->problem = NULL;
	c->ok = mcpn_normalize_uri((const char *) in, len, &c->out, &c->problem);
	ref_normalize(in, len, &c->ref);

	if (c->ok != c->ref.ok)
	{
		print_bytes("URI", in, len);
		violation("verdicts differ: uri.c %s%s, reference %s%s",
				  c->ok ? "accepts as " : "refuses: ", c->ok ? c->out : c->problem,
				  c->ref.ok ? "accepts as " : "refuses: ", c->ref.ok ? c->ref.canon : c->ref.why);
	}
	if (!c->ok)
	{
		if (c->problem == NULL || c->problem[0] == '\0')
			violation("uri.c refused without a problem sentence");
		return;
	}
	if (c->out == NULL)
		violation("uri.c accepted but returned no canonical form");
	if (strcmp(c->out, c->ref.canon) != 0)
	{
		print_bytes("URI", in, len);
		print_bytes("uri.c", c->out, strlen(c->out));
		print_bytes("reference", c->ref.canon, c->ref.canon_len);
		violation("canonical forms differ");
	}
	check_shape(c);

	if (!mcpn_normalize_uri(c->out, strlen(c->out), &again, &problem2))
	{
		print_bytes("canonical form", c->out, strlen(c->out));
		violation("not idempotent: the canonical form is refused: %s", problem2);
	}
	if (strcmp(again, c->out) != 0)
	{
		print_bytes("first pass", c->out, strlen(c->out));
		print_bytes("second pass", again, strlen(again));
		violation("not idempotent: normalizing the canonical form changes it");
	}
}

/* ------------------------------------------------------------ containment */

/* The document's string rule, applied to the reference's canonical forms. */
static bool
doc_string_rule(const char *ws, const char *t)
{
	size_t		n = strlen(ws);

	return strcmp(t, ws) == 0 || strcmp(ws, "file:///") == 0 ||
		(strncmp(t, ws, n) == 0 && t[n] == '/');
}

/* Decoded components of t leave those of ws (or either is malformed)? */
static bool
climbs_out(const struct ref_uri *ws, const struct ref_uri *t)
{
	size_t		k;

	if (!ws->ok || !t->ok || t->ncomp < ws->ncomp)
		return true;
	for (k = 0; k < ws->ncomp; k++)
		if (ws->comp_len[k] != t->comp_len[k] ||
			memcmp(ws->bytes + ws->comp_off[k], t->bytes + t->comp_off[k], ws->comp_len[k]) != 0)
			return true;
	return false;
}

/*
 * A text datum holding p[0..n): with a 4-byte header, or with the 1-byte
 * header the server uses for short values stored in a tuple (when n fits),
 * so that uri.c is seen to read both through VARDATA_ANY / VARSIZE_ANY.
 */
static text *
make_text(const uint8_t *p, size_t n, bool short_header)
{
	text	   *t;

	if (short_header && n + VARHDRSZ_SHORT <= VARATT_SHORT_MAX)
	{
		t = palloc(VARHDRSZ_SHORT + n);
		SET_VARSIZE_SHORT(t, VARHDRSZ_SHORT + n);
		memcpy(VARDATA_SHORT(t), p, n);
		return t;
	}
	t = palloc(VARHDRSZ + n);
	SET_VARSIZE(t, VARHDRSZ + n);
	memcpy(VARDATA(t), p, n);
	return t;
}

static bool
sql_uri_contains(const struct checked *ws, const struct checked *t)
{
	LOCAL_FCINFO(fc, 2);
	Datum		d;

	InitFunctionCallInfoData(*fc, NULL, 2, InvalidOid, NULL, NULL);
	fc->args[0].value = PointerGetDatum(make_text(ws->in, ws->len, true));
	fc->args[0].isnull = false;
	fc->args[1].value = PointerGetDatum(make_text(t->in, t->len, false));
	fc->args[1].isnull = false;
	d = mcp_notes_uri_contains(fc);
	if (fc->isnull)
		violation("uri_contains() (SQL) returned NULL");
	return DatumGetBool(d);
}

/* Invariant 4 for (ws, t), both already through check_uri; "sql" adds uri_contains(). */
static void
check_pair(const struct checked *ws, const struct checked *t, bool sql)
{
	bool		c_in = ws->ok && t->ok && mcpn_uri_is_within(ws->out, t->out);
	bool		r_in = ref_contains(&ws->ref, &t->ref);
	bool		s_in = ws->ok && t->ok && doc_string_rule(ws->ref.canon, t->ref.canon);

	if (c_in != r_in || c_in != s_in)
	{
		print_bytes("workspace", ws->in, ws->len);
		print_bytes("target", t->in, t->len);
		violation("containment differs: uri.c %d, reference components %d, string rule %d",
				  c_in, r_in, s_in);
	}
	if (c_in && climbs_out(&ws->ref, &t->ref))
	{
		print_bytes("workspace", ws->in, ws->len);
		print_bytes("target", t->in, t->len);
		violation("inside, yet the target's decoded components leave the workspace");
	}
	if (ws->ok && !mcpn_uri_is_within(ws->out, ws->out))
		violation("a canonical workspace does not contain itself: %s", ws->out);
	if (sql && sql_uri_contains(ws, t) != c_in)
	{
		print_bytes("workspace", ws->in, ws->len);
		print_bytes("target", t->in, t->len);
		violation("uri_contains() (SQL) differs from mcpn_uri_is_within");
	}
}

/* --------------------------------------------------- the SQL wrappers (5) */

/* The document's "In error messages" quoting, written out independently. */
static char *
expected_quote(const uint8_t *p, size_t n)
{
	size_t		shown = n < 200 ? n : 200;
	char	   *q = palloc(4 * shown + 4);
	char	   *o = q;
	size_t		i;

	for (i = 0; i < shown; i++)
	{
		if (p[i] == '"' || p[i] == '\\')
		{
			*o++ = '\\';
			*o++ = (char) p[i];
		}
		else if (p[i] >= 0x20 && p[i] <= 0x7E)
			*o++ = (char) p[i];
		else
			o += sprintf(o, "\\x%02X", p[i]);
	}
	if (shown < n)
		o += sprintf(o, "...");
	*o = '\0';
	return q;
}

static void
check_sql(const struct checked *c)
{
	LOCAL_FCINFO(fc, 1);
	jmp_buf		jb;
	Datum		d;

	/* _uri_problem: NULL exactly when well formed */
	InitFunctionCallInfoData(*fc, NULL, 1, InvalidOid, NULL, NULL);
	fc->args[0].value = PointerGetDatum(make_text(c->in, c->len, false));
	fc->args[0].isnull = false;
	d = mcp_notes_uri_problem(fc);
	if (fc->isnull != c->ok)
		violation("_uri_problem() is %s for a URI uri.c %s",
				  fc->isnull ? "NULL" : "not NULL", c->ok ? "accepts" : "refuses");
	if (!fc->isnull && VARSIZE_ANY_EXHDR(DatumGetPointer(d)) == 0)
		violation("_uri_problem() returned an empty sentence");

	/* normalize_uri: the canonical form, or 22P02 with a safely quoted input */
	fc->isnull = false;
	fc->args[0].value = PointerGetDatum(make_text(c->in, c->len, true));
	shim_errmsg = shim_errdetail = NULL;
	shim_errcode = 0;
	if (setjmp(jb) == 0)
	{
		shim_error_catch = &jb;
		d = mcp_notes_normalize_uri(fc);
		shim_error_catch = NULL;
		if (!c->ok)
			violation("normalize_uri() (SQL) returned for a URI uri.c refuses");
		if (VARSIZE_ANY_EXHDR(DatumGetPointer(d)) != strlen(c->out) ||
			memcmp(VARDATA_ANY(DatumGetPointer(d)), c->out, strlen(c->out)) != 0)
			violation("normalize_uri() (SQL) differs from mcpn_normalize_uri");
	}
	else
	{
		const char *prefix = "invalid file URI: \"";
		char	   *want;
		size_t		i;

		shim_error_catch = NULL;
		if (c->ok)
			violation("normalize_uri() (SQL) raised an error for a URI uri.c accepts");
		if (shim_errmsg == NULL || shim_errdetail == NULL || shim_errdetail[0] == '\0')
			violation("normalize_uri() (SQL) error without message or detail");
		if (shim_errcode != ERRCODE_INVALID_TEXT_REPRESENTATION)
			violation("normalize_uri() (SQL) error has SQLSTATE code %d, not 22P02",
					  shim_errcode);
		for (i = 0; shim_errmsg[i]; i++)
			if ((unsigned char) shim_errmsg[i] < 0x20 || (unsigned char) shim_errmsg[i] > 0x7E)
				violation("error message has byte 0x%02X at %zu: not printable ASCII",
						  (unsigned char) shim_errmsg[i], i);
		want = expected_quote(c->in, c->len);
		if (strncmp(shim_errmsg, prefix, strlen(prefix)) != 0 ||
			strncmp(shim_errmsg + strlen(prefix), want, strlen(want)) != 0 ||
			strcmp(shim_errmsg + strlen(prefix) + strlen(want), "\"") != 0)
		{
			print_bytes("message", shim_errmsg, strlen(shim_errmsg));
			print_bytes("expected quote", want, strlen(want));
			violation("error message does not quote the input as documented");
		}
	}
}

/* --------------------------------------------------------------- the target */

static struct checked whole, half_a, half_b, derived;

/* Copy into an exact-size buffer, so reading past the end is caught. */
static uint8_t *
exact_copy(const uint8_t *p, size_t n)
{
	uint8_t    *q = palloc(n ? n : 1);

	memcpy(q, p, n);
	return q;
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	if (uri_selftest() != 0)
	{
		fprintf(stderr, "uri_fuzz: the reference fails its own test table\n");
		abort();
	}
	return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const uint8_t *nl = memchr(data, '\n', size);

	cur_data = data;
	cur_size = size;

	check_uri(&whole, data, size);
	check_sql(&whole);

	if (nl != NULL)
	{
		size_t		na = (size_t) (nl - data);
		size_t		nb = size - na - 1;

		check_uri(&half_a, exact_copy(data, na), na);
		check_uri(&half_b, exact_copy(nl + 1, nb), nb);
		check_sql(&half_a);
		check_sql(&half_b);
		check_pair(&half_a, &half_b, true);
		check_pair(&half_b, &half_a, true);
	}
	else if (size <= MCPN_URI_MAX_LEN)
	{
		static const char *const suffixes[] = {
			"", "/", "/a", "/..", "/../x", "/%2e%2E", "/.%2e/x", "/a/../..", "-evil", "%2Fx",
		};
		size_t		k;

		for (k = 0; k < sizeof(suffixes) / sizeof(suffixes[0]); k++)
		{
			size_t		ns = strlen(suffixes[k]);
			uint8_t    *t = palloc(size + ns);

			memcpy(t, data, size);
			memcpy(t + size, suffixes[k], ns);
			check_uri(&derived, t, size + ns);
			check_pair(&whole, &derived, k == 0);
			check_pair(&derived, &whole, false);
		}
	}

	shim_arena_reset();
	cur_data = NULL;
	return 0;
}
