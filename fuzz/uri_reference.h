/*
 * uri_reference.h
 *		An independent, slow, obviously-correct implementation of the policy in
 *		docs/uri-normalization.md, used as an oracle by the fuzzer.  Written from
 *		the document, not from extension/src/uri.c.
 */
#ifndef URI_REFERENCE_H
#define URI_REFERENCE_H

#include <stdbool.h>
#include <stddef.h>

#define REF_MAX_LEN 4096

struct ref_uri
{
	bool		ok;				/* well formed? */
	const char *why;			/* when not: a short reason (diagnostics only) */

	/* The decoded path: components after dot-segment removal. */
	size_t		ncomp;
	size_t		comp_off[REF_MAX_LEN];	/* offset of each component in bytes[] */
	size_t		comp_len[REF_MAX_LEN];
	unsigned char bytes[REF_MAX_LEN];	/* decoded bytes of the path */

	/* The canonical form, NUL-terminated (may exceed the limit before refusal). */
	char		canon[3 * REF_MAX_LEN + 16];
	size_t		canon_len;
};

/* Normalizes in[0..len); fills *r and returns r->ok. */
extern bool ref_normalize(const unsigned char *in, size_t len, struct ref_uri *r);

/*
 * Containment by whole components: target's component list begins with the
 * workspace's.  False when either is malformed.
 */
extern bool ref_contains(const struct ref_uri *ws, const struct ref_uri *target);

#endif
