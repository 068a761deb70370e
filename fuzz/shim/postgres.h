/*
 * postgres.h (fuzz shim)
 *		Just enough of PostgreSQL for extension/src/uri.c to build outside the
 *		server.  Memory comes from a per-input arena (shim.c) that the fuzzer
 *		frees after each input; errors print to stderr and abort.
 */
#ifndef SHIM_POSTGRES_H
#define SHIM_POSTGRES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef size_t Size;

#define Min(x, y)		((x) < (y) ? (x) : (y))
#define Max(x, y)		((x) > (y) ? (x) : (y))

/* Assertions are always checked here, as in a --enable-cassert build. */
#define Assert(condition) \
	((condition) ? (void) 0 : \
	 (fprintf(stderr, "%s:%d: Assert(%s) failed\n", __FILE__, __LINE__, #condition), abort()))
typedef uintptr_t Datum;

#define PointerGetDatum(p)	((Datum) (p))
#define DatumGetPointer(d)	((void *) (d))
#define BoolGetDatum(b)		((Datum) ((b) ? 1 : 0))

/* A varlena with a plain 4-byte length word (never short, compressed or toasted). */
struct varlena
{
	uint32_t	vl_len;			/* total size, header included */
	char		vl_dat[];
};
typedef struct varlena text;

#define VARHDRSZ			((int32_t) sizeof(uint32_t))
#define VARSIZE_ANY(p)		(((const struct varlena *) (p))->vl_len)
#define VARSIZE_ANY_EXHDR(p) (VARSIZE_ANY(p) - VARHDRSZ)
#define VARDATA_ANY(p)		(((struct varlena *) (p))->vl_dat)
#define SET_VARSIZE(p, n)	(((struct varlena *) (p))->vl_len = (uint32_t) (n))

/* Memory: see shim.c. */
extern void *palloc(Size size);
extern void *repalloc(void *pointer, Size size);
extern void pfree(void *pointer);

/* Error reporting: every ereport() prints its message and aborts. */
#define ERROR 21
#define ERRCODE_INVALID_TEXT_REPRESENTATION 0
extern int	errcode(int sqlerrcode);
extern int	errmsg(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern int	errdetail(const char *fmt,...) __attribute__((format(printf, 1, 2)));
extern void shim_ereport_finish(int elevel) __attribute__((noreturn));
#define ereport(elevel, ...) ((void) (__VA_ARGS__), shim_ereport_finish(elevel))

/* src/port */
extern int	pg_strncasecmp(const char *s1, const char *s2, size_t n);

#endif
