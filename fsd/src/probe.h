/*
 * The startup probe: file mode needs openat2(2) with every resolve flag
 * (beneath.h) and a kernel that enforces them.  ENOSYS (a kernel before
 * 5.6), EPERM (a container's seccomp profile: Docker's default answer, and
 * systemd-nspawn's), E2BIG or EINVAL (a flag this kernel does not know), or
 * a ".." walk that is not refused, all mean "unavailable", and the daemon
 * then refuses to serve file-backed workspaces.  There is no fallback to
 * realpath(3) + open(2): that is a check-then-use race, the mistake this
 * design exists to avoid.
 */
#ifndef FSD_PROBE_H
#define FSD_PROBE_H

#include <stdbool.h>
#include <stddef.h>

/* True when file mode can run; otherwise false and why (one sentence). */
bool fsd_probe_openat2(char *why, size_t why_size);

#endif
