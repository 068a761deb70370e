/* access/detoast.h (fuzz shim) */
#ifndef SHIM_DETOAST_H
#define SHIM_DETOAST_H

#include "postgres.h"

extern Size toast_raw_datum_size(Datum value);

#endif
