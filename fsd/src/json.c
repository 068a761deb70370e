#include "json.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void
fsd_buf_addn(struct fsd_buf *b, const char *s, size_t n)
{
	if (b->oom)
		return;
	if (b->len + n + 1 > b->cap)
	{
		size_t cap = b->cap ? b->cap : 256;
		char *data;

		while (cap < b->len + n + 1)
			cap *= 2;
		data = realloc(b->data, cap);
		if (!data)
		{
			b->oom = true;
			return;
		}
		b->data = data;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, n);
	b->len += n;
	b->data[b->len] = '\0';
}

void
fsd_buf_add(struct fsd_buf *b, const char *s)
{
	fsd_buf_addn(b, s, strlen(s));
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none. */
static size_t
utf8_len(const unsigned char *s, size_t n)
{
	size_t len;
	uint32_t cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		len = 2, cp = s[0] & 0x1Fu;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		len = 3, cp = s[0] & 0x0Fu;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		len = 4, cp = s[0] & 0x07u;
	else
		return 0;
	if (len > n)
		return 0;
	for (size_t i = 1; i < len; i++)
	{
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3Fu);
	}
	if ((len == 3 && cp < 0x800) || (len == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		(cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return len;
}

bool
fsd_text_ok(const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *) s;

	for (size_t i = 0; i < n;)
	{
		size_t len = p[i] ? utf8_len(p + i, n - i) : 0;

		if (len == 0)
			return false;
		i += len;
	}
	return true;
}

void
fsd_buf_json_strn(struct fsd_buf *b, const char *s, size_t n)
{
	const unsigned char *p = (const unsigned char *) s;
	size_t i = 0;

	fsd_buf_add(b, "\"");
	while (i < n)
	{
		char esc[8];
		size_t len = utf8_len(p + i, n - i);

		if (len == 0)
		{
			fsd_buf_add(b, "\\ufffd");
			i++;
		}
		else if (p[i] == '"' || p[i] == '\\')
		{
			esc[0] = '\\', esc[1] = (char) p[i];
			fsd_buf_addn(b, esc, 2);
			i++;
		}
		else if (p[i] < 0x20)
		{
			snprintf(esc, sizeof esc, "\\u%04x", p[i]);
			fsd_buf_add(b, esc);
			i++;
		}
		else
		{
			fsd_buf_addn(b, s + i, len);
			i += len;
		}
	}
	fsd_buf_add(b, "\"");
}

void
fsd_buf_json_str(struct fsd_buf *b, const char *s)
{
	fsd_buf_json_strn(b, s, strlen(s));
}

void
fsd_buf_int(struct fsd_buf *b, int64_t v)
{
	char num[32];

	snprintf(num, sizeof num, "%" PRId64, v);
	fsd_buf_add(b, num);
}

void
fsd_buf_free(struct fsd_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof *b);
}
