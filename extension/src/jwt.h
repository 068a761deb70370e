/*
 * jwt.h
 *		JSON Web Signatures (RFC 7515, compact serialization) on OpenSSL's
 *		libcrypto: strict decoding and signature verification with a public
 *		JSON Web Key (RFC 7517) under the asymmetric algorithms of RFC 7518
 *		and RFC 8037.  jwt.c is the core (no fmgr, so fuzz/ links it alone);
 *		jwt_sql.c makes the SQL functions of it.
 *
 * What a token means (typ, iss, aud, exp, the key it names) is decided by
 * the SQL that calls these; this layer only says whether the bytes are a
 * well-formed JWS and whether a given key signed them.  Nothing here ever
 * accepts "none" or a MAC algorithm: there is no code for them.
 */
#ifndef MCPN_JWT_H
#define MCPN_JWT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#define JOSE_MAX_TOKEN		16384	/* longer compact tokens are refused unread */
#define JOSE_MAX_DEPTH		16		/* nesting of the header and claims objects */
#define JOSE_MAX_MEMBERS	128		/* top-level members of the header or the claims */
#define JOSE_MAX_NUMBER		64		/* characters of one JSON number */
#define JOSE_RSA_MIN_BITS	2048	/* RFC 7518 section 3.3 */
#define JOSE_RSA_MAX_BITS	8192	/* bounds the cost of one verification */

/* the algorithms there is code for; anything else is JOSE_ALG_UNSUPPORTED */
typedef enum JoseAlg
{
	JOSE_ALG_UNSUPPORTED = 0,
	JOSE_RS256,
	JOSE_RS384,
	JOSE_RS512,
	JOSE_PS256,
	JOSE_PS384,
	JOSE_PS512,
	JOSE_ES256,
	JOSE_ES384,
	JOSE_ES512,
	JOSE_EDDSA
} JoseAlg;

/* a compact JWS split and decoded; the pointers are palloc'd or point into the token */
typedef struct JoseCompact
{
	const char *signing_input;	/* "header.payload" exactly as sent */
	size_t		signing_input_len;
	char	   *header;			/* decoded, NUL-terminated */
	size_t		header_len;
	char	   *payload;
	size_t		payload_len;
	uint8_t    *signature;
	size_t		signature_len;
} JoseCompact;

/* the members of a JWK this code reads, as their JSON strings (NULL = absent) */
typedef struct JoseJwk
{
	const char *kty;
	const char *crv;
	const char *alg;
	const char *use;
	const char *n;
	const char *e;
	const char *x;
	const char *y;
	bool		has_private;	/* d, p, q, dp, dq, qi or k is present */
	bool		key_ops_verify; /* key_ops is absent or lists "verify" */
} JoseJwk;

/* The algorithm an "alg" value names, or JOSE_ALG_UNSUPPORTED (none, HS256, ...). */
extern JoseAlg jose_alg_from_name(const char *name);

/*
 * Strict base64url (RFC 7515 section 2): the URL-safe alphabet, no padding,
 * no whitespace, and the unused bits of the last character zero, so one
 * byte string has exactly one encoding.  Returns palloc'd bytes (with a NUL
 * after them) or NULL.
 */
extern uint8_t *jose_b64url_decode(const char *text, size_t len, size_t *out_len);

/*
 * Splits a compact JWS into its three parts and decodes them.  NULL when it
 * is well formed, else why not: not three segments, a segment that is not
 * canonical base64url, an empty signature (an unsecured JWS), longer than
 * JOSE_MAX_TOKEN, or a header (and with payload_json, a payload) that is
 * not a JSON object as jose_json_object_problem() requires.
 */
extern const char *jose_split(const char *token, size_t len, bool payload_json, JoseCompact *out);

/*
 * NULL when json (len bytes, no NUL inside) is one JSON object, valid UTF-8
 * in PostgreSQL's parser, no deeper than JOSE_MAX_DEPTH, with at most
 * JOSE_MAX_MEMBERS top-level members, each name once (RFC 7515 section 4:
 * a duplicate member name is rejected rather than guessed at), and numbers
 * jsonb can hold; else why not.
 */
extern const char *jose_json_object_problem(const char *json, size_t len);

/*
 * The public key of jwk for alg into *key (the caller frees it with
 * EVP_PKEY_free): NULL, or why the JWK cannot verify alg (wrong kty or crv,
 * an alg member naming another algorithm, use other than "sig", key_ops
 * without "verify", private members, a bad coordinate or modulus, an RSA
 * modulus outside JOSE_RSA_MIN_BITS..JOSE_RSA_MAX_BITS, a point off the
 * curve).
 */
extern const char *jose_key_import(const JoseJwk *jwk, JoseAlg alg, EVP_PKEY **key);

/*
 * True when sig is a valid signature of input under alg with key.  ECDSA
 * signatures are R || S of exactly twice the curve's size (RFC 7518 section
 * 3.4), and R and S must lie in 1..n-1; RSA signatures are as long as the
 * modulus.
 */
extern bool jose_verify(JoseAlg alg, EVP_PKEY *key, const char *input, size_t input_len,
						const uint8_t *sig, size_t sig_len);

#endif							/* MCPN_JWT_H */
