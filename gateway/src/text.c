/*
 * text.c
 *		Bounded string copies and UTF-8 validation.
 */
#include "text.h"

#include <string.h>

void
str_copy(char *dst, size_t n, const char *src)
{
	size_t		len = src ? strlen(src) : 0;

	if (n == 0)
		return;
	if (len >= n)
	{
		len = n - 1;
		while (len > 0 && ((unsigned char) src[len] & 0xC0) == 0x80)
			len--;
	}
	if (len)
		memcpy(dst, src, len);
	dst[len] = '\0';
}

size_t
utf8_sequence_length(const unsigned char *p, size_t avail)
{
	unsigned char c = p[0];
	size_t		n;
	unsigned char lo = 0x80,
				hi = 0xBF;

	if (c >= 0xC2 && c <= 0xDF)
		n = 1;
	else if (c >= 0xE0 && c <= 0xEF)
	{
		n = 2;
		if (c == 0xE0)
			lo = 0xA0;			/* overlong */
		if (c == 0xED)
			hi = 0x9F;			/* UTF-16 surrogates */
	}
	else if (c >= 0xF0 && c <= 0xF4)
	{
		n = 3;
		if (c == 0xF0)
			lo = 0x90;			/* overlong */
		if (c == 0xF4)
			hi = 0x8F;			/* above U+10FFFF */
	}
	else
		return 0;
	if (avail < n + 1)
		return 0;
	if (p[1] < lo || p[1] > hi)
		return 0;
	for (size_t i = 2; i <= n; i++)
		if (p[i] < 0x80 || p[i] > 0xBF)
			return 0;
	return n + 1;
}

bool
utf8_valid(const unsigned char *p, size_t n)
{
	size_t		i = 0;

	while (i < n)
	{
		size_t		k;

		if (p[i] == 0)
			return false;
		if (p[i] < 0x80)
		{
			i++;
			continue;
		}
		k = utf8_sequence_length(p + i, n - i);
		if (k == 0)
			return false;
		i += k;
	}
	return true;
}
