/*
 * headers.c
 *		Decoding of MCP header values (trimming, character check, base64).
 */
#include "headers.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "text.h"

static int
b64val(unsigned char c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

/*
 * standard base64 (RFC 4648 section 4), canonical only: padded to a multiple
 * of four, and no stray bits in the last character.  The 2026-07-28
 * transport (SEP-2243) makes a server reject a =?base64?...?= value whose
 * padding or characters are invalid; "SGVsbG8" for "Hello" is refused.
 */
static unsigned char *
b64_decode(const char *in, size_t n, size_t *outlen)
{
	unsigned char *out;
	size_t		o = 0;
	unsigned	acc = 0;
	int			bits = 0;
	size_t		pad = 0;

	if (n % 4 != 0)
		return NULL;
	while (n > 0 && in[n - 1] == '=' && pad < 2)
		n--, pad++;
	out = malloc(n * 3 / 4 + 1);
	if (out == NULL)
		return NULL;
	for (size_t i = 0; i < n; i++)
	{
		int			v = b64val((unsigned char) in[i]);

		if (v < 0)
		{
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned) v;
		bits += 6;
		if (bits >= 8)
		{
			bits -= 8;
			out[o++] = (unsigned char) (acc >> bits);
			acc &= (1u << bits) - 1;
		}
	}
	if (acc != 0)				/* non-canonical trailing bits */
	{
		free(out);
		return NULL;
	}
	out[o] = '\0';
	*outlen = o;
	return out;
}

/* =?base64?...?= of n bytes at start: the decoded UTF-8 text into *out, *outlen */
static enum hdr_status
decode_sentinel(const char *start, size_t n, char **out, size_t *outlen)
{
	unsigned char *dec = b64_decode(start + 9, n - 11, outlen);

	if (dec == NULL)
		return HDR_BAD_ENCODING;
	if (!utf8_valid(dec, *outlen))
	{
		free(dec);
		return HDR_BAD_ENCODING;
	}
	*out = (char *) dec;
	return HDR_OK;
}

enum hdr_status
header_value_n(const char *raw, bool allow_base64, char **out, size_t *outlen)
{
	const char *start = raw;
	const char *end = raw + strlen(raw);
	size_t		n;

	*out = NULL;
	*outlen = 0;
	while (start < end && (*start == ' ' || *start == '\t'))
		start++;
	while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	for (const char *p = start; p < end; p++)
		if (!((*p >= 0x20 && *p <= 0x7e) || *p == '\t'))
			return HDR_INVALID;
	n = (size_t) (end - start);
	if (allow_base64 && n >= 11 && strncmp(start, "=?base64?", 9) == 0 && strncmp(end - 2, "?=", 2) == 0)
		return decode_sentinel(start, n, out, outlen);
	*out = strndup(start, n);
	*outlen = n;
	return *out ? HDR_OK : HDR_INVALID;
}

enum hdr_status
header_value(const char *raw, bool allow_base64, char **out)
{
	size_t		n;
	enum hdr_status hs = header_value_n(raw, allow_base64, out, &n);

	/* a decoded NUL would cut the C string short of what was sent */
	if (hs == HDR_OK && strlen(*out) != n)
	{
		free(*out);
		*out = NULL;
		return HDR_BAD_ENCODING;
	}
	return hs;
}

bool
header_is_token(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9') ||
			  strchr("!#$%&'*+-.^_`|~", *s) != NULL))
			return false;
	return true;
}

const char *
header_param_find(const struct mcp_headers *h, const char *name, int *count)
{
	const char *value = NULL;

	*count = 0;
	for (int i = 0; i < h->n_params; i++)
		if (strcasecmp(h->params[i].name, name) == 0 && (*count)++ == 0)
			value = h->params[i].value;
	return value;
}

void
header_param_take(struct mcp_headers *h, const char *key, const char *value)
{
	if (h->n_params >= GW_MAX_PARAM_HEADERS)
	{
		h->params_overflow = true;
		return;
	}
	h->params[h->n_params].name = key + strlen(GW_PARAM_HEADER_PREFIX);
	h->params[h->n_params++].value = value ? value : "";
}
