/*
 * uri_cases.c
 *		The examples of docs/uri-normalization.md and the expectations of
 *		extension/test/sql/uri.sql, checked against the reference alone, so
 *		the oracle is known to follow the document before it judges uri.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "uri_reference.h"

extern int	uri_selftest(void);

/* Canonical form expected, or NULL for malformed. */
static const struct
{
	const char *in;
	const char *want;
}			norm_cases[] = {
	/* the document's tables */
	{"file:///work/notes/", "file:///work/notes"},
	{"FILE://LOCALHOST/work/notes", "file:///work/notes"},
	{"file:/work/notes/.", "file:///work/notes"},
	{"file://localhost/", "file:///"},
	{"file:///work/notes/a/../b", "file:///work/notes/b"},
	{"file:///work/notes/%2e%2e/x", "file:///work/x"},
	{"file:///work/%2D%41%7e", "file:///work/-A~"},
	{"file:///work/%25", "file:///work/%25"},
	{"file:///work/%252e%252e", "file:///work/%252e%252e"},
	{"file:///work/\xC3\xA9", "file:///work/%C3%A9"},
	{"file:///work/%c3%a9", "file:///work/%C3%A9"},
	{"file:///work/a%20b", "file:///work/a%20b"},
	{"http://example.com/x", NULL},
	{"/work/notes", NULL},
	{"file:work/notes", NULL},
	{"file://localhost", NULL},
	{"file://example.com/x", NULL},
	{"file://alice@localhost/x", NULL},
	{"file://localhost:22/x", NULL},
	{"file:///x?y=1", NULL},
	{"file:///x#top", NULL},
	{" file:///x", NULL},
	{"file:///a%2Fb", NULL},
	{"file:///a%5Cb", NULL},
	{"file:///a\\b", NULL},
	{"file:///a\x01" "b", NULL},
	{"file:///a%00", NULL},
	{"file:///a%1F", NULL},
	{"file:///a%7F", NULL},
	{"file:///a b", NULL},
	{"file:///a%G1", NULL},
	{"file:///a%", NULL},
	{"file:///%C0%AF", NULL},
	{"file:///%FF", NULL},
	{"file:///work//notes", NULL},
	{"file:///work/../..", NULL},
	{"", NULL},
	{"file:", NULL},
	{"file://", NULL},
	{"file://[::1]/p", NULL},
	{"file://local%68ost/p", NULL},
	{"file:///%C0%AE", NULL},
	{"file:///%ED%A0%80", NULL},
	{"file:///%F4%90%80%80", NULL},
	{"file:///work/e%CC%81", "file:///work/e%CC%81"},
	{"file:///work/notes/.", "file:///work/notes"},
	{"file:///", "file:///"},
	{"file:///work/a%3Fb", "file:///work/a%3Fb"},
	{"File:/x", "file:///x"},
	/* uri.sql, canonical forms (expected/uri.out) */
	{"file:///work/notes", "file:///work/notes"},
	{"file:///work/notes/.", "file:///work/notes"},
	{"file:/work/notes", "file:///work/notes"},
	{"file:/", "file:///"},
	{"file:///work/./.", "file:///work"},
	{"file:///work/notes/.%2E/x", "file:///work/x"},
	{"file:///a/b/c/../../d/", "file:///a/d"},
	{"file:///work/%2D%41%7e%5f", "file:///work/-A~_"},
	{"file:///work/a%2db", "file:///work/a-b"},
	{"file:///work/%F0%9F%98%80", "file:///work/%F0%9F%98%80"},
	{"file:///work/a%3Fb%23c", "file:///work/a%3Fb%23c"},
	{"file:///work/!$&'()*+,;=:@-._~", "file:///work/!$&'()*+,;=:@-._~"},
	{"file:///work/%21%24%26%27%28%29%2A%2B%2C%3B%3D%3A%40", "file:///work/!$&'()*+,;=:@"},
	{"file:///work/%5B%5D%7B%7D%22%3C%3E%5E%60%7C", "file:///work/%5B%5D%7B%7D%22%3C%3E%5E%60%7C"},
	{"file:///work/...", "file:///work/..."},
	{"file:///work/a/././b/", "file:///work/a/b"},
	{"file:///..a/.b/a..", "file:///..a/.b/a.."},
	{"file:///work/\"\xC3\xA9\"/%", NULL},
};

/* uri.sql's containment table ("{a*n}" is a run of n 'a', "{e*n}" of n U+00E9). */
static const struct
{
	const char *ws;
	const char *target;
	bool		inside;
}			contain_cases[] = {
	{"file:///work/notes", "file:///work/notes", true},
	{"file:///work/notes", "file:///work/notes/", true},
	{"file:///work/notes/", "file:///work/notes", true},
	{"file:///work/notes/", "file:///work/notes/a.md", true},
	{"file:///work/notes", "file:///work/notes/a.md", true},
	{"file:///work/notes", "file:///work/notes/sub/dir/b.md", true},
	{"file:///work/notes", "file:///work/notes/sub/", true},
	{"file:///work/notes", "file:///work/notes-evil/x", false},
	{"file:///work/notes", "file:///work/notes-evil", false},
	{"file:///work/notes", "file:///work/notesx", false},
	{"file:///work/notes", "file:///work", false},
	{"file:///work/notes", "file:///work/other/a", false},
	{"file:///work/notes", "file:///", false},
	{"file:///work/notes", "file:///work/notes/%2e%2e/x", false},
	{"file:///work/notes", "file:///work/notes/%2E%2E/x", false},
	{"file:///work/notes", "file:///work/notes/.%2e/x", false},
	{"file:///work/notes", "file:///work/notes/%2E./x", false},
	{"file:///work/notes", "file:///work/notes/%2e%2E/notes/x", true},
	{"file:///work/notes", "file:///work/notes/../x", false},
	{"file:///work/notes", "file:///work/notes/../notes/a", true},
	{"file:///work/notes", "file:///work/notes/a/../b", true},
	{"file:///work/notes", "file:///work/notes/a/../..", false},
	{"file:///work/notes", "file:///work/notes/../notes-evil/x", false},
	{"file:///work/notes", "file:///work/notes/./a", true},
	{"file:///work/notes", "file:///work/./notes/a", true},
	{"file:///work/notes", "file:///work/notes/.", true},
	{"file:///work/notes", "file:///work/notes/%2e", true},
	{"file:///work/notes", "file:///work/notes/a/.", true},
	{"file:///work/notes", "file:///work/notes/...", true},
	{"file:///work/notes", "file:///work/notes/..a", true},
	{"file:///work/notes", "file:///work/notes%2Dx/a", false},
	{"file:///work/notes%2Devil", "file:///work/notes-evil/x", true},
	{"file:///work/notes", "file:///work/%6Eotes/a", true},
	{"file:///work/notes", "file:///work/NOTES/a", false},
	{"file:///work/notes", "file://localhost/work/notes/a", true},
	{"file:///work/notes", "file://LOCALHOST/work/notes/a", true},
	{"file://localhost/work/notes", "file:///work/notes/a", true},
	{"file:///work/notes", "file:/work/notes/a", true},
	{"file:/work/notes", "file:///work/notes/a", true},
	{"file:///work/notes", "FILE:///work/notes/a", true},
	{"file:///work/notes", "File:/work/notes/a", true},
	{"file:///work/notes", "file:///work/notes/a%2Fb", false},
	{"file:///work/notes", "file:///work/notes/a%2fb", false},
	{"file:///work/notes", "file:///work/notes/%2e%2e%2Fx", false},
	{"file:///work/notes", "file:///work/notes/a%5Cb", false},
	{"file:///work/notes", "file:///work/notes/..%5C..%5Cx", false},
	{"file:///work/notes", "file:///work/notes/a\\b", false},
	{"file:///work/notes", "file:///work/notes/a%00b", false},
	{"file:///work/notes", "file:///work/notes/a\x01" "b", false},
	{"file:///work/notes", "file:///work/notes/a%1Fb", false},
	{"file:///work/notes", "file:///work/notes/a%7Fb", false},
	{"file:///work/notes", "file:///work/notes/a\x7f" "b", false},
	{"file:///work/notes", "file:///work/notes/a%0Ab", false},
	{"file:///work/notes", "file:///work/notes/%FF", false},
	{"file:///work/notes", "file:///work/notes/%C3", false},
	{"file:///work/notes", "file:///work/notes/%C3/x", false},
	{"file:///work/notes", "file:///work/notes/%C0%AF", false},
	{"file:///work/notes", "file:///work/notes/%E0%80%AF", false},
	{"file:///work/notes", "file:///work/notes/%C0%AE%C0%AE/x", false},
	{"file:///work/notes", "file:///work/notes/%ED%A0%80", false},
	{"file:///work/notes", "file:///work/notes/%F4%90%80%80", false},
	{"file:///work/notes", "file:///work/notes/%C3%A9", true},
	{"file:///work/notes", "file:///work/notes/\xC3\xA9", true},
	{"file:///work/n%C3%A9", "file:///work/n\xC3\xA9/x", true},
	{"file:///work/n%C3%A9", "file:///work/ne%CC%81/x", false},
	{"file:///work/notes", "file://example.com/work/notes/a", false},
	{"file:///work/notes", "file://alice@localhost/work/notes/a", false},
	{"file:///work/notes", "file://localhost:22/work/notes/a", false},
	{"file:///work/notes", "file://[::1]/work/notes/a", false},
	{"file:///work/notes", "file:///work/notes/a?x=1", false},
	{"file:///work/notes", "file:///work/notes/a#top", false},
	{"file:///work/notes", "file:///work/notes/a%3Fb%23c", true},
	{"file:///work/notes", "/work/notes/a", false},
	{"file:///work/notes", "notes/a", false},
	{"file:///work/notes", "file:work/notes/a", false},
	{"file:///work/notes", "file:", false},
	{"file:///work/notes", "file://", false},
	{"file:///work/notes", "file://localhost", false},
	{"file:///work/notes", "file:///work/notes/../../../x", false},
	{"file:///", "file:///../x", false},
	{"file:///work/notes", "file:///work//notes/a", false},
	{"file:///work/notes", "file:///work/notes//", false},
	{"file:///work/notes", "file:////work/notes/a", false},
	{"file:///work/notes", " file:///work/notes/a", false},
	{"file:///work/notes", "file:///work/notes/a ", false},
	{"file:///work/notes", "file:///work/notes/a\t", false},
	{"file:///work/notes ", "file:///work/notes/a", false},
	{"file:///work/notes", "file:///work/notes/a b", false},
	{"file:///work/notes", "file:///work/notes/a\"b", false},
	{"file:///work/notes", "file:///work/notes/a|b", false},
	{"file:///work/notes", "file:///work/notes/%252e%252e", true},
	{"file:///work/notes", "file:///work/notes/%252e%252e/x", true},
	{"file:///work/notes", "file:///work/notes/%25", true},
	{"file:///work/notes", "file:///work/notes/a%zz", false},
	{"file:///work/notes", "file:///work/notes/a%2", false},
	{"file:///work/notes", "file:///work/notes/a%", false},
	{"file:///", "file:///anything/x", true},
	{"file:///", "file:///", true},
	{"file://localhost/", "file:/etc", true},
	{"file:///", "http:///x", false},
	{"http://example.com/work/notes", "file:///work/notes", false},
	{"file:///work/notes/../notes-evil", "file:///work/notes-evil/x", true},
	{"file:///work/notes%2e", "file:///work/notes./x", true},
	{"file:///work/notes", "", false},
	{"file:///work/notes", "file:///work/notes/{a*4000}", true},
	{"file:///work/notes", "file:///work/notes/{a*5000}", false},
	{"file:///work/{a*5000}", "file:///work/notes", false},
	{"file:///work/notes", "file:///work/notes/{e*1500}", false},
	{"file:///work/notes", "file:///work/notes/~user;v=1/a:b@c", true},
};

/* Expands a trailing "{a*n}" (n x 'a') or "{e*n}" (n x U+00E9) into buf. */
static size_t
expand(const char *s, char *buf, size_t cap)
{
	const char *m = strchr(s, '{');
	size_t		n = m ? (size_t) (m - s) : strlen(s);
	long		count;
	long		i;

	memcpy(buf, s, n);
	if (m == NULL)
		return n;
	count = strtol(m + 3, NULL, 10);
	for (i = 0; i < count && n + 2 < cap; i++)
	{
		if (m[1] == 'a')
			buf[n++] = 'a';
		else
		{
			buf[n++] = (char) 0xC3;
			buf[n++] = (char) 0xA9;
		}
	}
	return n;
}

/* Returns the number of failures, after printing each. */
int
uri_selftest(void)
{
	static char buf1[16384];
	static char buf2[16384];
	static struct ref_uri a;
	static struct ref_uri b;
	int			failures = 0;
	size_t		i;

	for (i = 0; i < sizeof(norm_cases) / sizeof(norm_cases[0]); i++)
	{
		const char *want = norm_cases[i].want;

		ref_normalize((const unsigned char *) norm_cases[i].in, strlen(norm_cases[i].in), &a);
		if (a.ok != (want != NULL) || (want && strcmp(a.canon, want) != 0))
		{
			fprintf(stderr, "reference self-test: \"%s\" gives %s, want %s\n",
					norm_cases[i].in, a.ok ? a.canon : a.why, want ? want : "malformed");
			failures++;
		}
	}
	for (i = 0; i < sizeof(contain_cases) / sizeof(contain_cases[0]); i++)
	{
		size_t		n1 = expand(contain_cases[i].ws, buf1, sizeof(buf1));
		size_t		n2 = expand(contain_cases[i].target, buf2, sizeof(buf2));
		bool		got;

		ref_normalize((const unsigned char *) buf1, n1, &a);
		ref_normalize((const unsigned char *) buf2, n2, &b);
		got = ref_contains(&a, &b);
		if (got != contain_cases[i].inside)
		{
			fprintf(stderr, "reference self-test: contains(\"%.60s\", \"%.60s\") is %d, want %d (%s / %s)\n",
					contain_cases[i].ws, contain_cases[i].target, got, contain_cases[i].inside,
					a.ok ? "ok" : a.why, b.ok ? "ok" : b.why);
			failures++;
		}
	}
	return failures;
}
