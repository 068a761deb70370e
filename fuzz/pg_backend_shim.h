/*
 * pg_backend_shim.h
 *		What the fuzz drivers need from pg_backend_shim.c beyond the backend
 *		API it provides.
 */
#ifndef PG_BACKEND_SHIM_H
#define PG_BACKEND_SHIM_H

#include <setjmp.h>

/*
 * Frees everything palloc'd since the last reset, as the server resets the
 * memory context a function was called in; call after each input.
 */
extern void shim_arena_reset(void);

/*
 * ereport(ERROR) longjmps here when set (else it prints and aborts), leaving
 * the formatted message and detail in shim_errmsg / shim_errdetail (palloc'd,
 * or NULL when the report had none).
 */
extern jmp_buf *shim_error_catch;
extern char *shim_errmsg;
extern char *shim_errdetail;
extern int	shim_errcode;

#endif
