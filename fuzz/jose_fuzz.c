/*
 * jose_fuzz.c
 *		libFuzzer target for extension/src/jwt.c: the compact JWS split, the
 *		JSON checks of header and claims, JWK import and verification.
 *
 *	An input is a compact token, or (when it begins with "JWK\n") the
 *	members of a JWK one per line: kty, crv, alg, x, y, n, e.
 *
 *	Invariants:
 *	 1. A segment jose_split() accepts is canonical: re-encoding the decoded
 *		bytes gives the segment back byte for byte (so one token has one
 *		spelling, and no two spellings reach the signature check).
 *	 2. A header or payload jose_split() accepts begins with "{" after
 *		whitespace and has no NUL byte; the split with payload_json accepts
 *		a subset of what the split without it accepts.
 *	 3. jose_verify() is true only for the exact bytes of a known-good seed
 *		token under its own key and algorithm: no mutation of a signed token
 *		verifies, under any key and algorithm there is code for.
 *	 4. A JWK jose_key_import() accepts for an algorithm verifies a seed
 *		token only when it is that seed's key.
 */
#include "postgres.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "jwt.h"
#include "pg_backend_shim.h"

/* RFC 7515 A.2 (RS256), A.3 (ES256) and RFC 8037 A.4 (EdDSA): token and public key */
static const struct seed
{
	JoseAlg		alg;
	const char *token;
	JoseJwk		jwk;
}			seeds[] = {
	{JOSE_RS256,
		"eyJhbGciOiJSUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
		"cC4hiUPoj9Eetdgtv3hF80EGrhuB__dzERat0XF9g2VtQgr9PJbu3XOiZj5RZmh7AAuHIm4Bh-0Qc_lF5YKt_O8W2Fp5jujGbds9uJdbF9CUAr7t1dnZcAcQjbKBYNX4BAynRFdiuB--f_nZLgrnbyTyWzO75vRK5h6xBArLIARNPvkSjtQBMHlb1L07Qe7K0GarZRmB_eSN9383LcOLn6_dO--xi12jzDwusC-eOkHWEsqtFZESc6BfI7noOPqvhJ1phCnvWh6IeYI2w9QOYEUipUTI8np6LbgGY9Fs98rqVt5AXLIhWkWywlVmtVrBp0igcN_IoypGlUPQGe77Rw",
		{.kty = "RSA", .e = "AQAB", .key_ops_verify = true,
			.n = "ofgWCuLjybRlzo0tZWJjNiuSfb4p4fAkd_wWJcyQoTbji9k0l8W26mPddxHmfHQp-Vaw-4qPCJrcS2mJPMEzP1Pt0Bm4d4QlL-yRT-SFd2lZS-pCgNMsD1W_YpRPEwOWvG6b32690r2jZ47soMZo9wGzjb_7OMg0LOL-bSf63kpaSHSXndS5z5rexMdbBYUsLA9e-KXBdQOS-UTo7WTBEMa2R2CapHg665xsmtdVMTBQY4uDZlxvb3qCo5ZwKh9kG4LT6_I5IhlJH7aGhyxXFvUK-DWNmoudF8NAco9_h9iaGNj8q2ethFkMLs91kzk2PAcDTW9gb54h4FRWyuXpoQ"}},
	{JOSE_ES256,
		"eyJhbGciOiJFUzI1NiJ9.eyJpc3MiOiJqb2UiLA0KICJleHAiOjEzMDA4MTkzODAsDQogImh0dHA6Ly9leGFtcGxlLmNvbS9pc19yb290Ijp0cnVlfQ."
		"DtEhU3ljbEg8L38VWAfUAqOyKAM6-Xx-F4GawxaepmXFCgfTjDxw5djxLa8ISlSApmWQxfKTUJqPP3-Kg6NU1Q",
		{.kty = "EC", .crv = "P-256", .key_ops_verify = true,
			.x = "f83OJ3D2xF1Bg8vub9tLe1gHMzV76e8Tus9uPHvRVEU", .y = "x_FEzRu9m36HLN_tue659LNpXW6pCyStikYjKIWI5a0"}},
	{JOSE_EDDSA,
		"eyJhbGciOiJFZERTQSJ9.RXhhbXBsZSBvZiBFZDI1NTE5IHNpZ25pbmc."
		"hgyY0il_MGCjP0JzlnLWG1PPOt7-09PGcvMg3AIbQR6dWbhijcNR4ki4iylGjg5BhVsPt9g7sVvpAr_MuM0KAg",
		{.kty = "OKP", .crv = "Ed25519", .key_ops_verify = true, .x = "11qYAYKxCrfVS_7TyWQHOg7hcvPapiMlrwIaaPcHURo"}},
};

#define N_SEEDS (sizeof(seeds) / sizeof(seeds[0]))

static EVP_PKEY *seed_keys[N_SEEDS];

/*
 * PostgreSQL's JSON parser (libpgcommon's jsonapi.o) calls pstrdup; defined
 * here on the shim's palloc, so libpgcommon's fe_memutils.o (a second
 * palloc) is never linked (see README.md).
 */
char *
pstrdup(const char *in)
{
	size_t		n = strlen(in);
	char	   *out = palloc(n + 1);

	memcpy(out, in, n + 1);
	return out;
}
static const uint8_t *cur_data;
static size_t cur_size;

static void violation(const char *fmt,...) __attribute__((format(printf, 1, 2), noreturn));

static void
violation(const char *fmt,...)
{
	va_list		ap;

	fprintf(stderr, "\n==== jose_fuzz: INVARIANT VIOLATED: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n  input (%zu bytes): %.*s\n", cur_size, (int) (cur_size < 400 ? cur_size : 400),
			(const char *) cur_data);
	abort();
}

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void) argc;
	(void) argv;
	for (size_t i = 0; i < N_SEEDS; i++)
	{
		const char *problem = jose_key_import(&seeds[i].jwk, seeds[i].alg, &seed_keys[i]);

		if (problem != NULL)
		{
			fprintf(stderr, "jose_fuzz: seed key %zu: %s\n", i, problem);
			abort();
		}
	}
	shim_arena_reset();
	return 0;
}

/* base64url without padding, for invariant 1 (written from RFC 4648 section 5, not from jwt.c) */
static char *
encode(const uint8_t *p, size_t n)
{
	static const char a[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";
	char	   *out = palloc(n * 4 / 3 + 4);
	size_t		o = 0;

	for (size_t i = 0; i < n; i += 3)
	{
		uint32_t	v = (uint32_t) p[i] << 16 | (i + 1 < n ? (uint32_t) p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);

		out[o++] = a[v >> 18 & 63];
		out[o++] = a[v >> 12 & 63];
		if (i + 1 < n)
			out[o++] = a[v >> 6 & 63];
		if (i + 2 < n)
			out[o++] = a[v & 63];
	}
	out[o] = '\0';
	return out;
}

static void
check_canonical(const char *segment, size_t len, const uint8_t *decoded, size_t n, const char *what)
{
	char	   *again = encode(decoded, n);

	if (strlen(again) != len || memcmp(again, segment, len) != 0)
		violation("the %s segment is not canonical base64url but was accepted", what);
}

static void
check_split(const char *token, size_t len)
{
	JoseCompact loose;
	JoseCompact strict;
	const char *loose_problem = jose_split(token, len, false, &loose);
	const char *strict_problem = jose_split(token, len, true, &strict);
	const char *dot1;
	const char *dot2;
	const char *h;

	if (strict_problem == NULL && loose_problem != NULL)
		violation("accepted with payload_json but refused without: %s", loose_problem);
	if (loose_problem != NULL)
		return;
	dot1 = memchr(token, '.', len);
	dot2 = memchr(dot1 + 1, '.', len - (size_t) (dot1 + 1 - token));
	check_canonical(token, (size_t) (dot1 - token), (const uint8_t *) loose.header, loose.header_len, "header");
	check_canonical(dot1 + 1, (size_t) (dot2 - dot1 - 1), (const uint8_t *) loose.payload, loose.payload_len, "payload");
	check_canonical(dot2 + 1, len - (size_t) (dot2 + 1 - token), loose.signature, loose.signature_len, "signature");
	if (memchr(loose.header, '\0', loose.header_len) != NULL)
		violation("a header with a NUL byte was accepted");
	for (h = loose.header; *h == ' ' || *h == '\t' || *h == '\n' || *h == '\r'; h++)
		;
	if (*h != '{')
		violation("a header that is not an object was accepted");
	for (size_t k = 0; k < N_SEEDS; k++)
		for (JoseAlg alg = JOSE_ALG_UNSUPPORTED; alg <= JOSE_EDDSA; alg++)
			if (jose_verify(alg, seed_keys[k], loose.signing_input, loose.signing_input_len, loose.signature,
							loose.signature_len) &&
				(alg != seeds[k].alg || len != strlen(seeds[k].token) || memcmp(token, seeds[k].token, len) != 0))
				violation("a token other than seed %zu verified under its key with alg %d", k, (int) alg);
}

/* "JWK\n" then kty, crv, alg, x, y, n, e, a line each (an empty line: absent) */
static void
check_jwk(const char *text, size_t len)
{
	char	   *copy = palloc(len + 1);
	char	   *fields[7] = {0};
	char	   *p = copy;
	JoseJwk		jwk = {.key_ops_verify = true};

	memcpy(copy, text, len);
	copy[len] = '\0';
	for (int i = 0; i < 7 && p; i++)
	{
		char	   *nl = strchr(p, '\n');

		if (nl)
			*nl = '\0';
		fields[i] = *p ? p : NULL;
		p = nl ? nl + 1 : NULL;
	}
	jwk.kty = fields[0], jwk.crv = fields[1], jwk.alg = fields[2];
	jwk.x = fields[3], jwk.y = fields[4], jwk.n = fields[5], jwk.e = fields[6];
	for (JoseAlg alg = JOSE_ALG_UNSUPPORTED; alg <= JOSE_EDDSA; alg++)
	{
		EVP_PKEY   *key = NULL;

		if (jose_key_import(&jwk, alg, &key) != NULL)
			continue;
		for (size_t k = 0; k < N_SEEDS; k++)
		{
			JoseCompact jws;
			const char *t = seeds[k].token;

			if (jose_split(t, strlen(t), false, &jws) == NULL &&
				jose_verify(alg, key, jws.signing_input, jws.signing_input_len, jws.signature, jws.signature_len) &&
				(alg != seeds[k].alg || EVP_PKEY_eq(key, seed_keys[k]) != 1))
				violation("an imported key that is not seed %zu's verified it (alg %d)", k, (int) alg);
		}
		EVP_PKEY_free(key);
	}
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	cur_data = data;
	cur_size = size;
	if (size >= 4 && memcmp(data, "JWK\n", 4) == 0)
		check_jwk((const char *) data + 4, size - 4);
	else
		check_split((const char *) data, size);
	shim_arena_reset();
	return 0;
}
