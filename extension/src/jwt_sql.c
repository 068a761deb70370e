/*
 * jwt_sql.c
 *		The SQL functions of the JWS core (jwt.c): decode a compact JWS,
 *		check a JWK, verify a signature.  The OAuth SQL (sql/src/4NN_*.sql)
 *		decides what a token means; see docs/security.md.
 */
#include "postgres.h"

#include <string.h>

#include "fmgr.h"
#include "mb/pg_wchar.h"
#include "utils/builtins.h"
#include "utils/json.h"
#include "utils/jsonb.h"
#include "utils/memutils.h"

#include "jwt.h"

/*
 * Imported keys, per backend: importing a JWK (EVP_PKEY_fromdata and
 * libcrypto's public-key check, which for RSA tests that the modulus is
 * composite) costs far more than a verification, and a backend sees the same
 * few keys on every request.  An entry is the key's exact jsonb bytes and
 * the algorithm; the least recently used one makes room.  A changed JWK is
 * other bytes, so a rotation never meets a stale entry.
 */
#define KEY_CACHE_SIZE	16

typedef struct CachedKey
{
	char	   *jwk;			/* the jsonb's bytes, in TopMemoryContext */
	Size		len;
	JoseAlg		alg;
	EVP_PKEY   *key;
	uint64		used;
} CachedKey;

static CachedKey key_cache[KEY_CACHE_SIZE];
static uint64 key_cache_clock;

PG_FUNCTION_INFO_V1(mcp_notes_jws_decode);
PG_FUNCTION_INFO_V1(mcp_notes_jws_verify);
PG_FUNCTION_INFO_V1(mcp_notes_jwk_problem);

static Jsonb *
jsonb_from_text(const char *json)
{
	return DatumGetJsonbP(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}

static Jsonb *
problem_object(const char *problem)
{
	StringInfoData buf;

	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"problem\":");
	escape_json(&buf, problem);
	appendStringInfoChar(&buf, '}');
	return jsonb_from_text(buf.data);
}

/*
 * Outside a UTF-8 database jsonb would read the bytes in the database's
 * encoding (and fail on \u escapes it cannot convert): only ASCII without
 * escapes is taken there.
 */
static bool
fits_database_encoding(const char *json, size_t len)
{
	if (GetDatabaseEncoding() == PG_UTF8)
		return true;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char) json[i] >= 0x80 || (json[i] == '\\' && i + 1 < len && json[i + 1] == 'u'))
			return false;
	return true;
}

/*
 * _jws_decode(token text) -> jsonb: {"header": {...}, "claims": {...}} of a
 * well-formed compact JWS (nothing verified), else {"problem": "why"}.
 */
Datum
mcp_notes_jws_decode(PG_FUNCTION_ARGS)
{
	text	   *token = PG_GETARG_TEXT_PP(0);
	JoseCompact jws;
	const char *problem;
	StringInfoData buf;

	problem = jose_split(VARDATA_ANY(token), VARSIZE_ANY_EXHDR(token), true, &jws);
	if (problem == NULL && (!fits_database_encoding(jws.header, jws.header_len) ||
							!fits_database_encoding(jws.payload, jws.payload_len)))
		problem = "non-ASCII text in a database that is not UTF-8";
	if (problem != NULL)
		PG_RETURN_JSONB_P(problem_object(problem));
	/* both parts are checked JSON objects, so this is one */
	initStringInfo(&buf);
	appendStringInfoString(&buf, "{\"header\":");
	appendBinaryStringInfo(&buf, jws.header, (int) jws.header_len);
	appendStringInfoString(&buf, ",\"claims\":");
	appendBinaryStringInfo(&buf, jws.payload, (int) jws.payload_len);
	appendStringInfoChar(&buf, '}');
	PG_RETURN_JSONB_P(jsonb_from_text(buf.data));
}

/* the string member key of a JWK object, or NULL (absent); bad_type when it is not a string */
static const char *
jwk_string(Jsonb *jwk, const char *key, bool *bad_type)
{
	JsonbValue	v;

	if (getKeyJsonValueFromContainer(&jwk->root, key, (int) strlen(key), &v) == NULL)
		return NULL;
	if (v.type != jbvString)
	{
		*bad_type = true;
		return NULL;
	}
	return pnstrdup(v.val.string.val, v.val.string.len);
}

static bool
jwk_has(Jsonb *jwk, const char *key)
{
	JsonbValue	v;

	return getKeyJsonValueFromContainer(&jwk->root, key, (int) strlen(key), &v) != NULL;
}

/* key_ops absent, or an array that lists "verify" */
static bool
jwk_may_verify(Jsonb *jwk)
{
	JsonbValue	v;
	JsonbValue	verify;

	if (getKeyJsonValueFromContainer(&jwk->root, "key_ops", 7, &v) == NULL)
		return true;
	if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
		return false;
	verify.type = jbvString;
	verify.val.string.val = "verify";
	verify.val.string.len = 6;
	return findJsonbValueFromContainer(v.val.binary.data, JB_FARRAY, &verify) != NULL;
}

/* the JWK's members, or why they cannot be read */
static const char *
read_jwk(Jsonb *jwk, JoseJwk *out)
{
	static const char *const private_members[] = {"d", "p", "q", "dp", "dq", "qi", "oth", "k"};
	bool		bad_type = false;

	memset(out, 0, sizeof(*out));
	if (!JB_ROOT_IS_OBJECT(jwk))
		return "a JWK is a JSON object";
	out->kty = jwk_string(jwk, "kty", &bad_type);
	out->crv = jwk_string(jwk, "crv", &bad_type);
	out->alg = jwk_string(jwk, "alg", &bad_type);
	out->use = jwk_string(jwk, "use", &bad_type);
	out->n = jwk_string(jwk, "n", &bad_type);
	out->e = jwk_string(jwk, "e", &bad_type);
	out->x = jwk_string(jwk, "x", &bad_type);
	out->y = jwk_string(jwk, "y", &bad_type);
	if (bad_type)
		return "a member that must be a string is not";
	for (size_t i = 0; i < lengthof(private_members); i++)
		out->has_private |= jwk_has(jwk, private_members[i]);
	out->key_ops_verify = jwk_may_verify(jwk);
	return NULL;
}

/* the public key of jwk for alg, or NULL with *problem set; the caller frees it */
static EVP_PKEY *
jwk_key(Jsonb *jwk, const char *alg_text, const char **problem)
{
	JoseJwk		members;
	EVP_PKEY   *key = NULL;

	*problem = read_jwk(jwk, &members);
	if (*problem == NULL)
		*problem = jose_key_import(&members, jose_alg_from_name(alg_text), &key);
	return key;
}

/* the key of jwk for alg from the cache, imported (and kept) on a miss; NULL when it cannot verify alg */
static EVP_PKEY *
cached_key(Jsonb *jwk, JoseAlg alg, const char *alg_text)
{
	const char *bytes = VARDATA_ANY(jwk);
	Size		len = VARSIZE_ANY_EXHDR(jwk);
	CachedKey  *victim = &key_cache[0];
	const char *problem;
	EVP_PKEY   *key;

	for (int i = 0; i < KEY_CACHE_SIZE; i++)
	{
		CachedKey  *c = &key_cache[i];

		if (c->key != NULL && c->alg == alg && c->len == len && memcmp(c->jwk, bytes, len) == 0)
		{
			c->used = ++key_cache_clock;
			return c->key;
		}
		if (c->used < victim->used)
			victim = c;
	}
	key = jwk_key(jwk, alg_text, &problem);
	if (key == NULL)
		return NULL;
	EVP_PKEY_free(victim->key);
	if (victim->jwk)
		pfree(victim->jwk);
	victim->jwk = MemoryContextAlloc(TopMemoryContext, len);
	memcpy(victim->jwk, bytes, len);
	victim->len = len;
	victim->alg = alg;
	victim->key = key;
	victim->used = ++key_cache_clock;
	return key;
}

/*
 * _jwk_problem(jwk jsonb, alg text) -> text: NULL when the JWK is a public
 * key that can verify alg, else why not.
 */
Datum
mcp_notes_jwk_problem(PG_FUNCTION_ARGS)
{
	Jsonb	   *jwk = PG_GETARG_JSONB_P(0);
	char	   *alg = text_to_cstring(PG_GETARG_TEXT_PP(1));
	const char *problem;
	EVP_PKEY   *key = jwk_key(jwk, alg, &problem);

	EVP_PKEY_free(key);
	if (problem == NULL)
		PG_RETURN_NULL();
	PG_RETURN_TEXT_P(cstring_to_text(problem));
}

/*
 * _jws_verify(token text, jwk jsonb, alg text) -> boolean: the compact JWS
 * token is well formed and its signature verifies under alg with the public
 * key jwk.  False for every other case (a malformed token, an algorithm
 * there is no code for, a key that does not fit alg).
 */
Datum
mcp_notes_jws_verify(PG_FUNCTION_ARGS)
{
	text	   *token = PG_GETARG_TEXT_PP(0);
	Jsonb	   *jwk = PG_GETARG_JSONB_P(1);
	char	   *alg = text_to_cstring(PG_GETARG_TEXT_PP(2));
	JoseAlg		a = jose_alg_from_name(alg);
	JoseCompact jws;
	EVP_PKEY   *key;

	if (a == JOSE_ALG_UNSUPPORTED || jose_split(VARDATA_ANY(token), VARSIZE_ANY_EXHDR(token), false, &jws) != NULL)
		PG_RETURN_BOOL(false);
	key = cached_key(jwk, a, alg);
	if (key == NULL)
		PG_RETURN_BOOL(false);
	PG_RETURN_BOOL(jose_verify(a, key, jws.signing_input, jws.signing_input_len, jws.signature, jws.signature_len));
}
