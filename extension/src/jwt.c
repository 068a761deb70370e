/*
 * jwt.c
 *		The JWS core: strict compact decoding, the JSON checks of the header
 *		and the claims, public JWK import and signature verification on
 *		libcrypto (OpenSSL 3).
 *
 * Hand-written rather than on a JOSE library: Debian's (libjwt, libcjose,
 * latchset jose) parse JSON with jansson, a second parser beside the one
 * whose view of the claims the SQL acts on (a parser differential is how
 * duplicate-member and number tricks get through), libjwt 1.10 reads no
 * JWK, and cjose has no EdDSA.  What is needed is small: base64url, the
 * JSON checks through PostgreSQL's own parser, EVP_PKEY_fromdata from n/e
 * or x/y, raw R || S to DER, one EVP_DigestVerify.  Tested with the RFC
 * 7515 vectors (A.2 RS256, A.3 ES256), RFC 8037 A.4 (Ed25519) and our own
 * (extension/test/sql/oauth_jws.sql), and fuzzed (fuzz/jose_fuzz.c).
 *
 * No ereport here: every failure is a reason string for the caller, so a
 * hostile token costs no subtransaction and no error path can leak a key.
 */
#include "postgres.h"

#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/ec.h>
#include <openssl/err.h>
#include <openssl/param_build.h>
#include <openssl/rsa.h>

#include "common/jsonapi.h"
#include "mb/pg_wchar.h"

#include "jwt.h"

static const struct
{
	const char *name;
	JoseAlg		alg;
}			alg_names[] = {
	{"RS256", JOSE_RS256}, {"RS384", JOSE_RS384}, {"RS512", JOSE_RS512},
	{"PS256", JOSE_PS256}, {"PS384", JOSE_PS384}, {"PS512", JOSE_PS512},
	{"ES256", JOSE_ES256}, {"ES384", JOSE_ES384}, {"ES512", JOSE_ES512},
	{"EdDSA", JOSE_EDDSA},
};

JoseAlg
jose_alg_from_name(const char *name)
{
	for (size_t i = 0; name != NULL && i < lengthof(alg_names); i++)
		if (strcmp(name, alg_names[i].name) == 0)
			return alg_names[i].alg;
	return JOSE_ALG_UNSUPPORTED;
}

static const char *
alg_name(JoseAlg alg)
{
	for (size_t i = 0; i < lengthof(alg_names); i++)
		if (alg_names[i].alg == alg)
			return alg_names[i].name;
	return NULL;
}

static bool
is_rsa(JoseAlg alg)
{
	return alg >= JOSE_RS256 && alg <= JOSE_PS512;
}

static bool
is_ecdsa(JoseAlg alg)
{
	return alg >= JOSE_ES256 && alg <= JOSE_ES512;
}

static const EVP_MD *
alg_digest(JoseAlg alg)
{
	switch (alg)
	{
		case JOSE_RS256:
		case JOSE_PS256:
		case JOSE_ES256:
			return EVP_sha256();
		case JOSE_RS384:
		case JOSE_PS384:
		case JOSE_ES384:
			return EVP_sha384();
		case JOSE_RS512:
		case JOSE_PS512:
		case JOSE_ES512:
			return EVP_sha512();
		default:
			return NULL;		/* EdDSA hashes internally */
	}
}

/* ---------- base64url ---------- */

static int
b64url_value(unsigned char c)
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

uint8_t *
jose_b64url_decode(const char *text, size_t len, size_t *out_len)
{
	uint8_t    *out;
	size_t		n = 0;
	uint32_t	acc = 0;
	int			bits = 0;

	*out_len = 0;
	if (len % 4 == 1)
		return NULL;			/* 6 bits cannot end a byte */
	out = palloc(len * 3 / 4 + 1);
	for (size_t i = 0; i < len; i++)
	{
		int			v = b64url_value((unsigned char) text[i]);

		if (v < 0)
		{
			pfree(out);
			return NULL;
		}
		acc = (acc << 6) | (uint32_t) v;
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[n++] = (uint8_t) (acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0)
	{
		/* non-zero unused bits: a second spelling of the same bytes */
		pfree(out);
		return NULL;
	}
	out[n] = '\0';
	*out_len = n;
	return out;
}

/* ---------- JSON checks ---------- */

/* deeper than JOSE_MAX_DEPTH, counted outside strings (before the recursive parser sees it) */
static bool
too_deep(const char *json, size_t len)
{
	int			depth = 0;
	bool		in_string = false;

	for (size_t i = 0; i < len; i++)
	{
		char		c = json[i];

		if (in_string)
		{
			if (c == '\\')
				i++;
			else if (c == '"')
				in_string = false;
		}
		else if (c == '"')
			in_string = true;
		else if (c == '{' || c == '[')
		{
			if (++depth > JOSE_MAX_DEPTH)
				return true;
		}
		else if (c == '}' || c == ']')
			depth--;
	}
	return false;
}

struct member_check
{
	char	   *names[JOSE_MAX_MEMBERS];
	int			n_names;
	int			depth;			/* 1 inside the top-level object */
	const char *problem;		/* the first one found */
	bool		top_is_object;
	bool		seen_top;
};

static void
note_problem(struct member_check *mc, const char *problem)
{
	if (mc->problem == NULL)
		mc->problem = problem;
}

static void
on_object_start(void *state)
{
	struct member_check *mc = state;

	if (!mc->seen_top)
		mc->top_is_object = true;
	mc->seen_top = true;
	mc->depth++;
}

static void
on_array_start(void *state)
{
	struct member_check *mc = state;

	mc->seen_top = true;
	mc->depth++;
}

static void
on_end(void *state)
{
	((struct member_check *) state)->depth--;
}

static void
on_field(void *state, char *fname, bool isnull)
{
	struct member_check *mc = state;

	(void) isnull;
	if (mc->depth != 1)
		return;
	for (int i = 0; i < mc->n_names; i++)
		if (strcmp(mc->names[i], fname) == 0)
		{
			note_problem(mc, "a member name appears twice");
			return;
		}
	if (mc->n_names == JOSE_MAX_MEMBERS)
	{
		note_problem(mc, "too many members");
		return;
	}
	mc->names[mc->n_names++] = fname;
}

/* a number jsonb's numeric can hold without an error: short, exponent within +-1000 */
static void
on_scalar(void *state, char *token, JsonTokenType type)
{
	struct member_check *mc = state;
	const char *e;

	if (!mc->seen_top)
		mc->seen_top = true;
	if (type != JSON_TOKEN_NUMBER)
		return;
	if (strlen(token) > JOSE_MAX_NUMBER)
	{
		note_problem(mc, "a number is too long");
		return;
	}
	e = strpbrk(token, "eE");
	if (e != NULL)
	{
		e++;
		if (*e == '+' || *e == '-')
			e++;
		while (*e == '0')
			e++;
		if (strlen(e) > 3)
			note_problem(mc, "a number's exponent is too large");
	}
}

const char *
jose_json_object_problem(const char *json, size_t len)
{
	struct member_check mc = {0};
	JsonSemAction sem = {0};
	JsonLexContext *lex;
	JsonParseErrorType rc;

	if (len == 0 || memchr(json, '\0', len) != NULL)
		return "empty, or a NUL byte";
	if (pg_encoding_verifymbstr(PG_UTF8, json, (int) len) != (int) len)
		return "not valid UTF-8";
	if (too_deep(json, len))
		return "nested too deeply";
	sem.semstate = &mc;
	sem.object_start = on_object_start;
	sem.array_start = on_array_start;
	sem.object_end = on_end;
	sem.array_end = on_end;
	sem.object_field_start = on_field;
	sem.scalar = on_scalar;
	lex = makeJsonLexContextCstringLen(unconstify(char *, json), (int) len, PG_UTF8, true);
	rc = pg_parse_json(lex, &sem);
	if (rc != JSON_SUCCESS)
		return "not valid JSON";
	if (!mc.top_is_object)
		return "not a JSON object";
	return mc.problem;
}

/* ---------- compact serialization ---------- */

const char *
jose_split(const char *token, size_t len, bool payload_json, JoseCompact *out)
{
	const char *dot1;
	const char *dot2;
	const char *problem;

	memset(out, 0, sizeof(*out));
	if (len > JOSE_MAX_TOKEN)
		return "longer than a token may be";
	dot1 = memchr(token, '.', len);
	dot2 = dot1 ? memchr(dot1 + 1, '.', len - (size_t) (dot1 + 1 - token)) : NULL;
	if (dot2 == NULL || memchr(dot2 + 1, '.', len - (size_t) (dot2 + 1 - token)) != NULL)
		return "not three dot-separated segments";
	out->signing_input = token;
	out->signing_input_len = (size_t) (dot2 - token);
	out->header = (char *) jose_b64url_decode(token, (size_t) (dot1 - token), &out->header_len);
	out->payload = (char *) jose_b64url_decode(dot1 + 1, (size_t) (dot2 - dot1 - 1), &out->payload_len);
	out->signature = jose_b64url_decode(dot2 + 1, len - (size_t) (dot2 + 1 - token), &out->signature_len);
	if (out->header == NULL || out->payload == NULL || out->signature == NULL)
		return "a segment is not canonical base64url";
	if (out->signature_len == 0)
		return "no signature (an unsecured JWS)";
	if ((problem = jose_json_object_problem(out->header, out->header_len)) != NULL)
		return psprintf("header: %s", problem);
	if (payload_json && (problem = jose_json_object_problem(out->payload, out->payload_len)) != NULL)
		return psprintf("payload: %s", problem);
	return NULL;
}

/* ---------- keys ---------- */

struct curve
{
	JoseAlg		alg;
	const char *crv;			/* JWK crv */
	const char *group;			/* OpenSSL group name */
	int			nid;
	size_t		size;			/* bytes of a coordinate, and of R and of S */
};

static const struct curve curves[] = {
	{JOSE_ES256, "P-256", "prime256v1", NID_X9_62_prime256v1, 32},
	{JOSE_ES384, "P-384", "secp384r1", NID_secp384r1, 48},
	{JOSE_ES512, "P-521", "secp521r1", NID_secp521r1, 66},
};

static const struct curve *
curve_of(JoseAlg alg)
{
	for (size_t i = 0; i < lengthof(curves); i++)
		if (curves[i].alg == alg)
			return &curves[i];
	return NULL;
}

/*
 * A coordinate as exactly size bytes into out.  RFC 7518 says exactly that
 * long; some IdPs (GnuTLS-based ones, glewlwyd among them) prefix a zero
 * byte, and some drop leading zeros: the point is the same, so both are
 * read.
 */
static bool
coordinate(const char *b64, size_t size, uint8_t *out)
{
	size_t		n;
	uint8_t    *raw = b64 ? jose_b64url_decode(b64, strlen(b64), &n) : NULL;
	bool		ok;

	if (raw == NULL)
		return false;
	ok = n > 0 && (n <= size || (n == size + 1 && raw[0] == 0));
	if (ok)
	{
		memset(out, 0, size);
		if (n <= size)
			memcpy(out + size - n, raw, n);
		else
			memcpy(out, raw + 1, size);
	}
	pfree(raw);
	return ok;
}

static BIGNUM *
b64url_bignum(const char *b64)
{
	size_t		n;
	uint8_t    *raw = b64 ? jose_b64url_decode(b64, strlen(b64), &n) : NULL;
	BIGNUM	   *bn = NULL;

	if (raw != NULL && n > 0)
		bn = BN_bin2bn(raw, (int) n, NULL);
	if (raw)
		pfree(raw);
	return bn;
}

/* EVP_PKEY_fromdata of a public key of type name with the built parameters */
static EVP_PKEY *
pkey_from_params(const char *name, OSSL_PARAM_BLD *bld)
{
	OSSL_PARAM *params = OSSL_PARAM_BLD_to_param(bld);
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_name(NULL, name, NULL);
	EVP_PKEY   *key = NULL;

	if (params == NULL || ctx == NULL || EVP_PKEY_fromdata_init(ctx) <= 0 ||
		EVP_PKEY_fromdata(ctx, &key, EVP_PKEY_PUBLIC_KEY, params) <= 0)
		key = NULL;
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	return key;
}

static const char *
import_rsa(const JoseJwk *jwk, EVP_PKEY **key)
{
	BIGNUM	   *n = b64url_bignum(jwk->n);
	BIGNUM	   *e = b64url_bignum(jwk->e);
	OSSL_PARAM_BLD *bld = OSSL_PARAM_BLD_new();
	const char *problem = NULL;
	int			bits = n ? BN_num_bits(n) : 0;

	if (n == NULL || e == NULL || BN_is_zero(e) || !BN_is_odd(n))
		problem = "n or e is missing or malformed";
	else if (bits < JOSE_RSA_MIN_BITS || bits > JOSE_RSA_MAX_BITS)
		problem = "the RSA modulus is shorter than 2048 or longer than 8192 bits";
	else if (bld == NULL || !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_N, n) ||
			 !OSSL_PARAM_BLD_push_BN(bld, OSSL_PKEY_PARAM_RSA_E, e) ||
			 (*key = pkey_from_params("RSA", bld)) == NULL)
		problem = "libcrypto refused the RSA key";
	OSSL_PARAM_BLD_free(bld);
	BN_free(n);
	BN_free(e);
	return problem;
}

static const char *
import_ec(const JoseJwk *jwk, JoseAlg alg, EVP_PKEY **key)
{
	const struct curve *c = curve_of(alg);
	uint8_t		point[1 + 2 * 66];
	OSSL_PARAM_BLD *bld;
	const char *problem = NULL;

	if (jwk->crv == NULL || strcmp(jwk->crv, c->crv) != 0)
		return psprintf("%s needs crv %s", alg_name(alg), c->crv);
	point[0] = 0x04;			/* uncompressed: 04 || x || y */
	if (!coordinate(jwk->x, c->size, point + 1) || !coordinate(jwk->y, c->size, point + 1 + c->size))
		return "x or y is missing or malformed";
	bld = OSSL_PARAM_BLD_new();
	if (bld == NULL || !OSSL_PARAM_BLD_push_utf8_string(bld, OSSL_PKEY_PARAM_GROUP_NAME, c->group, 0) ||
		!OSSL_PARAM_BLD_push_octet_string(bld, OSSL_PKEY_PARAM_PUB_KEY, point, 1 + 2 * c->size) ||
		(*key = pkey_from_params("EC", bld)) == NULL)
		problem = "the point is not on the curve";
	OSSL_PARAM_BLD_free(bld);
	return problem;
}

static const char *
import_okp(const JoseJwk *jwk, EVP_PKEY **key)
{
	bool		ed25519 = jwk->crv && strcmp(jwk->crv, "Ed25519") == 0;
	bool		ed448 = jwk->crv && strcmp(jwk->crv, "Ed448") == 0;
	size_t		size = ed25519 ? 32 : 57;
	size_t		n;
	uint8_t    *raw;

	if (!ed25519 && !ed448)
		return "EdDSA needs crv Ed25519 or Ed448";
	raw = jwk->x ? jose_b64url_decode(jwk->x, strlen(jwk->x), &n) : NULL;
	if (raw == NULL || n != size)
		return "x is missing or not the key's length";
	*key = EVP_PKEY_new_raw_public_key(ed25519 ? EVP_PKEY_ED25519 : EVP_PKEY_ED448, NULL, raw, n);
	pfree(raw);
	return *key ? NULL : "libcrypto refused the EdDSA key";
}

/* the key is public and valid: on the curve, a usable modulus (EVP_PKEY_public_check) */
static bool
public_check(EVP_PKEY *key)
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new_from_pkey(NULL, key, NULL);
	bool		ok = ctx != NULL && EVP_PKEY_public_check(ctx) == 1;

	EVP_PKEY_CTX_free(ctx);
	return ok;
}

const char *
jose_key_import(const JoseJwk *jwk, JoseAlg alg, EVP_PKEY **key)
{
	const char *want_kty = is_rsa(alg) ? "RSA" : is_ecdsa(alg) ? "EC" : "OKP";
	const char *problem;

	*key = NULL;
	if (alg == JOSE_ALG_UNSUPPORTED)
		return "the algorithm is not one there is code for";
	if (jwk->kty == NULL || strcmp(jwk->kty, want_kty) != 0)
		return psprintf("%s needs kty %s", alg_name(alg), want_kty);
	if (jwk->alg != NULL && strcmp(jwk->alg, alg_name(alg)) != 0)
		return "the key's alg names another algorithm";
	if (jwk->use != NULL && strcmp(jwk->use, "sig") != 0)
		return "the key's use is not sig";
	if (!jwk->key_ops_verify)
		return "the key's key_ops do not include verify";
	if (jwk->has_private)
		return "the key has private members";
	problem = is_rsa(alg) ? import_rsa(jwk, key) : is_ecdsa(alg) ? import_ec(jwk, alg, key) : import_okp(jwk, key);
	if (problem == NULL && !public_check(*key))
		problem = "libcrypto's public key check failed";
	if (problem != NULL && *key != NULL)
	{
		EVP_PKEY_free(*key);
		*key = NULL;
	}
	ERR_clear_error();			/* leave nothing on the queue the server's TLS code reads */
	return problem;
}

/* ---------- verification ---------- */

static const BIGNUM *
curve_order(const struct curve *c)
{
	static EC_GROUP *groups[lengthof(curves)];
	size_t		i = (size_t) (c - curves);

	if (groups[i] == NULL)
		groups[i] = EC_GROUP_new_by_curve_name(c->nid);
	return groups[i] ? EC_GROUP_get0_order(groups[i]) : NULL;
}

/* in 1..n-1 */
static bool
scalar_in_range(const BIGNUM *v, const BIGNUM *order)
{
	return !BN_is_zero(v) && !BN_is_negative(v) && BN_cmp(v, order) < 0;
}

/*
 * R || S (RFC 7518 section 3.4) as the DER ECDSA-Sig-Value libcrypto
 * verifies, palloc'd into *der; false when the length is not twice the
 * curve's size or R or S is 0 or >= n (refused here, not left to
 * libcrypto: a signature with R = 0 or S = 0 is what made CVE-2022-21449's
 * verifiers accept anything).
 */
static bool
ecdsa_der(const struct curve *c, const uint8_t *sig, size_t sig_len, uint8_t **der, size_t *der_len)
{
	const BIGNUM *order = curve_order(c);
	ECDSA_SIG  *es;
	BIGNUM	   *r;
	BIGNUM	   *s;
	unsigned char *buf = NULL;
	int			n;

	if (order == NULL || sig_len != 2 * c->size)
		return false;
	r = BN_bin2bn(sig, (int) c->size, NULL);
	s = BN_bin2bn(sig + c->size, (int) c->size, NULL);
	es = ECDSA_SIG_new();
	if (r == NULL || s == NULL || es == NULL || !scalar_in_range(r, order) || !scalar_in_range(s, order) ||
		!ECDSA_SIG_set0(es, r, s))
	{
		BN_free(r);
		BN_free(s);
		ECDSA_SIG_free(es);
		return false;
	}
	n = i2d_ECDSA_SIG(es, &buf);	/* es owns r and s now */
	ECDSA_SIG_free(es);
	if (n <= 0)
		return false;
	*der = palloc((size_t) n);
	memcpy(*der, buf, (size_t) n);
	*der_len = (size_t) n;
	OPENSSL_free(buf);
	return true;
}

/* the key is of the kind alg needs (an RSA key never verifies ES256, ...) */
static bool
key_fits(JoseAlg alg, EVP_PKEY *key)
{
	if (is_rsa(alg))
		return EVP_PKEY_is_a(key, "RSA");
	if (is_ecdsa(alg))
	{
		char		group[64];
		size_t		len = 0;

		return EVP_PKEY_is_a(key, "EC") &&
			EVP_PKEY_get_utf8_string_param(key, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group), &len) &&
			strcmp(group, curve_of(alg)->group) == 0;
	}
	return EVP_PKEY_is_a(key, "ED25519") || EVP_PKEY_is_a(key, "ED448");
}

bool
jose_verify(JoseAlg alg, EVP_PKEY *key, const char *input, size_t input_len, const uint8_t *sig, size_t sig_len)
{
	EVP_MD_CTX *md;
	EVP_PKEY_CTX *pctx = NULL;
	uint8_t    *der = NULL;
	bool		ok = false;

	if (alg == JOSE_ALG_UNSUPPORTED || key == NULL || !key_fits(alg, key))
		return false;
	if (is_ecdsa(alg))
	{
		if (!ecdsa_der(curve_of(alg), sig, sig_len, &der, &sig_len))
			return false;
		sig = der;
	}
	else if (is_rsa(alg) && sig_len != (size_t) EVP_PKEY_get_size(key))
		return false;
	md = EVP_MD_CTX_new();
	if (md != NULL && EVP_DigestVerifyInit(md, &pctx, alg_digest(alg), NULL, key) == 1 &&
		(alg < JOSE_PS256 || alg > JOSE_PS512 ||
		 (EVP_PKEY_CTX_set_rsa_padding(pctx, RSA_PKCS1_PSS_PADDING) == 1 &&
		  EVP_PKEY_CTX_set_rsa_pss_saltlen(pctx, RSA_PSS_SALTLEN_DIGEST) == 1)))
		ok = EVP_DigestVerify(md, sig, sig_len, (const unsigned char *) input, input_len) == 1;
	EVP_MD_CTX_free(md);
	if (der)
		pfree(der);
	ERR_clear_error();
	return ok;
}
