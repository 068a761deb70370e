/* lib/stringinfo.h (fuzz shim): a growable, NUL-terminated buffer in palloc'd memory. */
#ifndef SHIM_STRINGINFO_H
#define SHIM_STRINGINFO_H

#include "postgres.h"

typedef struct StringInfoData
{
	char	   *data;
	int			len;
	int			maxlen;
	int			cursor;
} StringInfoData;
typedef StringInfoData *StringInfo;

extern void initStringInfo(StringInfo str);
extern void appendStringInfo(StringInfo str, const char *fmt,...) __attribute__((format(printf, 2, 3)));
extern void appendStringInfoString(StringInfo str, const char *s);
extern void appendStringInfoChar(StringInfo str, char ch);
extern void appendBinaryStringInfo(StringInfo str, const void *data, int datalen);

#endif
