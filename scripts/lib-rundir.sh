# scripts/lib-rundir.sh: where `make run` keeps its cluster, shared by
# scripts/run-local (which sources it) and scripts/demo (which runs
# `bash scripts/lib-rundir.sh TOP` and reads the path it prints).
#
# The run directory holds the cluster's data (pgdata/), its socket (sock/),
# a private PostgreSQL installation tree with this checkout's extension
# (tree/, made by scripts/pg-tree), the demo token and the gateway's log.
#
#   MCP_NOTES_RUNDIR set            that directory
#   else, the cluster's owner can   TOP/.run
#   reach the checkout
#   else                            /var/tmp/mcp_notes-UID-HASH (UID of the
#                                   caller, HASH of the checkout path)
#
# PostgreSQL refuses to run as root, so as root the cluster belongs to user
# postgres, who cannot enter a checkout under root's home (mode 0700).

# the user the cluster runs as
mcp_notes_owner() {
    if [ "$(id -u)" -eq 0 ]; then echo postgres; else id -un; fi
}

# runs "$@" as the cluster's owner
mcp_notes_as_owner() {
    # from /, which postgres can enter (the caller's directory may be closed to it)
    if [ "$(id -u)" -eq 0 ]; then (cd / && runuser -u postgres -- "$@"); else "$@"; fi
}

# true when the cluster's owner can enter directory $1 (access(2) also
# checks search permission on every directory above it)
mcp_notes_owner_reaches() {
    mcp_notes_as_owner test -d "$1" -a -x "$1" 2>/dev/null
}

# prints the run directory for the checkout $1 (see above)
mcp_notes_rundir() {
    local top=$1 dir
    if [ -n "${MCP_NOTES_RUNDIR:-}" ]; then
        dir=$MCP_NOTES_RUNDIR
        case $dir in /*) ;; *) dir=$PWD/$dir ;; esac
        printf '%s\n' "${dir%/}"
    elif mcp_notes_owner_reaches "$top"; then
        printf '%s\n' "$top/.run"
    else
        printf '/var/tmp/mcp_notes-%s-%s\n' "$(id -u)" "$(printf '%s' "$top" | sha256sum | cut -c1-8)"
    fi
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    set -euo pipefail
    mcp_notes_rundir "${1:-$(cd "$(dirname "$0")/.." && pwd -P)}"
fi
