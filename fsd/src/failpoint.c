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
	size_t		n = strlen(name);

	if (!want || strncmp(want, name, n) != 0)
		return;
	if (want[n] == '\0')
	{
		fprintf(stderr, "{\"event\":\"failpoint\",\"msg\":\"killed at %s\"}\n", name);
		kill(getpid(), SIGKILL);
	}
	else if (strcmp(want + n, ":stop") == 0)
	{
		/* once: the test stops the database meanwhile, then SIGCONT */
		fprintf(stderr, "{\"event\":\"failpoint\",\"msg\":\"stopped at %s\"}\n", name);
		unsetenv("MCP_NOTES_FSD_FAILPOINT");
		kill(getpid(), SIGSTOP);
	}
}
#else
typedef int fsd_failpoints_off; /* an empty translation unit is not C11 */
#endif
