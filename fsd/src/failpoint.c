#include "failpoint.h"

#ifdef FSD_FAILPOINTS
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void
fsd_failpoint(const char *name)
{
	const char *want = getenv("MCP_NOTES_FSD_FAILPOINT");

	if (want && strcmp(want, name) == 0)
	{
		fprintf(stderr, "{\"event\":\"failpoint\",\"msg\":\"killed at %s\"}\n", name);
		kill(getpid(), SIGKILL);
	}
}
#else
typedef int fsd_failpoints_off; /* an empty translation unit is not C11 */
#endif
