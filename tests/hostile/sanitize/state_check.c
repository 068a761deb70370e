/*
 * state_check.c
 *		extension/src/state.c (unchanged) outside the server, under
 *		AddressSanitizer + UndefinedBehaviorSanitizer: seal (_seal_state, as
 *		1.3 sealed, and _seal with a purpose and a lifetime), open, and open
 *		again after every kind of damage an attacker can do to a requestState.
 *		Built and run by tests/suites/sanitizers with pgshim.c.
 *
 *	Every opened state is judged by an oracle written from
 *	docs/state-format.md (its own base64url and an OpenSSL HMAC): the verdict
 *	of _open_state must be exactly the oracle's (ok, state_malformed,
 *	state_unknown_key, state_bad_signature); opening never raises for a state
 *	nobody forged with the key; its answer is always one JSON object; SPI is
 *	balanced.  Prints one "name ... ok|FAIL" line per check.
 *
 *	Usage: state_check [RANDOM_MUTATIONS [SEED]]
 */
#include "postgres.h"

#include <setjmp.h>

#include <openssl/evp.h>
#include <openssl/hmac.h>

#include "fmgr.h"
#define json_object pg_sql_json_object	/* fmgrprotos.h declares the SQL function json_object */
#include "utils/builtins.h"
#undef json_object
#include "utils/jsonb.h"

#include <json-c/json.h>

#include "mcp_notes.h"
#include "pgshim.h"

extern Datum mcp_notes_seal(PG_FUNCTION_ARGS);
extern Datum mcp_notes_seal_state(PG_FUNCTION_ARGS);
extern Datum mcp_notes_open_state(PG_FUNCTION_ARGS);
extern Datum mcp_notes_random_bytes(PG_FUNCTION_ARGS);

#define MAX_STATE 16384

static int	failures;
static int	section_failures;
static long checked;
static char first_failure[600];

static void
failf(const char *fmt,...) __attribute__((format(printf, 1, 2)));

static void
failf(const char *fmt,...)
{
	va_list		ap;

	failures++;
	if (section_failures++ == 0)
	{
		va_start(ap, fmt);
		vsnprintf(first_failure, sizeof(first_failure), fmt, ap);
		va_end(ap);
	}
}

static void
report(const char *name, int before)
{
	if (failures == before)
		printf("state_check %s ... ok\n", name);
	else
	{
		printf("state_check %s ... FAIL\n", name);
		printf("    %d failure(s); first: %s\n", failures - before, first_failure);
	}
	section_failures = 0;
	fflush(stdout);
}

/* ---------------------------------------------------------------- calling state.c */

/* f(arg) with ereport(ERROR) caught: returns false (and the message) on ERROR */
static bool
call1(PGFunction f, Datum arg, Datum *result)
{
	jmp_buf		jb;
	LOCAL_FCINFO(fcinfo, 1);

	InitFunctionCallInfoData(*fcinfo, NULL, 1, InvalidOid, NULL, NULL);
	fcinfo->args[0].value = arg;
	fcinfo->args[0].isnull = false;
	shim_catch = &jb;
	if (setjmp(jb) != 0)
	{
		shim_catch = NULL;
		shim_spi_reset();		/* the transaction would be rolled back */
		return false;
	}
	*result = f(fcinfo);
	shim_catch = NULL;
	if (shim_spi_depth() != 0)
		failf("SPI_connect without SPI_finish (depth %d)", shim_spi_depth());
	return true;
}

/* _seal(purpose, claims, lifetime) with ereport(ERROR) caught; NULL arguments as SQL NULLs */
static bool
call_seal(const char *purpose, const char *claims_json, const int *lifetime, Datum *result)
{
	jmp_buf		jb;
	LOCAL_FCINFO(fcinfo, 3);

	InitFunctionCallInfoData(*fcinfo, NULL, 3, InvalidOid, NULL, NULL);
	fcinfo->args[0].isnull = purpose == NULL;
	fcinfo->args[0].value = purpose ? PointerGetDatum(cstring_to_text_with_len(purpose, (int) strlen(purpose))) : 0;
	fcinfo->args[1].isnull = claims_json == NULL;
	fcinfo->args[1].value = claims_json ? PointerGetDatum(shim_jsonb(claims_json)) : 0;
	fcinfo->args[2].isnull = lifetime == NULL;
	fcinfo->args[2].value = lifetime ? Int32GetDatum(*lifetime) : 0;
	shim_catch = &jb;
	if (setjmp(jb) != 0)
	{
		shim_catch = NULL;
		shim_spi_reset();
		return false;
	}
	*result = mcp_notes_seal(fcinfo);
	shim_catch = NULL;
	if (shim_spi_depth() != 0)
		failf("SPI_connect without SPI_finish (depth %d)", shim_spi_depth());
	return true;
}

static char *
seal(const char *claims_json)
{
	Datum		d;
	text	   *t;

	if (!call1(mcp_notes_seal_state, PointerGetDatum(shim_jsonb(claims_json)), &d))
	{
		failf("seal raised: %s", shim_errmsg);
		return NULL;
	}
	t = (text *) DatumGetPointer(d);
	return pnstrdup(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

/* _open_state(text); *raised when it raised ERROR; the answer as json-c */
static json_object *
open_state(const char *s, size_t len, bool *raised)
{
	Datum		d;
	text	   *t = (text *) cstring_to_text_with_len(s, (int) len);
	json_object *o;

	*raised = !call1(mcp_notes_open_state, PointerGetDatum(t), &d);
	if (*raised)
		return NULL;
	o = json_tokener_parse(shim_jsonb_text((Jsonb *) DatumGetPointer(d)));
	if (!json_object_is_type(o, json_type_object))
		failf("open_state answered something that is not a JSON object");
	return o;
}

/* ---------------------------------------------------------------- the oracle */

static int
b64url_val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '-')
		return 62;
	if (c == '_')
		return 63;
	return -1;
}

/* canonical unpadded base64url -> bytes; -1 when not canonical or empty */
static long
b64url_decode(const char *s, size_t n, uint8 *out)
{
	unsigned	acc = 0;
	int			bits = 0;
	long		o = 0;

	if (n == 0 || n % 4 == 1)
		return -1;
	for (size_t i = 0; i < n; i++)
	{
		int			v = b64url_val((unsigned char) s[i]);

		if (v < 0)
			return -1;
		acc = (acc << 6) | (unsigned) v;
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[o++] = (uint8) (acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	return acc == 0 ? o : -1;	/* unused low bits must be zero */
}

static const struct shim_key *
find_key(long id)
{
	for (int i = 0; i < shim_nkeys; i++)
		if (shim_keys[i].key_id == id)
			return &shim_keys[i];
	return NULL;
}

/* NULL: authentic; else the reason docs/state-format.md gives */
static const char *
oracle(const char *s, size_t len)
{
	const char *dot[3];
	int			nd = 0;
	long		kid = 0;
	static uint8 buf[MAX_STATE];
	uint8		mac[64];
	unsigned	maclen = 0;
	const struct shim_key *k;

	if (len > MAX_STATE)
		return "state_malformed";
	for (size_t i = 0; i < len; i++)
		if (s[i] == '.')
		{
			if (nd == 3)
				return "state_malformed";
			dot[nd++] = s + i;
		}
	if (nd != 3 || dot[0] - s != 2 || s[0] != 'v' || s[1] != '1')
		return "state_malformed";
	if (dot[1] - dot[0] - 1 < 1 || dot[1] - dot[0] - 1 > 9 || dot[0][1] == '0')
		return "state_malformed";
	for (const char *p = dot[0] + 1; p < dot[1]; p++)
	{
		if (*p < '0' || *p > '9')
			return "state_malformed";
		kid = kid * 10 + (*p - '0');
	}
	if (b64url_decode(dot[1] + 1, (size_t) (dot[2] - dot[1] - 1), buf) <= 0)
		return "state_malformed";
	if (b64url_decode(dot[2] + 1, (size_t) (s + len - dot[2] - 1), buf) != 32)
		return "state_malformed";
	k = find_key(kid);
	if (k == NULL)
		return "state_unknown_key";
	HMAC(EVP_sha256(), k->secret, k->secret_len, (const unsigned char *) s, (size_t) (dot[2] - s), mac, &maclen);
	if (maclen != 32 || memcmp(mac, buf, 32) != 0)
		return "state_bad_signature";
	return NULL;
}

static bool
json_string_equals_c(json_object *o, const char *s)
{
	return json_object_is_type(o, json_type_string) && strcmp(json_object_get_string(o), s) == 0;
}

/* open s and compare with the oracle */
static void
judge(const char *label, const char *s, size_t len)
{
	bool		raised;
	json_object *o = open_state(s, len, &raised);
	const char *want = oracle(s, len);
	json_object *ok,
			   *reason,
			   *msg;

	checked++;
	if (raised)
	{
		failf("%s: open_state raised (%s) for a state of %zu bytes", label, shim_errmsg, len);
		return;
	}
	if (!json_object_object_get_ex(o, "ok", &ok) || !json_object_is_type(ok, json_type_boolean))
		failf("%s: no boolean ok", label);
	else if (want == NULL)
	{
		if (!json_object_get_boolean(ok))
			failf("%s: an authentic state was refused", label);
	}
	else if (json_object_get_boolean(ok))
		failf("%s: a damaged state (%s expected) was accepted: %.*s", label, want, (int) (len > 200 ? 200 : len), s);
	else if (!json_object_object_get_ex(o, "reason", &reason) || !json_string_equals_c(reason, want))
		failf("%s: reason %s, expected %s, for %.*s", label, json_object_get_string(reason), want,
			  (int) (len > 200 ? 200 : len), s);
	else if (!json_object_object_get_ex(o, "message", &msg) || !json_object_is_type(msg, json_type_string))
		failf("%s: no message", label);
	json_object_put(o);
}

/* ---------------------------------------------------------------- helpers */

static uint64_t rng = 0x9E3779B97F4A7C15ULL;

static uint64_t
next_rand(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return rng;
}

static void
add_key(int32 id, bool retired, int len)
{
	struct shim_key *k = &shim_keys[shim_nkeys++];

	k->key_id = id;
	k->retired = retired;
	k->secret_len = len;
	for (int i = 0; i < len; i++)
		k->secret[i] = (uint8) next_rand();
}

static const char *CLAIMS =
"{\"principal\": \"alice\", \"method\": \"tools/call\", \"tool\": \"notes_delete\", "
"\"args\": \"a560d2b1c0ffee00a560d2b1c0ffee00a560d2b1c0ffee00a560d2b1c0ffee00\", "
"\"workspace\": \"file:///work/notes\", \"candidates\": [\"07d61c48-0000-4000-8000-000000000001\", "
"\"e66c38b4-0000-4000-8000-000000000002\"], \"phase\": \"confirm_delete\"}";

/* ---------------------------------------------------------------- checks */

static char *A;					/* sealed with the active key */
static char *B;					/* sealed with the retired key */

static void
check_seal_and_open(void)
{
	int			before = failures;
	bool		raised;
	json_object *o,
			   *v,
			   *claims;
	json_object *want = json_tokener_parse(CLAIMS);
	const char *dots[4] = {NULL, NULL, NULL, NULL};
	uint8		payload[MAX_STATE];
	long		n;

	A = seal(CLAIMS);
	if (A == NULL)
	{
		report("seal_and_open", before);
		return;
	}
	o = open_state(A, strlen(A), &raised);
	if (raised || !json_object_object_get_ex(o, "ok", &v) || !json_object_get_boolean(v))
		failf("a fresh state does not open: %s", A);
	else
	{
		if (!json_object_object_get_ex(o, "kid", &v) || json_object_get_int(v) != 2)
			failf("kid is not the active key 2");
		if (!json_object_object_get_ex(o, "claims", &claims) || !json_object_equal(claims, want))
			failf("claims changed on the way");
		if (!json_object_object_get_ex(o, "iat", &v) ||
			json_object_get_int64(v) != (int64) (shim_now / USECS_PER_SEC + 946684800))
			failf("iat is not the database clock");
		else
		{
			int64		iat = json_object_get_int64(v);

			if (!json_object_object_get_ex(o, "exp", &v) || json_object_get_int64(v) != iat + mcpn_state_ttl)
				failf("exp is not iat + state_ttl");
		}
		if (!json_object_object_get_ex(o, "nonce", &v) || json_object_get_string_len(v) != 22)
			failf("nonce is not 16 bytes of base64url");
	}
	json_object_put(o);
	if (oracle(A, strlen(A)) != NULL)
		failf("the oracle refuses a fresh state: %s", oracle(A, strlen(A)));

	/* the layout of docs/state-format.md */
	dots[0] = A;
	for (int i = 1; i < 4 && dots[i - 1]; i++)
	{
		dots[i] = strchr(dots[i - 1], '.');
		if (dots[i])
			dots[i]++;
	}
	if (strncmp(A, "v1.2.", 5) != 0 || dots[3] == NULL || strlen(dots[3]) != 43)
		failf("layout is not v1.<kid>.<payload>.<43-char mac>: %s", A);
	else if ((n = b64url_decode(dots[2], (size_t) (dots[3] - dots[2] - 1), payload)) <= 0)
		failf("payload is not canonical base64url");
	else
	{
		json_object *p;

		payload[n] = '\0';
		p = json_tokener_parse((char *) payload);
		if (!json_object_is_type(p, json_type_object) || !json_object_object_get_ex(p, "claims", &v))
			failf("payload is not the documented JSON object");
		json_object_put(p);
	}

	/* a state sealed under a key that is then retired still opens */
	shim_keys[1].retired = true;
	shim_keys[0].retired = false;
	B = seal(CLAIMS);
	shim_keys[0].retired = true;
	shim_keys[1].retired = false;
	if (B == NULL || strncmp(B, "v1.1.", 5) != 0)
		failf("sealing under key 1 failed");
	else
		judge("retired key", B, strlen(B));

	/* nonces never repeat */
	{
		char	   *seen[500];
		int			dup = 0;

		for (int i = 0; i < 500; i++)
		{
			char	   *s = seal(CLAIMS);

			seen[i] = s;
			for (int j = 0; s && j < i; j++)
				if (seen[j] && strcmp(seen[j], s) == 0)
					dup++;
		}
		if (dup)
			failf("%d of 500 sealed states repeated", dup);
	}
	json_object_put(want);
	report("seal_and_open", before);
}

/*
 * _seal: the purpose and the lifetime are the seal's own (in the payload,
 * under the MAC); NULL lifetime is state_ttl; what it refuses to make.
 */
static void
check_purpose_and_lifetime(void)
{
	int			before = failures;
	static const int lifetimes[] = {1, 3600, 86400};
	static const int bad_lifetimes[] = {0, -1, 86401};
	static const char *const bad_purposes[] = {"", "Cursor", "a\"b", "9lives", "a-b",
		"pppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppppp"};
	Datum		d;

	for (int i = 0; i < 4; i++)
	{
		const int  *lifetime = i < 3 ? &lifetimes[i] : NULL;
		bool		raised;
		json_object *o,
				   *v,
				   *iat;
		text	   *t;
		char	   *st;

		if (!call_seal("notes_delete", CLAIMS, lifetime, &d))
		{
			failf("_seal raised: %s", shim_errmsg);
			continue;
		}
		t = (text *) DatumGetPointer(d);
		st = pnstrdup(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
		if (oracle(st, strlen(st)) != NULL)
			failf("the oracle refuses a token of _seal: %s", oracle(st, strlen(st)));
		o = open_state(st, strlen(st), &raised);
		if (raised || !json_object_object_get_ex(o, "purpose", &v) ||
			strcmp(json_object_get_string(v), "notes_delete") != 0)
			failf("the purpose is not in the opened payload: %s", st);
		else if (!json_object_object_get_ex(o, "iat", &iat) || !json_object_object_get_ex(o, "exp", &v) ||
				 json_object_get_int64(v) - json_object_get_int64(iat) != (lifetime ? *lifetime : mcpn_state_ttl))
			failf("exp is not iat + the lifetime %d", lifetime ? *lifetime : mcpn_state_ttl);
		judge("sealed with a purpose", st, strlen(st));
		json_object_put(o);
	}
	for (size_t i = 0; i < lengthof(bad_purposes); i++)
		if (call_seal(bad_purposes[i], CLAIMS, NULL, &d))
			failf("the purpose \"%s\" was sealed", bad_purposes[i]);
	for (size_t i = 0; i < lengthof(bad_lifetimes); i++)
		if (call_seal("cursor", CLAIMS, &bad_lifetimes[i], &d))
			failf("the lifetime %d was sealed", bad_lifetimes[i]);
	if (call_seal(NULL, CLAIMS, NULL, &d) || call_seal("cursor", NULL, NULL, &d) ||
		call_seal("cursor", "[1]", NULL, &d))
		failf("no purpose, no claims or claims that are not an object were sealed");
	report("purpose_and_lifetime", before);
}

static void
check_errors(void)
{
	int			before = failures;
	Datum		d;

	if (call1(mcp_notes_seal_state, PointerGetDatum(shim_jsonb("[1, 2]")), &d))
		failf("claims that are an array were sealed");
	if (call1(mcp_notes_seal_state, PointerGetDatum(shim_jsonb("\"x\"")), &d))
		failf("claims that are a string were sealed");
	shim_keys[1].retired = true;
	if (call1(mcp_notes_seal_state, PointerGetDatum(shim_jsonb(CLAIMS)), &d) || strstr(shim_errmsg, "no active state key") == NULL)
		failf("sealing without an active key did not raise 'no active state key'");
	shim_keys[1].retired = false;
	add_key(3, false, 32);		/* two active keys */
	if (call1(mcp_notes_seal_state, PointerGetDatum(shim_jsonb(CLAIMS)), &d))
		failf("two active keys were not refused");
	/* a key whose secret has the wrong length is an internal error, not a verdict */
	shim_keys[2].retired = true;
	shim_keys[2].secret_len = 16;
	{
		char	   *st = psprintf("v1.3.%s", strchr(strchr(A, '.') + 1, '.') + 1);

		if (call1(mcp_notes_open_state, PointerGetDatum(cstring_to_text_with_len(st, (int) strlen(st))), &d) ||
			strstr(shim_errmsg, "is not 32 bytes") == NULL)
			failf("a 16-byte key was used");
	}
	shim_nkeys = 2;				/* keys 1 and 2 only, from here on */
	for (int n = -1; n <= 1025; n++)
	{
		bool		ok = call1(mcp_notes_random_bytes, Int32GetDatum(n), &d);

		if (ok != (n >= 1 && n <= 1024))
			failf("random_bytes(%d) %s", n, ok ? "did not raise" : "raised");
		else if (ok && VARSIZE_ANY_EXHDR(DatumGetPointer(d)) != (Size) n)
			failf("random_bytes(%d) has %u bytes", n, (unsigned) VARSIZE_ANY_EXHDR(DatumGetPointer(d)));
		if (n == 20)
			n = 1000;
	}
	report("errors_and_random_bytes", before);
}

static void
check_bit_flips(void)
{
	int			before = failures;
	size_t		n = strlen(A);
	char	   *s = palloc(n + 1);

	for (size_t i = 0; i < n; i++)
		for (int b = 0; b < 8; b++)
		{
			memcpy(s, A, n + 1);
			s[i] ^= (char) (1 << b);
			if (s[i] == '\0')
				continue;		/* text cannot hold NUL */
			judge("bit flip", s, n);
		}
	pfree(s);
	report("every_bit_flip", before);
}

static void
check_truncations_and_edits(void)
{
	int			before = failures;
	size_t		n = strlen(A);
	char	   *s = palloc(n + 2);
	static const char inserts[] = ".A-_=0/+ \t\x80\xff\xc3";

	for (size_t i = 0; i <= n; i++)
		judge("truncation", A, i);
	for (size_t i = 0; i < n; i++)
	{
		memcpy(s, A, i);
		memcpy(s + i, A + i + 1, n - i);
		judge("deletion", s, n - 1);
	}
	for (size_t i = 0; i <= n; i++)
		for (size_t c = 0; c < sizeof(inserts) - 1; c++)
		{
			memcpy(s, A, i);
			s[i] = inserts[c];
			memcpy(s + i + 1, A + i, n - i + 1);
			judge("insertion", s, n + 1);
		}
	pfree(s);
	report("every_truncation_deletion_insertion", before);
}

static void
check_splices(void)
{
	int			before = failures;
	const char *src[2] = {A, B};
	char		out[4 * MAX_STATE];

	/* every combination of the four fields of A and B */
	for (int mask = 0; mask < 16; mask++)
	{
		char	   *o = out;

		for (int f = 0; f < 4; f++)
		{
			const char *s = src[(mask >> f) & 1];
			const char *start = s;
			const char *end;

			for (int k = 0; k < f; k++)
				start = strchr(start, '.') + 1;
			end = strchr(start, '.');
			if (end == NULL)
				end = start + strlen(start);
			if (f)
				*o++ = '.';
			memcpy(o, start, (size_t) (end - start));
			o += end - start;
		}
		judge("splice", out, (size_t) (o - out));
	}
	/* sizes around the 16 KiB limit: authentic shape, padded payload */
	for (size_t total = MAX_STATE - 2; total <= MAX_STATE + 2; total++)
	{
		size_t		pay = total - strlen("v1.2..") - 43;

		memcpy(out, "v1.2.", 5);
		memset(out + 5, 'A', pay);
		out[5 + pay] = '.';
		memcpy(out + 6 + pay, strrchr(A, '.') + 1, 43);
		judge("size limit", out, total);
	}
	report("field_splices_and_size_limit", before);
}

static void
check_random(long iterations)
{
	int			before = failures;
	size_t		cap = 4 * MAX_STATE;
	char	   *s = palloc(cap + 1);

	for (long it = 0; it < iterations; it++)
	{
		const char *base = (next_rand() & 1) ? A : B;
		size_t		n = strlen(base);
		int			ops = 1 + (int) (next_rand() % 4);

		memcpy(s, base, n);
		for (int k = 0; k < ops; k++)
		{
			size_t		pos = n ? next_rand() % n : 0;

			switch (next_rand() % 6)
			{
				case 0:			/* flip a bit */
					if (n)
						s[pos] ^= (char) (1 << (next_rand() % 8));
					break;
				case 1:			/* replace by a base64url or structural char */
					if (n)
						s[pos] = "AZaz09-_.=+/v1"[next_rand() % 14];
					break;
				case 2:			/* insert a random byte */
					if (n < cap)
					{
						memmove(s + pos + 1, s + pos, n - pos);
						s[pos] = (char) (next_rand() % 255 + 1);
						n++;
					}
					break;
				case 3:			/* delete a range */
					if (n)
					{
						size_t		len = 1 + next_rand() % 8;

						if (pos + len > n)
							len = n - pos;
						memmove(s + pos, s + pos + len, n - pos - len);
						n -= len;
					}
					break;
				case 4:			/* duplicate a range */
					{
						size_t		len = 1 + next_rand() % 64;

						if (pos + len > n)
							len = n - pos;
						if (n + len <= cap)
						{
							memmove(s + pos + len, s + pos, n - pos);
							n += len;
						}
					}
					break;
				default:		/* truncate */
					n = pos;
					break;
			}
		}
		for (size_t i = 0; i < n; i++)
			if (s[i] == '\0')
				s[i] = 'x';		/* text cannot hold NUL */
		judge("random", s, n);
	}
	pfree(s);
	report("random_mutations", before);
}

int
main(int argc, char **argv)
{
	long		iterations = argc > 1 ? atol(argv[1]) : 20000;

	if (argc > 2)
		rng = strtoull(argv[2], NULL, 10) | 1;
	add_key(1, true, 32);		/* retired, still verifies */
	add_key(2, false, 32);		/* active */
	check_seal_and_open();
	if (A == NULL)
		return 1;
	check_purpose_and_lifetime();
	check_errors();
	check_bit_flips();
	check_truncations_and_edits();
	check_splices();
	check_random(iterations);
	printf("state_check: %ld states opened and judged, %d failure(s)\n", checked, failures);
	return failures ? 1 : 0;
}
