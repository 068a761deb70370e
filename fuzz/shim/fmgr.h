/* fmgr.h (fuzz shim): the V1 calling convention, reduced to an argument array. */
#ifndef SHIM_FMGR_H
#define SHIM_FMGR_H

#include "postgres.h"

typedef struct FunctionCallInfoBaseData
{
	bool		isnull;			/* result is NULL */
	short		nargs;
	struct
	{
		Datum		value;
		bool		isnull;
	}			args[2];
} FunctionCallInfoBaseData;
typedef FunctionCallInfoBaseData *FunctionCallInfo;

#define PG_FUNCTION_ARGS	FunctionCallInfo fcinfo
#define PG_FUNCTION_INFO_V1(funcname) extern Datum funcname(PG_FUNCTION_ARGS)

extern struct varlena *pg_detoast_datum_packed(struct varlena *datum);
extern struct varlena *pg_detoast_datum_slice(struct varlena *datum, int32_t first, int32_t count);

#define PG_GETARG_DATUM(n)	(fcinfo->args[n].value)
#define PG_GETARG_TEXT_PP(n) \
	((text *) pg_detoast_datum_packed((struct varlena *) DatumGetPointer(PG_GETARG_DATUM(n))))
#define PG_GETARG_TEXT_P_SLICE(n, a, b) \
	((text *) pg_detoast_datum_slice((struct varlena *) DatumGetPointer(PG_GETARG_DATUM(n)), a, b))

#define PG_RETURN_BOOL(x)	return BoolGetDatum(x)
#define PG_RETURN_TEXT_P(x)	return PointerGetDatum(x)
#define PG_RETURN_NULL()	do { fcinfo->isnull = true; return (Datum) 0; } while (0)

#endif
