/*
 * pgshim.h
 *		What state_check.c needs from pgshim.c beyond the backend API.
 */
#ifndef PGSHIM_H
#define PGSHIM_H

#include <setjmp.h>

#include "utils/jsonb.h"
#include "utils/timestamp.h"

#define SHIM_MAX_KEYS 4

struct shim_key
{
	int32		key_id;
	bool		retired;
	int			secret_len;		/* 32, or wrong on purpose */
	uint8		secret[64];
};

extern struct shim_key shim_keys[SHIM_MAX_KEYS];
extern int	shim_nkeys;

/* ereport(ERROR) longjmps here, leaving the message and SQLSTATE code */
extern jmp_buf *shim_catch;
extern char shim_errmsg[1024];
extern int	shim_errcode;

extern TimestampTz shim_now;

/* a Jsonb datum holding json (the container header says object or array) */
extern Jsonb *shim_jsonb(const char *json);
extern const char *shim_jsonb_text(Jsonb *j);

/* SPI_connect calls not yet matched by SPI_finish */
extern int	shim_spi_depth(void);
extern void shim_spi_reset(void);

#endif
