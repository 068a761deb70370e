/*
 * uri.h
 *		Normalization and containment of file: URIs.
 *
 * The policy is in docs/uri-normalization.md.
 */
#ifndef MCPN_URI_H
#define MCPN_URI_H

#include <stdbool.h>
#include <stddef.h>

/* Inputs longer than this are malformed, so the work per URI is bounded. */
#define MCPN_URI_MAX_LEN	4096

/*
 * Normalizes a file: URI.  On success returns true and sets *out (palloc'd,
 * NUL-terminated canonical form).  On failure returns false and sets *problem
 * to a static detail sentence ("The path contains an encoded slash (%2F).").
 * Never ereports for malformed input.
 */
extern bool mcpn_normalize_uri(const char *in, size_t len, char **out,
							   const char **problem);

/*
 * True when normalized target equals workspace or lies beneath it by whole
 * components; both arguments must already be canonical.
 */
extern bool mcpn_uri_is_within(const char *workspace, const char *target);

#endif							/* MCPN_URI_H */
