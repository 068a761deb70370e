/*
 * state.c
 *		Sealing and opening of the MCP requestState (and of every other sealed
 *		token: pagination cursors, the conformance fixture's states).
 *
 * A sealed token is four dot-separated fields:
 *
 *		v1.<key id>.<base64url(payload JSON)>.<base64url(HMAC-SHA256)>
 *
 * The MAC covers the first three fields exactly as sent, so nothing is
 * re-serialized before it is checked.  The payload is
 *
 *		{"nonce": "...", "iat": <unix s>, "exp": <unix s>, "purpose": "...", "claims": {...}}
 *
 * where purpose says what the token is for (a notes_delete confirmation, a
 * cursor, ...) and exp = iat + its lifetime, both given by the caller of
 * _seal and covered by the MAC; the claims (principal, method, argument
 * digest, candidates, phase, ...) come from the caller too.  Extension 1.3
 * sealed no purpose and always used mcp_notes.state_ttl as the lifetime
 * (_seal_state); its tokens still open, and _open_sealed (SQL) reads their
 * purpose and expiry as 1.3 did.  Keys live in mcp_notes.state_keys,
 * readable only by the extension owner; these functions run as that owner.
 *
 * Opening never raises for a bad token: it reports which check failed, so
 * the tool can turn it into a JSON-RPC error without a subtransaction.
 * Purpose, expiry and principal are checked by _open_sealed, the rest by
 * its callers, which know what they must be.
 */
#include "postgres.h"

#include "common/base64.h"
#include "common/cryptohash.h"
#include "common/hmac.h"
#include "common/sha2.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "lib/stringinfo.h"
#include "utils/builtins.h"
#include "utils/jsonb.h"
#include "utils/timestamp.h"

#include "mcp_notes.h"

#define STATE_VERSION		"v1"
#define STATE_NONCE_BYTES	16
#define STATE_KEY_BYTES		32
#define STATE_MAX_LENGTH	16384	/* far above any state we issue */

PG_FUNCTION_INFO_V1(mcp_notes_random_bytes);
PG_FUNCTION_INFO_V1(mcp_notes_seal);
PG_FUNCTION_INFO_V1(mcp_notes_seal_state);
PG_FUNCTION_INFO_V1(mcp_notes_open_state);

/* Standard base64 with the URL-safe alphabet and no padding. */
static char *
base64url_encode(const uint8 *data, int len)
{
	int			enclen = pg_b64_enc_len(len);
	char	   *out = palloc(enclen + 1);
	int			n;

	n = pg_b64_encode((const char *) data, len, out, enclen);
	if (n < 0)
		elog(ERROR, "could not encode base64");
	while (n > 0 && out[n - 1] == '=')
		n--;
	out[n] = '\0';
	for (int i = 0; i < n; i++)
	{
		if (out[i] == '+')
			out[i] = '-';
		else if (out[i] == '/')
			out[i] = '_';
	}
	return out;
}

/*
 * Decodes unpadded base64url.  Returns the decoded length, or -1 when the
 * text uses any character outside the alphabet or has an impossible length.
 */
static int
base64url_decode(const char *src, int len, uint8 **out)
{
	char	   *std;
	int			padded = len + (4 - len % 4) % 4;
	int			declen;
	int			n;
	char	   *canonical;

	if (len == 0 || len % 4 == 1)
		return -1;
	std = palloc(padded + 1);
	for (int i = 0; i < len; i++)
	{
		char		c = src[i];

		if (c == '-')
			c = '+';
		else if (c == '_')
			c = '/';
		else if (!((c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') ||
				   (c >= '0' && c <= '9')))
			return -1;
		std[i] = c;
	}
	for (int i = len; i < padded; i++)
		std[i] = '=';
	std[padded] = '\0';

	declen = pg_b64_dec_len(padded);
	*out = palloc(declen + 1);
	n = pg_b64_decode(std, padded, (char *) *out, declen);
	if (n <= 0)
		return -1;

	/*
	 * Accept only the canonical spelling: the unused low bits of the last
	 * character must be zero, or two texts would carry the same bytes and a
	 * changed state could still verify.
	 */
	canonical = base64url_encode(*out, n);
	if (strlen(canonical) != (size_t) len || memcmp(canonical, src, len) != 0)
		return -1;
	return n;
}

static void
fill_random(uint8 *buf, size_t len)
{
	if (!pg_strong_random(buf, len))
		ereport(ERROR,
				(errcode(ERRCODE_INTERNAL_ERROR),
				 errmsg("could not generate random bytes")));
}

/* HMAC-SHA256 of data under key, into mac[PG_SHA256_DIGEST_LENGTH]. */
static void
hmac_sha256(const uint8 *key, size_t keylen, const char *data, size_t len,
			uint8 *mac)
{
	pg_hmac_ctx *ctx = pg_hmac_create(PG_SHA256);

	if (ctx == NULL)
		ereport(ERROR,
				(errcode(ERRCODE_OUT_OF_MEMORY),
				 errmsg("out of memory")));
	if (pg_hmac_init(ctx, key, keylen) < 0 ||
		pg_hmac_update(ctx, (const uint8 *) data, len) < 0 ||
		pg_hmac_final(ctx, mac, PG_SHA256_DIGEST_LENGTH) < 0)
	{
		const char *why = pg_hmac_error(ctx);

		pg_hmac_free(ctx);
		elog(ERROR, "could not compute HMAC: %s", why);
	}
	pg_hmac_free(ctx);
}

/* Compares two MACs in time independent of where they differ. */
static bool
mac_equal(const uint8 *a, const uint8 *b, size_t len)
{
	volatile uint8 diff = 0;

	for (size_t i = 0; i < len; i++)
		diff |= a[i] ^ b[i];
	return diff == 0;
}

/*
 * Looks up a key by id (or the active key when key_id is 0).  Returns false
 * when there is no such key.  The secret is copied out of SPI memory.
 */
static bool
fetch_state_key(int32 key_id, int32 *found_id, uint8 *secret)
{
	int			ret;
	bool		found = false;

	SPI_connect();
	if (key_id == 0)
		ret = SPI_execute("SELECT key_id, secret FROM mcp_notes.state_keys"
						  " WHERE retired_at IS NULL", true, 2);
	else
	{
		Oid			argtypes[1] = {INT4OID};
		Datum		args[1] = {Int32GetDatum(key_id)};

		ret = SPI_execute_with_args("SELECT key_id, secret FROM mcp_notes.state_keys"
									" WHERE key_id OPERATOR(pg_catalog.=) $1",
									1, argtypes, args, NULL, true, 2);
	}
	if (ret != SPI_OK_SELECT)
		elog(ERROR, "could not read mcp_notes.state_keys: %s",
			 SPI_result_code_string(ret));
	if (SPI_processed > 1)
		elog(ERROR, "more than one state key matched key id %d", key_id);
	if (SPI_processed == 1)
	{
		HeapTuple	tup = SPI_tuptable->vals[0];
		TupleDesc	desc = SPI_tuptable->tupdesc;
		bool		isnull;
		Datum		d;
		bytea	   *b;

		d = SPI_getbinval(tup, desc, 1, &isnull);
		*found_id = DatumGetInt32(d);
		d = SPI_getbinval(tup, desc, 2, &isnull);
		b = DatumGetByteaPP(d);
		if (isnull || VARSIZE_ANY_EXHDR(b) != STATE_KEY_BYTES)
			elog(ERROR, "state key %d is not %d bytes", *found_id, STATE_KEY_BYTES);
		memcpy(secret, VARDATA_ANY(b), STATE_KEY_BYTES);
		found = true;
	}
	SPI_finish();
	return found;
}

/* _random_bytes(n) — n bytes from the operating system's strong generator. */
Datum
mcp_notes_random_bytes(PG_FUNCTION_ARGS)
{
	int32		n = PG_GETARG_INT32(0);
	bytea	   *result;

	if (n < 1 || n > 1024)
		ereport(ERROR,
				(errcode(ERRCODE_NUMERIC_VALUE_OUT_OF_RANGE),
				 errmsg("random byte count must be between 1 and 1024")));
	result = palloc(VARHDRSZ + n);
	SET_VARSIZE(result, VARHDRSZ + n);
	fill_random((uint8 *) VARDATA(result), n);
	PG_RETURN_BYTEA_P(result);
}

/*
 * A new token under the active key: claims (a JSON object) valid for
 * lifetime seconds; purpose, when not NULL, is a name that needs no JSON
 * escaping (checked by the caller).
 */
static text *
seal(Jsonb *claims, const char *purpose, int32 lifetime)
{
	uint8		secret[STATE_KEY_BYTES];
	uint8		nonce[STATE_NONCE_BYTES];
	uint8		mac[PG_SHA256_DIGEST_LENGTH];
	int32		key_id;
	int64		now;
	StringInfoData payload;
	StringInfoData token;

	if (!JB_ROOT_IS_OBJECT(claims))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("state claims must be a JSON object")));
	if (!fetch_state_key(0, &key_id, secret))
		ereport(ERROR,
				(errcode(ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE),
				 errmsg("no active state key"),
				 errhint("Run SELECT mcp_notes.rotate_state_key(); as the extension owner.")));

	fill_random(nonce, sizeof(nonce));
	now = (int64) timestamptz_to_time_t(GetCurrentTimestamp());

	/* Every value spliced in here is base64url, an integer or a checked name: no escaping needed. */
	initStringInfo(&payload);
	appendStringInfo(&payload, "{\"nonce\":\"%s\",\"iat\":" INT64_FORMAT ",\"exp\":" INT64_FORMAT ",",
					 base64url_encode(nonce, sizeof(nonce)), now, now + lifetime);
	if (purpose != NULL)
		appendStringInfo(&payload, "\"purpose\":\"%s\",", purpose);
	appendStringInfo(&payload, "\"claims\":%s}",
					 JsonbToCString(NULL, &claims->root, VARSIZE(claims)));

	initStringInfo(&token);
	appendStringInfo(&token, STATE_VERSION ".%d.%s", key_id,
					 base64url_encode((uint8 *) payload.data, payload.len));
	hmac_sha256(secret, sizeof(secret), token.data, token.len, mac);
	explicit_bzero(secret, sizeof(secret));
	appendStringInfo(&token, ".%s", base64url_encode(mac, sizeof(mac)));

	return cstring_to_text_with_len(token.data, token.len);
}

/* A purpose is a lower-case name of 1 to 64 characters: [a-z][a-z0-9_]*. */
static bool
purpose_is_a_name(const char *p, int len)
{
	if (len < 1 || len > 64 || p[0] < 'a' || p[0] > 'z')
		return false;
	for (int i = 1; i < len; i++)
	{
		if (!((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= '0' && p[i] <= '9') || p[i] == '_'))
			return false;
	}
	return true;
}

/*
 * _seal(purpose text, claims jsonb, lifetime integer) — a new token for a
 * purpose, valid lifetime seconds (NULL: mcp_notes.state_ttl).
 */
Datum
mcp_notes_seal(PG_FUNCTION_ARGS)
{
	text	   *purpose;
	int32		lifetime = PG_ARGISNULL(2) ? mcpn_state_ttl : PG_GETARG_INT32(2);

	if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
		ereport(ERROR,
				(errcode(ERRCODE_NULL_VALUE_NOT_ALLOWED),
				 errmsg("a sealed token needs a purpose and claims")));
	purpose = PG_GETARG_TEXT_PP(0);
	if (!purpose_is_a_name(VARDATA_ANY(purpose), VARSIZE_ANY_EXHDR(purpose)))
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("invalid purpose of a sealed token"),
				 errdetail("A purpose is 1 to 64 characters of a-z, 0-9 and _, beginning with a letter.")));
	/* A retired key is pruned a day after it retires, so no token may outlive that. */
	if (lifetime < 1 || lifetime > MCPN_STATE_TTL_MAX)
		ereport(ERROR,
				(errcode(ERRCODE_INVALID_PARAMETER_VALUE),
				 errmsg("lifetime of a sealed token out of range"),
				 errdetail("A lifetime is 1 to %d seconds; this one is %d.", MCPN_STATE_TTL_MAX, lifetime)));
	PG_RETURN_TEXT_P(seal(PG_GETARG_JSONB_P(1),
						  text_to_cstring(purpose), lifetime));
}

/*
 * _seal_state(claims jsonb) — 1.3's seal: no purpose, lifetime state_ttl.
 * No SQL function of 1.4 is bound to it; the symbol stays so that the 1.3
 * SQL keeps working between installing these binaries and ALTER EXTENSION
 * UPDATE, and tests can make a 1.3 token.
 */
Datum
mcp_notes_seal_state(PG_FUNCTION_ARGS)
{
	PG_RETURN_TEXT_P(seal(PG_GETARG_JSONB_P(0), NULL, mcpn_state_ttl));
}

/* A failure report {"ok": false, "reason": ..., "message": ...}; both are fixed ASCII. */
static Datum
open_failure(const char *reason, const char *message)
{
	char	   *json = psprintf("{\"ok\": false, \"reason\": \"%s\", \"message\": \"%s\"}",
								reason, message);

	return DirectFunctionCall1(jsonb_in, CStringGetDatum(json));
}

/*
 * _open_state(state text) — checks form, key and signature.
 *
 * Returns {"ok": true, "kid": n, "nonce": ..., "iat": ..., "exp": ...,
 * "purpose": ... (not in 1.3 tokens), "claims": {...}} or {"ok": false,
 * "reason": ..., "message": ...}.
 */
Datum
mcp_notes_open_state(PG_FUNCTION_ARGS)
{
	text	   *state = PG_GETARG_TEXT_PP(0);
	const char *s = VARDATA_ANY(state);
	int			len = VARSIZE_ANY_EXHDR(state);
	const char *dots[3];
	int			ndots = 0;
	int32		key_id = 0;
	int32		found_id;
	uint8		secret[STATE_KEY_BYTES];
	uint8		expected[PG_SHA256_DIGEST_LENGTH];
	uint8	   *sent_mac;
	uint8	   *payload;
	int			payload_len;
	const char *p;
	char	   *json;

	if (len > STATE_MAX_LENGTH)
		PG_RETURN_DATUM(open_failure("state_malformed",
									 "requestState is too long to be a state this server issued"));
	for (int i = 0; i < len; i++)
	{
		if (s[i] == '.')
		{
			if (ndots == 3)
				PG_RETURN_DATUM(open_failure("state_malformed",
											 "requestState has more than four fields"));
			dots[ndots++] = s + i;
		}
	}
	if (ndots != 3)
		PG_RETURN_DATUM(open_failure("state_malformed",
									 "requestState does not have the form v1.<key>.<payload>.<mac>"));
	if (dots[0] - s != 2 || memcmp(s, STATE_VERSION, 2) != 0)
		PG_RETURN_DATUM(open_failure("state_malformed",
									 "requestState has an unknown version"));

	/* Key id: 1 to 9 decimal digits, no sign, no leading zero. */
	p = dots[0] + 1;
	if (dots[1] - p < 1 || dots[1] - p > 9 || *p == '0')
		PG_RETURN_DATUM(open_failure("state_malformed",
									 "requestState has an invalid key id"));
	for (; p < dots[1]; p++)
	{
		if (*p < '0' || *p > '9')
			PG_RETURN_DATUM(open_failure("state_malformed",
										 "requestState has an invalid key id"));
		key_id = key_id * 10 + (*p - '0');
	}

	payload_len = base64url_decode(dots[1] + 1, dots[2] - dots[1] - 1, &payload);
	if (payload_len <= 0)
		PG_RETURN_DATUM(open_failure("state_malformed",
									 "requestState payload is not base64url"));
	if (base64url_decode(dots[2] + 1, (s + len) - dots[2] - 1, &sent_mac) != PG_SHA256_DIGEST_LENGTH)
		PG_RETURN_DATUM(open_failure("state_malformed",
									 "requestState signature is not a base64url HMAC-SHA256"));

	if (!fetch_state_key(key_id, &found_id, secret))
		PG_RETURN_DATUM(open_failure("state_unknown_key",
									 "requestState was sealed with a key this server does not have"));
	hmac_sha256(secret, sizeof(secret), s, dots[2] - s, expected);
	explicit_bzero(secret, sizeof(secret));
	if (!mac_equal(expected, sent_mac, PG_SHA256_DIGEST_LENGTH))
		PG_RETURN_DATUM(open_failure("state_bad_signature",
									 "requestState signature does not match; it was altered or forged"));

	/*
	 * Authentic from here on: the payload is JSON this extension wrote.  The
	 * result is the payload with "ok" and "kid" added in front; jsonb drops
	 * nothing and the payload's own keys never collide with those two.
	 */
	payload[payload_len] = '\0';
	if (payload_len < 2 || payload[0] != '{')
		elog(ERROR, "authentic requestState payload is not a JSON object");
	json = psprintf("{\"ok\": true, \"kid\": %d, %s", found_id, (char *) payload + 1);
	PG_RETURN_DATUM(DirectFunctionCall1(jsonb_in, CStringGetDatum(json)));
}
