/*
 * uri_reference.c
 *		The oracle: docs/uri-normalization.md, step by step, in plain passes.
 *		Clarity over speed; every rule names the step of the document it
 *		implements.  Do not "optimize" this file: it must stay easy to check
 *		against the document by reading.
 *
 *	Pass 1: whole-input checks, then split into scheme, authority and path.
 *	Pass 2: check the raw path bytes and percent-decode them once, into a
 *	        byte array with a flag per byte saying whether it was encoded.
 *	Pass 3: split the decoded bytes into segments at the raw slashes, check
 *	        each segment, and apply the "." / ".." / empty-segment rules.
 *	Pass 4: re-encode the surviving segments into the canonical form.
 */
#include "uri_reference.h"

#include <string.h>

/* ---------------------------------------------------------------- helpers */

static bool
fail(struct ref_uri *r, const char *why)
{
	r->ok = false;
	r->why = why;
	return false;
}

static bool
is_ascii_letter(unsigned char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static bool
is_digit(unsigned char c)
{
	return c >= '0' && c <= '9';
}

static int
hex_value(unsigned char c)		/* -1 when c is not a hex digit */
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

static unsigned char
to_lower(unsigned char c)
{
	return (c >= 'A' && c <= 'Z') ? (unsigned char) (c - 'A' + 'a') : c;
}

/* Case-insensitive equality of a[0..alen) with the lower-case word w. */
static bool
equals_word_ci(const unsigned char *a, size_t alen, const char *w)
{
	size_t		i;

	if (alen != strlen(w))
		return false;
	for (i = 0; i < alen; i++)
		if (to_lower(a[i]) != (unsigned char) w[i])
			return false;
	return true;
}

/* "Canonical form": the bytes written raw inside a segment. */
static bool
is_raw_in_canonical(unsigned char c)
{
	return is_ascii_letter(c) || is_digit(c) ||
		(c != '\0' && strchr("-._~" "!$&'()*+,;=" ":@", c) != NULL);
}

/* Step 1: a raw control byte. */
static bool
is_control(unsigned char c)
{
	return c <= 0x1F || c == 0x7F;
}

/* Step 1: whitespace at either end (ASCII whitespace; the control ones are controls anyway). */
static bool
is_whitespace(unsigned char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r';
}

/*
 * Step 6: is s[0..n) valid UTF-8?  Decodes each character to its code point
 * and checks the ranges, rather than matching byte patterns: overlong forms
 * are code points below the minimum for their length; surrogates are
 * U+D800..U+DFFF; nothing above U+10FFFF.
 */
static bool
valid_utf8(const unsigned char *s, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		unsigned char lead = s[i];
		size_t		len;
		unsigned long cp;
		unsigned long min;
		size_t		k;

		if (lead < 0x80)
		{
			i++;
			continue;
		}
		else if ((lead & 0xE0) == 0xC0)
		{
			len = 2;
			cp = lead & 0x1F;
			min = 0x80;
		}
		else if ((lead & 0xF0) == 0xE0)
		{
			len = 3;
			cp = lead & 0x0F;
			min = 0x800;
		}
		else if ((lead & 0xF8) == 0xF0)
		{
			len = 4;
			cp = lead & 0x07;
			min = 0x10000;
		}
		else
			return false;		/* a stray continuation byte, or 0xF8..0xFF */

		if (i + len > n)
			return false;		/* truncated */
		for (k = 1; k < len; k++)
		{
			if ((s[i + k] & 0xC0) != 0x80)
				return false;	/* not a continuation byte */
			cp = (cp << 6) | (s[i + k] & 0x3F);
		}
		if (cp < min)
			return false;		/* overlong */
		if (cp >= 0xD800 && cp <= 0xDFFF)
			return false;		/* surrogate */
		if (cp > 0x10FFFF)
			return false;		/* beyond Unicode */
		i += len;
	}
	return true;
}

/* ---------------------------------------------------------------- the passes */

bool
ref_normalize(const unsigned char *in, size_t len, struct ref_uri *r)
{
	size_t		i;
	size_t		rest;			/* index just after "file:" */
	size_t		path;			/* index of the path's first byte ('/') */

	/* the decoded path, one flag per byte */
	static unsigned char dec[REF_MAX_LEN];
	static bool dec_was_encoded[REF_MAX_LEN];
	size_t		ndec = 0;

	/* segments of the decoded path, before dot removal */
	static size_t seg_off[REF_MAX_LEN + 1];
	static size_t seg_len[REF_MAX_LEN + 1];
	size_t		nseg = 0;

	r->ok = false;
	r->why = "?";
	r->ncomp = 0;
	r->canon[0] = '\0';
	r->canon_len = 0;

	/* ----- Pass 1: step 1, whole input. */
	if (len == 0)
		return fail(r, "empty");
	if (len > REF_MAX_LEN)
		return fail(r, "longer than 4096 bytes");
	if (is_whitespace(in[0]) || is_whitespace(in[len - 1]))
		return fail(r, "leading or trailing whitespace");
	for (i = 0; i < len; i++)
	{
		if (is_control(in[i]))
			return fail(r, "raw control byte");
		if (in[i] == '?')
			return fail(r, "query");
		if (in[i] == '#')
			return fail(r, "fragment");
	}

	/* Step 2, scheme: "file:" in any case. */
	if (len < 5 || !equals_word_ci(in, 5, "file:"))
		return fail(r, "scheme is not file (or no scheme)");
	rest = 5;

	/* Step 3, authority: "//host/...", or "/..." directly, else refused. */
	if (len - rest >= 2 && in[rest] == '/' && in[rest + 1] == '/')
	{
		size_t		host = rest + 2;
		size_t		end = host;

		while (end < len && in[end] != '/')
			end++;
		if (end == len)
			return fail(r, "no path after the authority");
		/* compared literally: only "" and "localhost" (any case) */
		if (!(end == host || equals_word_ci(in + host, end - host, "localhost")))
			return fail(r, "host is not empty or localhost");
		path = end;
	}
	else if (len - rest >= 1 && in[rest] == '/')
		path = rest;
	else
		return fail(r, "no path, or a rootless path");

	/* ----- Pass 2: steps 4 and 5, raw bytes and decoding, exactly once. */
	for (i = path; i < len; i++)
	{
		unsigned char c = in[i];

		if (c == '%')
		{
			int			hi = (i + 1 < len) ? hex_value(in[i + 1]) : -1;
			int			lo = (i + 2 < len) ? hex_value(in[i + 2]) : -1;

			if (hi < 0 || lo < 0)
				return fail(r, "% not followed by two hex digits");
			dec[ndec] = (unsigned char) (hi * 16 + lo);
			dec_was_encoded[ndec] = true;
			ndec++;
			i += 2;
		}
		else if (c == '/' || c >= 0x80 || is_raw_in_canonical(c))
		{
			dec[ndec] = c;
			dec_was_encoded[ndec] = false;
			ndec++;
		}
		else
			return fail(r, "raw character that must be encoded");
	}
	for (i = 0; i < ndec; i++)
	{
		if (!dec_was_encoded[i])
			continue;
		if (dec[i] == '/')
			return fail(r, "encoded slash");
		if (dec[i] == '\\')
			return fail(r, "encoded backslash");
		if (is_control(dec[i]))
			return fail(r, "encoded control byte");
	}

	/* ----- Pass 3: steps 6 and 7, segments. */
	/* dec[0] is the raw '/' that begins the path; split what follows. */
	seg_off[0] = 1;
	nseg = 1;
	for (i = 1; i < ndec; i++)
	{
		if (dec[i] == '/' && !dec_was_encoded[i])
		{
			seg_len[nseg - 1] = i - seg_off[nseg - 1];
			seg_off[nseg] = i + 1;
			nseg++;
		}
	}
	seg_len[nseg - 1] = ndec - seg_off[nseg - 1];

	/* "/" alone is the root: one empty segment, which is its trailing slash. */
	/* A single trailing '/' is dropped; every other empty segment is refused. */
	if (seg_len[nseg - 1] == 0)
		nseg--;
	for (i = 0; i < nseg; i++)
		if (seg_len[i] == 0)
			return fail(r, "empty segment");

	for (i = 0; i < nseg; i++)
		if (!valid_utf8(dec + seg_off[i], seg_len[i]))
			return fail(r, "invalid UTF-8");

	/* Dot segments, left to right, on a stack of components. */
	r->ncomp = 0;
	for (i = 0; i < nseg; i++)
	{
		const unsigned char *s = dec + seg_off[i];
		size_t		n = seg_len[i];

		if (n == 1 && s[0] == '.')
			continue;
		if (n == 2 && s[0] == '.' && s[1] == '.')
		{
			if (r->ncomp == 0)
				return fail(r, "\"..\" above the root");
			r->ncomp--;
			continue;
		}
		r->comp_off[r->ncomp] = seg_off[i];
		r->comp_len[r->ncomp] = n;
		r->ncomp++;
	}
	memcpy(r->bytes, dec, ndec);

	/* ----- Pass 4: re-encode. */
	{
		static const char hex[] = "0123456789ABCDEF";
		char	   *o = r->canon;
		size_t		k;

		memcpy(o, "file://", 7);
		o += 7;
		if (r->ncomp == 0)
			*o++ = '/';
		for (k = 0; k < r->ncomp; k++)
		{
			*o++ = '/';
			for (i = 0; i < r->comp_len[k]; i++)
			{
				unsigned char c = r->bytes[r->comp_off[k] + i];

				if (is_raw_in_canonical(c))
					*o++ = (char) c;
				else
				{
					*o++ = '%';
					*o++ = hex[c >> 4];
					*o++ = hex[c & 0xF];
				}
			}
		}
		*o = '\0';
		r->canon_len = (size_t) (o - r->canon);
	}

	/* Step 8: the canonical form must itself be a valid input. */
	if (r->canon_len > REF_MAX_LEN)
		return fail(r, "canonical form longer than 4096 bytes");

	r->ok = true;
	r->why = NULL;
	return true;
}

bool
ref_contains(const struct ref_uri *ws, const struct ref_uri *target)
{
	size_t		k;

	if (!ws->ok || !target->ok)
		return false;
	if (target->ncomp < ws->ncomp)
		return false;
	for (k = 0; k < ws->ncomp; k++)
	{
		if (ws->comp_len[k] != target->comp_len[k])
			return false;
		if (memcmp(ws->bytes + ws->comp_off[k], target->bytes + target->comp_off[k],
				   ws->comp_len[k]) != 0)
			return false;
	}
	return true;
}
