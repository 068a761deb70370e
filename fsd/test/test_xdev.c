/*
 * RESOLVE_NO_XDEV: a bind mount below the root (an outside tree mounted
 * over a directory of the workspace) is never crossed, by a read, a move
 * into the trash, a write or the scan.  Runs in a private mount namespace
 * (unshare(CLONE_NEWNS), with a user namespace when not root), so the
 * mount is invisible to the rest of the machine and gone when the test
 * ends.  Failing to set the namespace up is a failure, never a skip.
 */
#include <sched.h>
#include <sys/mount.h>
#include <sys/stat.h>

#include "beneath.h"
#include "files.h"
#include "root.h"
#include "scan.h"
#include "status.h"
#include "trash.h"
#include "tree.h"

static void
private_mount_namespace(void)
{
	int flags = CLONE_NEWNS;

	if (geteuid() != 0)
		flags |= CLONE_NEWUSER;
	if (unshare(flags) != 0)
		check_setup_failed("xdev",
						   "unshare(CLONE_NEWNS) refused: the bind-mount test needs a mount namespace");
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0)
		check_setup_failed("xdev", "making / private in the namespace");
}

int
main(void)
{
	struct canary canary;
	struct fsd_root root;
	struct fsd_ident id, w;
	struct fsd_scan scan;
	struct stat st;
	char *data = NULL;
	size_t len;
	bool held;
	enum fsd_status got;
	int basefd;

	tree_new("xdev");
	tree_dir("outside");
	tree_dir("root");
	tree_dir("root/mnt");
	tree_file("root/inside.md", "inside\n");
	private_mount_namespace();
	/* a tmpfs is a mount of its own, whatever filesystem the tree is on */
	if (mount("fsd-xdev", at("outside"), "tmpfs", 0, "size=1m") != 0)
		check_setup_failed("xdev", "tmpfs over outside");
	canary_plant(&canary, "outside/secret.md", "outside, reached only through a mount\n");
	if (mount(at("outside"), at("root/mnt"), NULL, MS_BIND, NULL) != 0)
		check_setup_failed("xdev", "bind mount");
	if (stat(at("root/mnt/secret.md"), &st) != 0)
		check_setup_failed("xdev", "the bind mount does not show the outside tree");
	fsd_ident_of_stat(&st, &id);
	basefd = open(tree_base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0 || fsd_root_open(basefd, "root", &root) != FSD_OK)
		check_setup_failed("xdev", "root");
	got = fsd_read_note(&root, "mnt/secret.md", &data, &len, &id);
	free(data);
	check(got == FSD_OUTSIDE, "xdev read through a bind mount is refused (EXDEV)", "got %s",
		  fsd_status_name(got));
	got = fsd_trash_move(&root, "mnt/secret.md", &id, "xdev1", &held);
	check(got == FSD_OUTSIDE && canary_alive(&canary), "xdev trash move through a bind mount is refused",
		  "got %s", fsd_status_name(got));
	got = fsd_write_note(&root, "mnt/secret.md", "x", 1, &id, "xdev2", &w);
	check(got == FSD_OUTSIDE && canary_alive(&canary), "xdev replace through a bind mount is refused",
		  "got %s", fsd_status_name(got));
	got = fsd_write_note(&root, "mnt/new.md", "x", 1, NULL, "xdev3", &w);
	check(got == FSD_OUTSIDE && stat(at("outside/new.md"), &st) != 0,
		  "xdev create through a bind mount is refused", "got %s", fsd_status_name(got));
	got = fsd_scan(&root, 100, &scan);
	check(got == FSD_OK && scan.n == 1 && strcmp(scan.items[0].rel, "inside.md") == 0,
		  "xdev scan does not descend into a mount", "got %s, %zu entries", fsd_status_name(got), scan.n);
	fsd_scan_free(&scan);
	fsd_root_close(&root);
	got = fsd_root_open(basefd, "root/mnt", &root);
	check(got == FSD_OK, "xdev a root may itself be a mount point (one volume per workspace)", "got %s",
		  fsd_status_name(got));
	if (got == FSD_OK)
		fsd_root_close(&root);
	check(canary_alive(&canary), "xdev the outside canary survives", "changed");
	close(basefd);
	umount2(at("root/mnt"), MNT_DETACH);
	umount2(at("outside"), MNT_DETACH);
	tree_remove();
	return check_exit();
}
