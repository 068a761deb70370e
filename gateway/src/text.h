/*
 * text.h
 *		Bounded string copies and UTF-8 checks shared by the log, the header
 *		decoding and the JSON scanner.  Depends on nothing else in the gateway.
 */
#ifndef GW_TEXT_H
#define GW_TEXT_H

#include <stdbool.h>
#include <stddef.h>

/*
 * Copy src into dst[n], truncating; always NUL-terminated.  A cut never
 * splits a UTF-8 sequence (the partial character is dropped), so valid UTF-8
 * stays valid and the JSON log line it ends up in stays valid too.
 */
extern void str_copy(char *dst, size_t n, const char *src);

/*
 * Length of the valid multi-byte UTF-8 sequence at p (first byte >= 0x80,
 * avail bytes readable), or 0 when it is invalid: overlong forms, UTF-16
 * surrogates, code points above U+10FFFF and truncated sequences are all
 * invalid (RFC 3629).
 */
extern size_t utf8_sequence_length(const unsigned char *p, size_t avail);

/* p[0..n) is valid UTF-8 without a NUL byte */
extern bool utf8_valid(const unsigned char *p, size_t n);

#endif							/* GW_TEXT_H */
