/*
 * A growable byte buffer and the JSON the daemon sends: strings escaped
 * (invalid UTF-8 becomes U+FFFD, so a line or a request stays valid JSON)
 * and 64-bit integers.
 */
#ifndef FSD_JSON_H
#define FSD_JSON_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct fsd_buf
{
	char *data; /* NUL-terminated while not oom */
	size_t len, cap;
	bool oom; /* an allocation failed: the content is incomplete */
};

void fsd_buf_addn(struct fsd_buf *b, const char *s, size_t n);
void fsd_buf_add(struct fsd_buf *b, const char *s);
void fsd_buf_json_str(struct fsd_buf *b, const char *s);
void fsd_buf_json_strn(struct fsd_buf *b, const char *s, size_t n);
void fsd_buf_int(struct fsd_buf *b, int64_t v);
void fsd_buf_free(struct fsd_buf *b);

/* True when s[0..n) is valid UTF-8 without NUL bytes: what a PostgreSQL
 * text value can hold. */
bool fsd_text_ok(const char *s, size_t n);

#endif
