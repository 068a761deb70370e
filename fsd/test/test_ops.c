/*
 * The single-file operations below a root, one behaviour at a time: the
 * delete's move into the trash and its checks, putting back, the unlink
 * from the trash, atomic writes, reads, the scan and the startup probe.
 * fsd_race_hook swaps a name at the worst moment (between the check and the
 * rename it guards), so the verify-after-rename paths run deterministically.
 */
#include <dirent.h>
#include <sys/stat.h>

#include "beneath.h"
#include "files.h"
#include "probe.h"
#include "root.h"
#include "scan.h"
#include "status.h"
#include "trash.h"
#include "tree.h"

static struct fsd_root root;

static struct fsd_ident
ident_of(const char *rel)
{
	struct fsd_ident id;
	struct stat st;

	if (lstat(at("root/%s", rel), &st) != 0)
		check_setup_failed(rel, "lstat");
	fsd_ident_of_stat(&st, &id);
	return id;
}

static bool
exists(const char *rel)
{
	struct stat st;

	return lstat(at("%s", rel), &st) == 0;
}

static bool
has_content(const char *rel, const char *want)
{
	char buf[512] = {0};
	FILE *f = fopen(at("%s", rel), "r");
	size_t n;

	if (!f)
		return false;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, want) == 0;
}

static void
test_trash_move(void)
{
	struct fsd_ident id, in_trash;
	bool held;
	enum fsd_status st;

	tree_file("root/gone.md", "to delete\n");
	id = ident_of("gone.md");
	st = fsd_trash_move(&root, "gone.md", &id, "op1", &held);
	check(st == FSD_OK && !exists("root/gone.md") && exists("root/.mcp-trash/op1"),
		  "trash move of the confirmed file", "got %s", fsd_status_name(st));
	st = fsd_trash_stat(&root, "op1", &in_trash);
	check(st == FSD_OK && fsd_ident_equal(&in_trash, &id), "trash entry keeps the file's identity", "got %s",
		  fsd_status_name(st));
	st = fsd_trash_move(&root, "gone.md", &id, "op1", &held);
	check(st == FSD_NOT_FOUND, "second trash move of the same op finds nothing", "got %s",
		  fsd_status_name(st));
	st = fsd_trash_unlink(&root, "op1");
	check(st == FSD_OK && !exists("root/.mcp-trash/op1"), "unlink from the trash", "got %s",
		  fsd_status_name(st));
	st = fsd_trash_unlink(&root, "op1");
	check(st == FSD_OK, "unlink from the trash again is a no-op (redone after a crash)", "got %s",
		  fsd_status_name(st));
	st = fsd_trash_stat(&root, "op1", &in_trash);
	check(st == FSD_NOT_FOUND, "no trash entry after the unlink", "got %s", fsd_status_name(st));
}

static void
test_trash_refusals(void)
{
	struct fsd_ident id, changed;
	bool held;
	enum fsd_status st;

	tree_file("root/kept.md", "v1\n");
	id = ident_of("kept.md");
	tree_file("root/kept.md", "v2, longer\n");
	st = fsd_trash_move(&root, "kept.md", &id, "op2", &held);
	check(st == FSD_CHANGED && has_content("root/kept.md", "v2, longer\n"),
		  "trash move refuses a file edited since", "got %s", fsd_status_name(st));
	changed = ident_of("kept.md");
	if (rename(at("root/kept.md"), at("root/kept-moved.md")) != 0 ||
		symlinkat("kept-moved.md", AT_FDCWD, at("root/kept.md")) != 0)
		check_setup_failed("swap", "rename/symlink");
	st = fsd_trash_move(&root, "kept.md", &changed, "op2", &held);
	check(st == FSD_SYMLINK && exists("root/kept-moved.md"), "trash move refuses a name now a symlink",
		  "got %s", fsd_status_name(st));
	st = fsd_trash_move(&root, "kept.md", &changed, "../escape", &held);
	check(st == FSD_BAD_PATH, "an op id that is not a plain name is refused", "got %s", fsd_status_name(st));
	tree_file("root/twice.md", "x\n");
	tree_file("root/.mcp-trash/op3", "an earlier attempt\n");
	id = ident_of("twice.md");
	st = fsd_trash_move(&root, "twice.md", &id, "op3", &held);
	check(st == FSD_EXISTS && has_content("root/twice.md", "x\n") &&
			  has_content("root/.mcp-trash/op3", "an earlier attempt\n"),
		  "trash move never replaces a trash entry (RENAME_NOREPLACE)", "got %s", fsd_status_name(st));
}

/* Swaps the name for a symlink to the outside canary, the real file set aside. */
static void
swap_for_symlink(int dirfd, const char *name)
{
	if (renameat(dirfd, name, dirfd, "swapped-aside.md") != 0 ||
		symlinkat(at("outside/canary"), dirfd, name) != 0)
		check_setup_failed("race hook", "swap");
}

/* Swaps the name for another regular file of the same size. */
static void
swap_for_file(int dirfd, const char *name)
{
	if (renameat(dirfd, name, dirfd, "swapped-aside.md") != 0)
		check_setup_failed("race hook", "rename");
	tree_file("root/race.md", "other\n");
}

static void
test_trash_race(void)
{
	struct canary canary;
	struct fsd_ident id;
	bool held;
	enum fsd_status st;

	tree_dir("outside");
	canary_plant(&canary, "outside/canary", "outside\n");
	tree_file("root/race.md", "real\n");
	id = ident_of("race.md");
	fsd_race_hook = swap_for_symlink;
	st = fsd_trash_move(&root, "race.md", &id, "op4", &held);
	fsd_race_hook = NULL;
	check(st == FSD_CHANGED && !held && canary_alive(&canary) && !exists("root/.mcp-trash/op4"),
		  "a symlink swapped in before the rename is put back, never followed", "got %s held %d",
		  fsd_status_name(st), held);
	check(exists("root/swapped-aside.md") && unlink(at("root/race.md")) == 0 &&
			  rename(at("root/swapped-aside.md"), at("root/race.md")) == 0,
		  "the real file set aside by the swap is untouched", "missing");
	fsd_race_hook = swap_for_file;
	st = fsd_trash_move(&root, "race.md", &id, "op5", &held);
	fsd_race_hook = NULL;
	check(st == FSD_CHANGED && has_content("root/race.md", "other\n") && !exists("root/.mcp-trash/op5"),
		  "another file swapped in before the rename is put back", "got %s", fsd_status_name(st));
	unlink(at("root/race.md"));
	rename(at("root/swapped-aside.md"), at("root/race.md"));
}

static void
test_put_back(void)
{
	struct fsd_ident id;
	bool held;
	enum fsd_status st;

	tree_file("root/back.md", "back\n");
	id = ident_of("back.md");
	if (fsd_trash_move(&root, "back.md", &id, "op6", &held) != FSD_OK)
		check_setup_failed("put back", "move");
	st = fsd_trash_put_back(&root, "op6", "back.md", &held);
	check(st == FSD_CHANGED && !held && has_content("root/back.md", "back\n"), "put back restores the name",
		  "got %s", fsd_status_name(st));
	if (fsd_trash_move(&root, "back.md", &id, "op7", &held) != FSD_OK)
		check_setup_failed("put back", "move 2");
	tree_file("root/back.md", "a new file took the name\n");
	st = fsd_trash_put_back(&root, "op7", "back.md", &held);
	check(st == FSD_CHANGED && held && has_content("root/.mcp-trash/conflict-op7", "back\n") &&
			  has_content("root/back.md", "a new file took the name\n"),
		  "put back onto a taken name keeps both (conflict-<id> in the trash)", "got %s held %d",
		  fsd_status_name(st), held);
}

static void
test_write_create(void)
{
	struct fsd_ident w, now;
	enum fsd_status st;

	st = fsd_write_note(&root, "new/sub/created.md", "# Created\n", 10, NULL, "op8", &w);
	now = ident_of("new/sub/created.md");
	check(st == FSD_OK && has_content("root/new/sub/created.md", "# Created\n") && fsd_ident_equal(&w, &now),
		  "create writes the file, making its directories", "got %s", fsd_status_name(st));
	check(!exists("root/new/sub/.mcp-tmp-op8"), "create leaves no temporary file", "left");
	st = fsd_write_note(&root, "new/sub/created.md", "other\n", 6, NULL, "op9", &w);
	check(st == FSD_EXISTS && has_content("root/new/sub/created.md", "# Created\n"),
		  "create never replaces a file", "got %s", fsd_status_name(st));
	tree_dir("outside");
	tree_link(at("outside"), "root/linkdir");
	st = fsd_write_note(&root, "linkdir/made.md", "x", 1, NULL, "op10", &w);
	check(st == FSD_SYMLINK && !exists("outside/made.md"), "create refuses a directory that is a symlink",
		  "got %s", fsd_status_name(st));
}

static void
swap_in_editor_version(int dirfd, const char *name)
{
	(void) dirfd;
	(void) name;
	tree_file("root/edit.md.tmp", "the editor's version\n");
	rename(at("root/edit.md.tmp"), at("root/edit.md"));
}

static void
test_write_replace(void)
{
	struct fsd_ident old, w, now;
	struct stat st_mode;
	enum fsd_status st;

	tree_file("root/edit.md", "old\n");
	chmod(at("root/edit.md"), 0640);
	old = ident_of("edit.md");
	st = fsd_write_note(&root, "edit.md", "new content\n", 12, &old, "op11", &w);
	now = ident_of("edit.md");
	stat(at("root/edit.md"), &st_mode);
	check(st == FSD_OK && has_content("root/edit.md", "new content\n") && fsd_ident_equal(&w, &now) &&
			  now.ino != old.ino && (st_mode.st_mode & 0777) == 0640,
		  "replace writes a new file over the expected one, keeping its mode", "got %s mode %o",
		  fsd_status_name(st), st_mode.st_mode & 0777);
	st = fsd_write_note(&root, "edit.md", "lost?\n", 6, &old, "op12", &w);
	check(st == FSD_CHANGED && has_content("root/edit.md", "new content\n"),
		  "replace refuses a file that is not the expected one", "got %s", fsd_status_name(st));
	old = ident_of("edit.md");
	fsd_race_hook = swap_in_editor_version;
	st = fsd_write_note(&root, "edit.md", "tool version\n", 13, &old, "op13", &w);
	fsd_race_hook = NULL;
	check(st == FSD_CHANGED && has_content("root/edit.md", "the editor's version\n") &&
			  !exists("root/.mcp-tmp-op13"),
		  "an edit saved between the check and the rename wins (exchanged back)", "got %s",
		  fsd_status_name(st));
	tree_file("root/.mcp-tmp-op14", "someone's file left here\n");
	old = ident_of("edit.md");
	st = fsd_write_note(&root, "edit.md", "after leftover\n", 15, &old, "op14", &w);
	check(st == FSD_OK && has_content("root/.mcp-trash/leftover-op14", "someone's file left here\n"),
		  "a leftover temporary file is set aside in the trash, never unlinked", "got %s",
		  fsd_status_name(st));
}

static void
test_read(void)
{
	struct fsd_ident id, want;
	char *data;
	size_t len;
	enum fsd_status st;
	FILE *f;

	tree_file("root/read.md", "# Title\n\nBody\n");
	want = ident_of("read.md");
	st = fsd_read_note(&root, "read.md", &data, &len, &id);
	check(st == FSD_OK && len == 14 && strcmp(data, "# Title\n\nBody\n") == 0 && fsd_ident_equal(&id, &want),
		  "read returns the content and the identity of that same file", "got %s", fsd_status_name(st));
	free(data);
	f = fopen(at("root/big.md"), "w");
	if (!f || fseek(f, FSD_MAX_NOTE_BYTES, SEEK_SET) != 0 || fputc('x', f) == EOF || fclose(f) != 0)
		check_setup_failed("big", "write");
	st = fsd_read_note(&root, "big.md", &data, &len, &id);
	check(st == FSD_TOO_LARGE && data == NULL, "read refuses a file larger than a note may be", "got %s",
		  fsd_status_name(st));
}

static void
test_scan(void)
{
	static const char *want[] = {"a/one.md", "a/sub/two.md", "caf\xc3\xa9.md", "top.md"};
	struct fsd_scan scan;
	enum fsd_status st;
	bool same;

	tree_dir("scan");
	tree_dir("scan/a");
	tree_dir("scan/a/sub");
	tree_dir("scan/.git");
	tree_file("scan/top.md", "t");
	tree_file("scan/a/one.md", "1");
	tree_file("scan/a/sub/two.md", "2");
	tree_file("scan/caf\xc3\xa9.md", "utf-8 name");
	tree_file("scan/a/notes.txt", "not markdown");
	tree_file("scan/.hidden.md", "hidden");
	tree_file("scan/.git/HEAD.md", "in a hidden directory");
	tree_file("scan/bad\xff.md", "invalid UTF-8 name");
	tree_file("scan/ctl\x01.md", "control character");
	tree_link("top.md", "scan/link.md");
	tree_link(at("outside"), "scan/linkdir");
	tree_file("outside/hl.md", "a file outside, hard-linked in");
	if (link(at("outside/hl.md"), at("scan/a/hard.md")) != 0 || mkfifo(at("scan/fifo.md"), 0644) != 0)
		check_setup_failed("scan", "link/fifo");
	{
		struct fsd_root r;
		int basefd = open(tree_base, O_PATH | O_DIRECTORY | O_CLOEXEC);

		if (basefd < 0 || fsd_root_open(basefd, "scan", &r) != FSD_OK)
			check_setup_failed("scan", "root");
		st = fsd_scan(&r, 1000, &scan);
		fsd_root_close(&r);
		close(basefd);
	}
	same = st == FSD_OK && scan.n == 4;
	for (size_t i = 0; same && i < 4; i++)
		same = strcmp(scan.items[i].rel, want[i]) == 0;
	check(same, "scan lists regular .md files with one name, sorted, nothing hidden or linked",
		  "got %zu entries", scan.n);
	check(scan.skipped == 7, "scan counts what it skipped (txt, bad names, symlinks, hard links, fifo)",
		  "skipped %zu", scan.skipped);
	fsd_scan_free(&scan);
}

int
main(void)
{
	char why[256];
	int basefd;

	tree_new("ops");
	tree_dir("root");
	basefd = open(tree_base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0 || fsd_root_open(basefd, "root", &root) != FSD_OK)
		check_setup_failed("root", "open");
	check(fsd_probe_openat2(why, sizeof why), "probe finds openat2 with every resolve flag", "%s", why);
	test_trash_move();
	test_trash_refusals();
	test_trash_race();
	test_put_back();
	test_write_create();
	test_write_replace();
	test_read();
	test_scan();
	fsd_root_close(&root);
	close(basefd);
	tree_remove();
	return check_exit();
}
