/*
 * test_headers.c
 *		gateway/src/headers.c alone: header values trimmed and checked, the
 *		=?base64?...?= sentinel decoded canonically, tokens, Mcp-Param-*.
 */
#include <stdlib.h>

#include "headers.h"
#include "unit.h"

#define M "headers"

/* header_value's status; *out freed, its text copied to buf */
static enum hdr_status
value(const char *raw, bool b64, char *buf, size_t n)
{
	char	   *out = NULL;
	enum hdr_status hs = header_value(raw, b64, &out);

	buf[0] = '\0';
	if (out)
		snprintf(buf, n, "%s", out);
	free(out);
	return hs;
}

static void
value_trims_optional_whitespace(void)
{
	char		buf[64];

	CHECK(value(" \t2026-07-28 \t", false, buf, sizeof(buf)) == HDR_OK);
	CHECK_STR(buf, "2026-07-28");
	CHECK(value("a b", false, buf, sizeof(buf)) == HDR_OK);
	CHECK_STR(buf, "a b");
}

static void
value_refuses_control_and_non_ascii(void)
{
	char		buf[64];

	CHECK(value("a\x01" "b", false, buf, sizeof(buf)) == HDR_INVALID);
	CHECK(value("caf\xc3\xa9", false, buf, sizeof(buf)) == HDR_INVALID);
	CHECK(value("a\x7f", false, buf, sizeof(buf)) == HDR_INVALID);
}

static void
base64_sentinel_decoded(void)
{
	char		buf[64];

	CHECK(value("=?base64?SGVsbG8=?=", true, buf, sizeof(buf)) == HDR_OK);
	CHECK_STR(buf, "Hello");
	CHECK(value("=?base64?Y2Fmw6k=?=", true, buf, sizeof(buf)) == HDR_OK);
	CHECK_STR(buf, "caf\xc3\xa9");
}

static void
base64_sentinel_kept_as_text_when_not_allowed(void)
{
	char		buf[64];

	CHECK(value("=?base64?SGVsbG8=?=", false, buf, sizeof(buf)) == HDR_OK);
	CHECK_STR(buf, "=?base64?SGVsbG8=?=");
}

static void
base64_must_be_padded_and_canonical(void)
{
	char		buf[64];

	CHECK(value("=?base64?SGVsbG8?=", true, buf, sizeof(buf)) == HDR_BAD_ENCODING);	/* unpadded */
	CHECK(value("=?base64?SGVsbG9=?=", true, buf, sizeof(buf)) == HDR_BAD_ENCODING);	/* stray bits */
	CHECK(value("=?base64?SGVs*G8=?=", true, buf, sizeof(buf)) == HDR_BAD_ENCODING);
	CHECK(value("=?base64?SGVsbG8-?=", true, buf, sizeof(buf)) == HDR_BAD_ENCODING);	/* base64url */
}

static void
base64_must_decode_to_utf8_without_nul(void)
{
	char		buf[64];
	char	   *out = NULL;
	size_t		n = 0;

	CHECK(value("=?base64?/w==?=", true, buf, sizeof(buf)) == HDR_BAD_ENCODING);	/* 0xff */
	CHECK(value("=?base64?YQBi?=", true, buf, sizeof(buf)) == HDR_BAD_ENCODING);	/* a NUL b */
	CHECK(header_value_n("=?base64?YQBi?=", true, &out, &n) == HDR_BAD_ENCODING);
	CHECK(out == NULL);
	/* the decoded length is the payload's */
	CHECK(header_value_n("=?base64?YWI=?=", true, &out, &n) == HDR_OK);
	CHECK(n == 2 && memcmp(out, "ab", 2) == 0);
	free(out);
}

static void
token_is_rfc9110_tchar(void)
{
	CHECK(header_is_token("Region"));
	CHECK(header_is_token("x-a.b_c~1!"));
	CHECK(!header_is_token(""));
	CHECK(!header_is_token("a b"));
	CHECK(!header_is_token("a:b"));
	CHECK(!header_is_token("a\"b"));
}

static void
param_find_is_case_insensitive_and_counts(void)
{
	struct mcp_headers h;
	int			count = 0;

	memset(&h, 0, sizeof(h));
	header_param_take(&h, "Mcp-Param-Region", "eu");
	header_param_take(&h, "mcp-param-region", "us");
	header_param_take(&h, "Mcp-Param-N", "3");
	CHECK_STR(header_param_find(&h, "REGION", &count), "eu");
	CHECK(count == 2);
	CHECK_STR(header_param_find(&h, "n", &count), "3");
	CHECK(count == 1);
	CHECK(header_param_find(&h, "Other", &count) == NULL && count == 0);
}

static void
param_take_marks_overflow(void)
{
	struct mcp_headers h;

	memset(&h, 0, sizeof(h));
	for (int i = 0; i < GW_MAX_PARAM_HEADERS; i++)
		header_param_take(&h, "Mcp-Param-X", "1");
	CHECK(!h.params_overflow && h.n_params == GW_MAX_PARAM_HEADERS);
	header_param_take(&h, "Mcp-Param-Y", "1");
	CHECK(h.params_overflow && h.n_params == GW_MAX_PARAM_HEADERS);
}

int
main(void)
{
	RUN(M, value_trims_optional_whitespace);
	RUN(M, value_refuses_control_and_non_ascii);
	RUN(M, base64_sentinel_decoded);
	RUN(M, base64_sentinel_kept_as_text_when_not_allowed);
	RUN(M, base64_must_be_padded_and_canonical);
	RUN(M, base64_must_decode_to_utf8_without_nul);
	RUN(M, token_is_rfc9110_tchar);
	RUN(M, param_find_is_case_insensitive_and_counts);
	RUN(M, param_take_marks_overflow);
	return unit_status();
}
