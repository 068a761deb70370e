/*
 * seccomp-launch ERRNO PROGRAM [ARG...]: runs PROGRAM under a seccomp
 * filter that answers openat2(2) with ERRNO (EPERM, as Docker's default
 * profile and systemd-nspawn do, or ENOSYS, as an old kernel does) and
 * allows everything else.  tests/suites/fs uses it to prove that
 * mcp-notes-fsd refuses file mode instead of falling back to a weaker open.
 */
#include <errno.h>
#include <seccomp.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
main(int argc, char **argv)
{
	scmp_filter_ctx ctx;
	int err;

	if (argc < 3 || (strcmp(argv[1], "EPERM") != 0 && strcmp(argv[1], "ENOSYS") != 0))
	{
		fprintf(stderr, "usage: seccomp-launch EPERM|ENOSYS PROGRAM [ARG...]\n");
		return 2;
	}
	err = strcmp(argv[1], "EPERM") == 0 ? EPERM : ENOSYS;
	ctx = seccomp_init(SCMP_ACT_ALLOW);
	if (!ctx || seccomp_rule_add(ctx, SCMP_ACT_ERRNO(err), SCMP_SYS(openat2), 0) != 0 ||
		seccomp_load(ctx) != 0)
	{
		fprintf(stderr, "seccomp-launch: could not install the filter\n");
		return 2;
	}
	seccomp_release(ctx);
	execv(argv[2], argv + 2);
	fprintf(stderr, "seccomp-launch: exec %s: %s\n", argv[2], strerror(errno));
	return 127;
}
