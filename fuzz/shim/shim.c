/*
 * shim.c (fuzz shim)
 *		The few PostgreSQL functions extension/src/uri.c calls, outside the
 *		server: palloc from a per-input arena, StringInfo, the UTF-8 helpers,
 *		text conversion, detoasting (a no-op: nothing is toasted) and
 *		ereport.
 */
#include "postgres.h"

#include <stdarg.h>

#include "access/detoast.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "shim.h"

/* ------------------------------------------------------------------ arena */

/*
 * Every chunk is malloc'd separately (so AddressSanitizer sees its exact
 * bounds) behind a header linking it into one list; pfree unlinks and frees,
 * shim_arena_reset frees whatever is left.
 */
typedef union chunk
{
	struct
	{
		union chunk *prev;
		union chunk *next;
	}			link;
	max_align_t align;
} chunk;

static chunk arena = {.link = {&arena, &arena}};

static void
link_chunk(chunk *c)
{
	c->link.prev = arena.link.prev;
	c->link.next = &arena;
	arena.link.prev->link.next = c;
	arena.link.prev = c;
}

static void
unlink_chunk(chunk *c)
{
	c->link.prev->link.next = c->link.next;
	c->link.next->link.prev = c->link.prev;
}

void *
palloc(Size size)
{
	chunk	   *c = malloc(sizeof(chunk) + size);

	if (c == NULL)
	{
		fprintf(stderr, "shim: out of memory (palloc %zu)\n", size);
		abort();
	}
	link_chunk(c);
	return c + 1;
}

void
pfree(void *pointer)
{
	chunk	   *c = (chunk *) pointer - 1;

	unlink_chunk(c);
	free(c);
}

void *
repalloc(void *pointer, Size size)
{
	chunk	   *c = (chunk *) pointer - 1;

	unlink_chunk(c);
	c = realloc(c, sizeof(chunk) + size);
	if (c == NULL)
	{
		fprintf(stderr, "shim: out of memory (repalloc %zu)\n", size);
		abort();
	}
	link_chunk(c);
	return c + 1;
}

void
shim_arena_reset(void)
{
	while (arena.link.next != &arena)
		pfree(arena.link.next + 1);
}

/* -------------------------------------------------------------- StringInfo */

static void
enlarge(StringInfo str, int needed)
{
	int			want = str->len + needed + 1;

	if (needed < 0 || want > 64 * 1024 * 1024)
	{
		fprintf(stderr, "shim: StringInfo request of %d more bytes\n", needed);
		abort();
	}
	if (want <= str->maxlen)
		return;
	while (str->maxlen < want)
		str->maxlen *= 2;
	str->data = repalloc(str->data, str->maxlen);
}

void
initStringInfo(StringInfo str)
{
	str->maxlen = 1024;
	str->data = palloc(str->maxlen);
	str->data[0] = '\0';
	str->len = 0;
	str->cursor = 0;
}

void
appendBinaryStringInfo(StringInfo str, const void *data, int datalen)
{
	enlarge(str, datalen);
	memcpy(str->data + str->len, data, datalen);
	str->len += datalen;
	str->data[str->len] = '\0';
}

void
appendStringInfoString(StringInfo str, const char *s)
{
	appendBinaryStringInfo(str, s, (int) strlen(s));
}

void
appendStringInfoChar(StringInfo str, char ch)
{
	appendBinaryStringInfo(str, &ch, 1);
}

void
appendStringInfo(StringInfo str, const char *fmt,...)
{
	va_list		ap;
	int			n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	enlarge(str, n);
	va_start(ap, fmt);
	vsnprintf(str->data + str->len, n + 1, fmt, ap);
	va_end(ap);
	str->len += n;
}

/* ------------------------------------------------------------------- UTF-8 */

/*
 * Length of the UTF-8 character that begins at *s, judged by its first byte
 * alone, as PostgreSQL's pg_utf_mblen does (1 for a byte that cannot begin
 * a character).
 */
int
pg_utf_mblen(const unsigned char *s)
{
	if (*s < 0x80)
		return 1;
	if ((*s & 0xE0) == 0xC0)
		return 2;
	if ((*s & 0xF0) == 0xE0)
		return 3;
	if ((*s & 0xF8) == 0xF0)
		return 4;
	return 1;
}

static bool
tail(unsigned char c)			/* RFC 3629: UTF8-tail = %x80-BF */
{
	return c >= 0x80 && c <= 0xBF;
}

/*
 * Is source[0..length) one well-formed character (RFC 3629, section 4)?
 *
 * PostgreSQL's version is only defined for length == pg_utf_mblen(source)
 * (with another length it can accept a truncated character), so a call that
 * breaks that contract aborts here rather than being answered more strictly
 * than the server would.
 */
bool
pg_utf8_islegal(const unsigned char *source, int length)
{
	const unsigned char *s = source;

	if (length != pg_utf_mblen(source))
	{
		fprintf(stderr, "shim: pg_utf8_islegal(length %d) on a character of length %d\n",
				length, pg_utf_mblen(source));
		abort();
	}
	switch (length)
	{
		case 1:					/* UTF8-1 = %x00-7F */
			return s[0] <= 0x7F;
		case 2:					/* UTF8-2 = %xC2-DF UTF8-tail */
			return s[0] >= 0xC2 && s[0] <= 0xDF && tail(s[1]);
		case 3:					/* UTF8-3 */
			if (s[0] == 0xE0)
				return s[1] >= 0xA0 && s[1] <= 0xBF && tail(s[2]);
			if ((s[0] >= 0xE1 && s[0] <= 0xEC) || s[0] == 0xEE || s[0] == 0xEF)
				return tail(s[1]) && tail(s[2]);
			if (s[0] == 0xED)
				return s[1] >= 0x80 && s[1] <= 0x9F && tail(s[2]);
			return false;
		case 4:					/* UTF8-4 */
			if (s[0] == 0xF0)
				return s[1] >= 0x90 && s[1] <= 0xBF && tail(s[2]) && tail(s[3]);
			if (s[0] >= 0xF1 && s[0] <= 0xF3)
				return tail(s[1]) && tail(s[2]) && tail(s[3]);
			if (s[0] == 0xF4)
				return s[1] >= 0x80 && s[1] <= 0x8F && tail(s[2]) && tail(s[3]);
			return false;
		default:
			return false;
	}
}

/* -------------------------------------------------------- text and toast */

text *
cstring_to_text(const char *s)
{
	size_t		len = strlen(s);
	text	   *t = palloc(VARHDRSZ + len);

	SET_VARSIZE(t, VARHDRSZ + len);
	memcpy(VARDATA_ANY(t), s, len);
	return t;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	return datum;
}

struct varlena *
pg_detoast_datum_slice(struct varlena *datum, int32_t first, int32_t count)
{
	int32_t		have = (int32_t) VARSIZE_ANY_EXHDR(datum);
	int32_t		n;
	struct varlena *copy;

	if (first > have)
		first = have;
	n = (count < 0 || count > have - first) ? have - first : count;
	copy = palloc(VARHDRSZ + n);
	SET_VARSIZE(copy, VARHDRSZ + n);
	memcpy(VARDATA_ANY(copy), VARDATA_ANY(datum) + first, n);
	return copy;
}

Size
toast_raw_datum_size(Datum value)
{
	return VARSIZE_ANY(DatumGetPointer(value));
}

/* ----------------------------------------------------------------- errors */

jmp_buf    *shim_error_catch;
char	   *shim_errmsg;
char	   *shim_errdetail;

static char *
format(const char *fmt, va_list ap)
{
	StringInfoData buf;
	va_list		copy;
	int			n;

	initStringInfo(&buf);
	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	enlarge(&buf, n);
	vsnprintf(buf.data, n + 1, fmt, ap);
	return buf.data;
}

int
errcode(int sqlerrcode)
{
	(void) sqlerrcode;
	return 0;
}

int
errmsg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	shim_errmsg = format(fmt, ap);
	va_end(ap);
	return 0;
}

int
errdetail(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	shim_errdetail = format(fmt, ap);
	va_end(ap);
	return 0;
}

void
shim_ereport_finish(int elevel)
{
	if (shim_error_catch != NULL)
		longjmp(*shim_error_catch, 1);
	fprintf(stderr, "ereport(%d): %s\nDETAIL: %s\n", elevel,
			shim_errmsg ? shim_errmsg : "", shim_errdetail ? shim_errdetail : "");
	abort();
}

/* ------------------------------------------------------------------- port */

int
pg_strncasecmp(const char *s1, const char *s2, size_t n)
{
	/* ASCII folding only, as the server does in a C or UTF-8 locale */
	for (; n > 0; n--, s1++, s2++)
	{
		unsigned char c1 = (unsigned char) *s1;
		unsigned char c2 = (unsigned char) *s2;

		if (c1 >= 'A' && c1 <= 'Z')
			c1 += 'a' - 'A';
		if (c2 >= 'A' && c2 <= 'Z')
			c2 += 'a' - 'A';
		if (c1 != c2)
			return c1 - c2;
		if (c1 == 0)
			break;
	}
	return 0;
}
