/*
 * pg_backend_shim.c
 *		The backend functions extension/src/uri.c calls that are not in
 *		libpgcommon/libpgport, for uri_fuzz and uri_check.  uri.c is compiled
 *		unchanged against the real server headers; StringInfo, psprintf and
 *		the UTF-8 functions (pg_utf_mblen, pg_utf8_islegal) come from
 *		PostgreSQL's own libpgcommon.a, printf from libpgport.a.
 *
 *		What is shimmed:
 *		- palloc, repalloc, pfree: a per-input "memory context".  Each chunk
 *		  is its own malloc (so AddressSanitizer sees its exact bounds) on a
 *		  list that shim_arena_reset frees, as the server resets the context
 *		  after a call; LeakSanitizer then still checks everything else.
 *		  Defining them here keeps libpgcommon's fe_memutils.o (palloc =
 *		  malloc, never freed by uri.c) out of the link; should anything
 *		  need it again, the link fails with a duplicate palloc.
 *		- ereport: errstart/errfinish/errcode/errmsg/errdetail; ERROR
 *		  longjmps to shim_error_catch.
 *		- detoasting and text: nothing here is toasted or compressed, so
 *		  these handle plain and short-header varlenas only, as the server's
 *		  do, and abort on anything else.
 *		- ExceptionalCondition, for Assert (built with USE_ASSERT_CHECKING).
 *		- __wrap_pg_utf8_islegal (linked with --wrap): the server's function
 *		  is only defined for length == pg_utf_mblen(source), so a call that
 *		  breaks that contract aborts; the bytes are read here first, so an
 *		  out-of-bounds read is seen by AddressSanitizer although
 *		  libpgcommon is not instrumented.
 */
#include "postgres.h"

#include <stdarg.h>

#include "access/detoast.h"
#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/memutils.h"

#include "pg_backend_shim.h"

/* ------------------------------------------------------------------ memory */

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

/* As in the server, a request above MaxAllocSize is an error, not a big malloc. */
static void
check_size(const char *what, Size size)
{
	if (!AllocSizeIsValid(size))
	{
		fprintf(stderr, "shim: invalid memory alloc request size %zu (%s)\n", size, what);
		abort();
	}
}

void *
palloc(Size size)
{
	chunk	   *c;

	check_size("palloc", size);
	c = malloc(sizeof(chunk) + size);
	if (c == NULL)
	{
		fprintf(stderr, "shim: out of memory (palloc %zu)\n", size);
		abort();
	}
	link_chunk(c);
	return c + 1;
}

void *
palloc0(Size size)
{
	void	   *p = palloc(size);

	memset(p, 0, size);
	return p;
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

	check_size("repalloc", size);
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

/* ----------------------------------------------------------------- ereport */

jmp_buf    *shim_error_catch;
char	   *shim_errmsg;
char	   *shim_errdetail;
int			shim_errcode;
static int	cur_elevel;

static char *
format(const char *fmt, va_list ap)
{
	va_list		copy;
	int			n;
	char	   *s;

	va_copy(copy, ap);
	n = vsnprintf(NULL, 0, fmt, copy);
	va_end(copy);
	if (n < 0)
	{
		fprintf(stderr, "shim: bad format \"%s\"\n", fmt);
		abort();
	}
	s = palloc((Size) n + 1);
	vsnprintf(s, (size_t) n + 1, fmt, ap);
	return s;
}

bool
errstart_cold(int elevel, const char *domain)
{
	(void) domain;
	cur_elevel = elevel;
	shim_errmsg = NULL;
	shim_errdetail = NULL;
	shim_errcode = 0;
	return elevel >= ERROR;		/* lower levels are dropped */
}

bool
errstart(int elevel, const char *domain)
{
	return errstart_cold(elevel, domain);
}

void
errfinish(const char *filename, int lineno, const char *funcname)
{
	if (cur_elevel < ERROR)
		return;
	if (shim_error_catch != NULL)
		longjmp(*shim_error_catch, 1);
	fprintf(stderr, "shim: uncaught ERROR at %s:%d (%s): %s\nDETAIL: %s\n",
			filename, lineno, funcname,
			shim_errmsg ? shim_errmsg : "", shim_errdetail ? shim_errdetail : "");
	abort();
}

int
errcode(int sqlerrcode)
{
	shim_errcode = sqlerrcode;
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
ExceptionalCondition(const char *conditionName, const char *errorType,
					 const char *fileName, int lineNumber)
{
	fprintf(stderr, "shim: %s(\"%s\") failed at %s:%d\n",
			errorType ? errorType : "Assert", conditionName, fileName, lineNumber);
	abort();
}

/* ---------------------------------------------------------- varlena, text */

static void
check_plain(const struct varlena *attr, const char *what)
{
	if (VARATT_IS_EXTENDED(attr) && !VARATT_IS_SHORT(attr))
	{
		fprintf(stderr, "shim: %s of a toasted or compressed datum\n", what);
		abort();
	}
}

Size
toast_raw_datum_size(Datum value)
{
	struct varlena *attr = (struct varlena *) DatumGetPointer(value);

	check_plain(attr, "toast_raw_datum_size");
	/* the server normalizes a short header to VARHDRSZ */
	if (VARATT_IS_SHORT(attr))
		return VARSIZE_SHORT(attr) - VARHDRSZ_SHORT + VARHDRSZ;
	return VARSIZE(attr);
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	check_plain(datum, "pg_detoast_datum_packed");
	return datum;
}

/* As detoast_attr_slice: a copy with a 4-byte header, clamped to the value. */
struct varlena *
pg_detoast_datum_slice(struct varlena *datum, int32 first, int32 count)
{
	int32		have = (int32) VARSIZE_ANY_EXHDR(datum);
	struct varlena *copy;

	check_plain(datum, "pg_detoast_datum_slice");
	if (first < 0)
	{
		fprintf(stderr, "shim: invalid sliceoffset: %d\n", first);
		abort();
	}
	if (first >= have)
		first = count = 0;
	else if (count < 0 || count > have - first)
		count = have - first;
	copy = palloc(VARHDRSZ + count);
	SET_VARSIZE(copy, VARHDRSZ + count);
	memcpy(VARDATA(copy), VARDATA_ANY(datum) + first, count);
	return copy;
}

text *
cstring_to_text_with_len(const char *s, int len)
{
	text	   *t = palloc(len + VARHDRSZ);

	SET_VARSIZE(t, len + VARHDRSZ);
	memcpy(VARDATA(t), s, len);
	return t;
}

text *
cstring_to_text(const char *s)
{
	return cstring_to_text_with_len(s, strlen(s));
}

/* ------------------------------------------------------------------- UTF-8 */

extern bool __real_pg_utf8_islegal(const unsigned char *source, int length);
extern bool __wrap_pg_utf8_islegal(const unsigned char *source, int length);

bool
__wrap_pg_utf8_islegal(const unsigned char *source, int length)
{
	volatile unsigned char sink = source[0];
	int			i;

	if (length < 1 || length != pg_utf_mblen(source))
	{
		fprintf(stderr, "shim: pg_utf8_islegal(length %d) on a character of length %d\n",
				length, pg_utf_mblen(source));
		abort();
	}
	for (i = 1; i < length; i++)
		sink ^= source[i];		/* instrumented reads of what libpgcommon reads */
	(void) sink;
	return __real_pg_utf8_islegal(source, length);
}
