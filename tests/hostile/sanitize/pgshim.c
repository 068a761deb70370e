/*
 * pgshim.c
 *		The backend functions extension/src/state.c calls, outside the server,
 *		for state_check.c.  state.c is compiled unchanged against the real
 *		server headers; the pure parts it uses (base64, HMAC-SHA256, StringInfo,
 *		psprintf, pg_strong_random) come from PostgreSQL's own libpgcommon.a and
 *		libpgport.a, whose palloc is plain malloc, so AddressSanitizer sees the
 *		exact bounds of every allocation (inside the server, palloc chunks share
 *		8 KiB blocks and an overrun within a block goes unseen).
 *
 *		What is shimmed: ereport/elog (a longjmp back to the test), SPI (a
 *		table of state keys in memory), jsonb (a Jsonb here is a varlena
 *		holding a container header and the JSON text; jsonb_in checks the text
 *		with json-c), the clock, and detoasting (nothing is toasted).
 */
#include "postgres.h"

#include <setjmp.h>
#include <stdarg.h>


#include "executor/spi.h"
#include "fmgr.h"
#define json_object pg_sql_json_object	/* fmgrprotos.h declares the SQL function json_object */
#include "utils/builtins.h"
#undef json_object
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include <json-c/json.h>

#include "pgshim.h"

int			mcpn_state_ttl = 300;

/* ---------------------------------------------------------------- ereport */

jmp_buf    *shim_catch;
char		shim_errmsg[1024];
int			shim_errcode;
static int	cur_elevel;

bool
errstart_cold(int elevel, const char *domain)
{
	(void) domain;
	cur_elevel = elevel;
	shim_errmsg[0] = '\0';
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
	if (shim_catch == NULL)
	{
		fprintf(stderr, "pgshim: uncaught ERROR at %s:%d (%s): %s\n", filename, lineno, funcname, shim_errmsg);
		abort();
	}
	longjmp(*shim_catch, 1);
}

int
errcode(int sqlerrcode)
{
	shim_errcode = sqlerrcode;
	return 0;
}

static void
store(const char *fmt, va_list ap)
{
	vsnprintf(shim_errmsg, sizeof(shim_errmsg), fmt, ap);
}

int
errmsg(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	store(fmt, ap);
	va_end(ap);
	return 0;
}

int
errmsg_internal(const char *fmt,...)
{
	va_list		ap;

	va_start(ap, fmt);
	store(fmt, ap);
	va_end(ap);
	return 0;
}

int
errhint(const char *fmt,...)
{
	(void) fmt;
	return 0;
}

int
errdetail(const char *fmt,...)
{
	(void) fmt;
	return 0;
}

/* ---------------------------------------------------------------- clock */

TimestampTz shim_now = (TimestampTz) 846000000 * 1000000;	/* some time in 2026 */

TimestampTz
GetCurrentTimestamp(void)
{
	return shim_now;
}

pg_time_t
timestamptz_to_time_t(TimestampTz t)
{
	return (pg_time_t) (t / USECS_PER_SEC + ((POSTGRES_EPOCH_JDATE - UNIX_EPOCH_JDATE) * SECS_PER_DAY));
}

/* ---------------------------------------------------------------- varlena */

struct varlena *
pg_detoast_datum(struct varlena *datum)
{
	return datum;
}

struct varlena *
pg_detoast_datum_packed(struct varlena *datum)
{
	return datum;
}

text *
cstring_to_text_with_len(const char *s, int len)
{
	text	   *t = palloc(len + VARHDRSZ);

	SET_VARSIZE(t, len + VARHDRSZ);
	memcpy(VARDATA(t), s, len);
	return t;
}

char *
text_to_cstring(const text *t)
{
	const struct varlena *v = (const struct varlena *) t;

	return pnstrdup(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
}

/* ---------------------------------------------------------------- jsonb */

Jsonb *
shim_jsonb(const char *json)
{
	size_t		n = strlen(json);
	Jsonb	   *j = palloc(sizeof(Jsonb) + n + 1);
	json_object *o = json_tokener_parse(json);

	SET_VARSIZE(j, sizeof(Jsonb) + n + 1);
	j->root.header = json_object_is_type(o, json_type_object) ? JB_FOBJECT :
		(json_object_is_type(o, json_type_array) ? JB_FARRAY : JB_FARRAY | JB_FSCALAR);
	json_object_put(o);
	memcpy((char *) j + sizeof(Jsonb), json, n + 1);
	return j;
}

const char *
shim_jsonb_text(Jsonb *j)
{
	return (const char *) j + sizeof(Jsonb);
}

char *
JsonbToCString(StringInfo out, JsonbContainer *in, int estimated_len)
{
	(void) out;
	(void) estimated_len;
	return pstrdup((const char *) in + sizeof(JsonbContainer));
}

/* jsonb_in: the text must be one JSON value (json-c, strict), as PostgreSQL's would */
Datum
jsonb_in(FunctionCallInfo fcinfo)
{
	const char *s = DatumGetCString(fcinfo->args[0].value);
	json_tokener *tok = json_tokener_new();
	enum json_tokener_error e;
	json_object *o;

	json_tokener_set_flags(tok, JSON_TOKENER_STRICT | JSON_TOKENER_VALIDATE_UTF8);
	o = json_tokener_parse_ex(tok, s, (int) strlen(s));
	e = json_tokener_get_error(tok);
	json_tokener_free(tok);
	json_object_put(o);
	if (e != json_tokener_success)
		ereport(ERROR, (errcode(ERRCODE_INVALID_TEXT_REPRESENTATION),
						errmsg("invalid input syntax for type json: %s", s)));
	PG_RETURN_POINTER(shim_jsonb(s));
}

Datum
DirectFunctionCall1Coll(PGFunction func, Oid collation, Datum arg1)
{
	LOCAL_FCINFO(fcinfo, 1);
	Datum		result;

	InitFunctionCallInfoData(*fcinfo, NULL, 1, collation, NULL, NULL);
	fcinfo->args[0].value = arg1;
	fcinfo->args[0].isnull = false;
	result = (*func) (fcinfo);
	if (fcinfo->isnull)
	{
		fprintf(stderr, "pgshim: function returned NULL\n");
		abort();
	}
	return result;
}

/* ---------------------------------------------------------------- SPI */

uint64		SPI_processed;
SPITupleTable *SPI_tuptable;

struct shim_key shim_keys[SHIM_MAX_KEYS];
int			shim_nkeys;

static HeapTuple row_vals[2];
static SPITupleTable row_table = {.vals = row_vals};
static const struct shim_key *row_key;
static int	spi_depth;

int
SPI_connect(void)
{
	spi_depth++;
	return SPI_OK_CONNECT;
}

int
SPI_finish(void)
{
	if (spi_depth-- <= 0)
	{
		fprintf(stderr, "pgshim: SPI_finish without SPI_connect\n");
		abort();
	}
	return SPI_OK_FINISH;
}

int
shim_spi_depth(void)
{
	return spi_depth;
}

void
shim_spi_reset(void)
{
	spi_depth = 0;
}

static int
select_keys(bool active_only, int32 key_id)
{
	int			n = 0;

	row_key = NULL;
	for (int i = 0; i < shim_nkeys; i++)
		if (active_only ? !shim_keys[i].retired : shim_keys[i].key_id == key_id)
		{
			if (n++ == 0)
				row_key = &shim_keys[i];
		}
	SPI_processed = (uint64) n;
	row_table.numvals = (uint64) n;
	SPI_tuptable = &row_table;
	return SPI_OK_SELECT;
}

int
SPI_execute(const char *src, bool read_only, long tcount)
{
	(void) read_only;
	(void) tcount;
	if (spi_depth <= 0 || strstr(src, "retired_at IS NULL") == NULL)
	{
		fprintf(stderr, "pgshim: unexpected SPI_execute: %s\n", src);
		abort();
	}
	return select_keys(true, 0);
}

int
SPI_execute_with_args(const char *src, int nargs, Oid *argtypes, Datum *Values, const char *Nulls,
					  bool read_only, long tcount)
{
	(void) argtypes;
	(void) Nulls;
	(void) read_only;
	(void) tcount;
	if (spi_depth <= 0 || nargs != 1 || strstr(src, "key_id") == NULL)
	{
		fprintf(stderr, "pgshim: unexpected SPI_execute_with_args: %s\n", src);
		abort();
	}
	return select_keys(false, DatumGetInt32(Values[0]));
}

Datum
SPI_getbinval(HeapTuple tuple, TupleDesc tupdesc, int fnumber, bool *isnull)
{
	(void) tuple;
	(void) tupdesc;
	*isnull = false;
	if (row_key == NULL)
	{
		fprintf(stderr, "pgshim: SPI_getbinval without a row\n");
		abort();
	}
	if (fnumber == 1)
		return Int32GetDatum(row_key->key_id);
	if (fnumber == 2)
	{
		bytea	   *b = palloc(VARHDRSZ + row_key->secret_len);

		SET_VARSIZE(b, VARHDRSZ + row_key->secret_len);
		memcpy(VARDATA(b), row_key->secret, row_key->secret_len);
		return PointerGetDatum(b);
	}
	fprintf(stderr, "pgshim: SPI_getbinval column %d\n", fnumber);
	abort();
}

const char *
SPI_result_code_string(int code)
{
	(void) code;
	return "SPI_ERROR (shim)";
}
