/*
 * shim.h (fuzz shim)
 *		What the fuzz drivers need from the shim beyond the PostgreSQL API.
 */
#ifndef SHIM_SHIM_H
#define SHIM_SHIM_H

#include <setjmp.h>
#include <stddef.h>

/* Frees everything palloc'd since the last reset; call after each input. */
extern void shim_arena_reset(void);

/*
 * ereport(ERROR) longjmps here when set (else it prints and aborts), leaving
 * the formatted message and detail in shim_errmsg / shim_errdetail.
 */
extern jmp_buf *shim_error_catch;
extern char *shim_errmsg;
extern char *shim_errdetail;

#endif
