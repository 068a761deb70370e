/* utils/builtins.h (fuzz shim) */
#ifndef SHIM_BUILTINS_H
#define SHIM_BUILTINS_H

#include "postgres.h"

extern text *cstring_to_text(const char *s);

#endif
