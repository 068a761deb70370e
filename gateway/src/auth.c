/*
 * auth.c
 *		Bearer token extraction.
 */
#include "auth.h"

#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config.h"

/* token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"=" */
static bool
token68(const char *p, size_t len)
{
	size_t		i = 0;

	while (i < len && ((p[i] >= 'a' && p[i] <= 'z') || (p[i] >= 'A' && p[i] <= 'Z') ||
					   (p[i] >= '0' && p[i] <= '9') || strchr("-._~+/", p[i]) != NULL))
		i++;
	if (i == 0)
		return false;
	while (i < len && p[i] == '=')
		i++;
	return i == len;
}

enum auth_result
auth_bearer_token(const char *header, int count, char **token)
{
	const char *p;
	const char *end;

	*token = NULL;
	if (count == 0 || header == NULL)
		return AUTH_MISSING;
	if (count > 1)
		return AUTH_MALFORMED;
	p = header;
	while (*p == ' ' || *p == '\t')
		p++;
	if (strncasecmp(p, "Bearer", 6) != 0 || (p[6] != ' ' && p[6] != '\t'))
		return AUTH_MALFORMED;
	p += 6;
	while (*p == ' ' || *p == '\t')
		p++;
	end = p + strlen(p);
	while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
		end--;
	if (end - p > GW_MAX_TOKEN_LEN || !token68(p, (size_t) (end - p)))
		return AUTH_MALFORMED;
	*token = strndup(p, (size_t) (end - p));
	return *token ? AUTH_OK : AUTH_MALFORMED;
}
