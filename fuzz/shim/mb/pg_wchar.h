/* mb/pg_wchar.h (fuzz shim): the two UTF-8 helpers uri.c uses. */
#ifndef SHIM_PG_WCHAR_H
#define SHIM_PG_WCHAR_H

#include "postgres.h"

extern int	pg_utf_mblen(const unsigned char *s);
extern bool pg_utf8_islegal(const unsigned char *source, int length);

#endif
