/*
 * canary.c
 *		Proves, before the gateway runs under them, that the sanitizer options
 *		of tests/suites/sanitizers produce a report file here: "leak" leaks 64
 *		bytes (LeakSanitizer), "shift" shifts by 40 (UBSan), "overflow" writes
 *		past a heap block (ASan).  Built with the same flags as the gateway.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int
main(int argc, char **argv)
{
	const char *kind = argc > 1 ? argv[1] : "";
	char	   *volatile p = malloc(64);
	volatile int shift = 40;
	volatile int i = 64;

	strcpy(p, "leaked on purpose");
	if (strcmp(kind, "shift") == 0)
		return (1 << shift) != 0;
	if (strcmp(kind, "overflow") == 0)
		p[i] = 1;
	if (strcmp(kind, "leak") == 0)
		p = NULL;
	else
		free(p);
	return 0;
}
