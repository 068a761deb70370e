/*
 * The table of paths: for each path a caller could hand the daemon, what
 * resolution below the root answers (read, stat, the delete's move into the
 * trash, a create), with the outside canaries checked after every row.
 * Destructive operations are only ever aimed at the test's own outside tree
 * (links to /etc are read, never moved or written through).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include "beneath.h"
#include "files.h"
#include "root.h"
#include "status.h"
#include "trash.h"
#include "tree.h"

struct row
{
	const char *path;
	enum fsd_status want; /* of a read */
	int target;           /* >= 0: also try the trash move and writes, aimed at this canary */
	const char *what;
};

static struct canary canaries[4];

static bool
canaries_alive(void)
{
	for (size_t i = 0; i < sizeof canaries / sizeof canaries[0]; i++)
		if (!canary_alive(&canaries[i]))
			return false;
	return true;
}

static void
build_tree(void)
{
	tree_new("paths");
	tree_dir("outside");
	tree_dir("outside/a");
	canary_plant(&canaries[0], "outside/secret", "outside secret\n");
	canary_plant(&canaries[1], "outside/a/note.md", "outside twin of a/note.md\n");
	canary_plant(&canaries[2], "outside/hard-target.md", "hard link target\n");
	tree_dir("notes-evil");
	canary_plant(&canaries[3], "notes-evil/x.md", "sibling with the root's name as prefix\n");
	tree_dir("notes");
	tree_dir("notes/a");
	tree_dir("notes/a/b");
	tree_dir("notes/a/dir.md");
	tree_file("notes/a/note.md", "# A note\n\nbody\n");
	tree_file("notes/a/b/deep.md", "deep\n");
	tree_link("/etc", "notes/link_etc");
	tree_link("/etc", "notes/a/link_etc");
	tree_link("/etc", "notes/a/b/link_etc");
	tree_link("/etc/passwd", "notes/a/passwd_link");
	tree_link(at("outside"), "notes/link_out");
	tree_link(at("outside"), "notes/a/link_out");
	tree_link(at("outside/secret"), "notes/a/secret_link");
	tree_link("a", "notes/link_in");
	tree_link("note.md", "notes/a/note_link.md");
	tree_link("nowhere-at-all", "notes/a/dangling");
	tree_link("missing-dir", "notes/a/dangling_dir");
	tree_link("/etc", "rootlink");
	if (link(canaries[2].path, at("notes/a/hard.md")) != 0)
		check_setup_failed("hard link", "link");
	if (mkfifo(at("notes/a/fifo.md"), 0644) != 0)
		check_setup_failed("fifo", "mkfifo");
}

static const struct row rows[] = {
	{"a/note.md", FSD_OK, -1, "inside"},
	{"a/b/deep.md", FSD_OK, -1, "inside, two levels"},
	{"a/../a/note.md", FSD_OK, -1, "'..' that stays inside"},
	{"./a/note.md", FSD_OK, -1, "'.' component"},
	{"a/b/../../a/note.md", FSD_OK, -1, "'..' twice, staying inside"},
	{"../outside/secret", FSD_OUTSIDE, 0, "'../x' out of the root"},
	{"a/../../outside/secret", FSD_OUTSIDE, 0, "'..' walking out after a component"},
	{"../notes-evil/x.md", FSD_OUTSIDE, 3, "sibling with the root's name as prefix (notes-evil)"},
	{"/etc/passwd", FSD_OUTSIDE, -1, "absolute path"},
	{"@ABS@/outside/secret", FSD_OUTSIDE, 0, "absolute path to an outside file"},
	{"@ABS@/notes/a/note.md", FSD_OUTSIDE, -1, "absolute path that names a file inside the root"},
	{"/proc/self/root/etc/passwd", FSD_OUTSIDE, -1, "absolute path through a magic link"},
	{"link_etc/passwd", FSD_SYMLINK, -1, "symlink to /etc as the first component"},
	{"a/link_etc/passwd", FSD_SYMLINK, -1, "symlink to /etc as a middle component"},
	{"a/b/link_etc/passwd", FSD_SYMLINK, -1, "symlink to /etc two levels down"},
	{"a/passwd_link", FSD_SYMLINK, -1, "final component a symlink to /etc/passwd"},
	{"link_out/secret", FSD_SYMLINK, 0, "symlink to an outside tree, first component"},
	{"a/link_out/a/note.md", FSD_SYMLINK, 1, "symlink to an outside tree, middle component"},
	{"a/secret_link", FSD_SYMLINK, 0, "final component a symlink to an outside file"},
	{"link_in/note.md", FSD_SYMLINK, -1, "symlink to a directory inside the root"},
	{"a/note_link.md", FSD_SYMLINK, -1, "final component a symlink to a file inside the root"},
	{"a/dangling", FSD_SYMLINK, 0, "dangling symlink as the final component"},
	{"a/dangling_dir/x.md", FSD_SYMLINK, 0, "dangling symlink as a directory"},
	{"a/hard.md", FSD_HARD_LINK, 2, "hard link to an outside file"},
	{"a/fifo.md", FSD_NOT_REGULAR, -1, "FIFO"},
	{"a/dir.md", FSD_NOT_REGULAR, -1, "directory"},
	{"a/missing.md", FSD_NOT_FOUND, -1, "missing file"},
	{"a/note.md/x.md", FSD_NOT_FOUND, -1, "a file used as a directory"},
	{"a%2Fnote.md", FSD_NOT_FOUND, -1, "percent-encoding is not decoded again"},
	{".mcp-trash/x.md", FSD_BAD_PATH, -1, "inside the trash"},
	{"a/.hidden.md", FSD_BAD_PATH, -1, "hidden leaf"},
	{".git/config", FSD_BAD_PATH, -1, "hidden directory"},
	{"", FSD_BAD_PATH, -1, "empty"},
	{"a//note.md", FSD_BAD_PATH, -1, "empty component"},
	{"a/", FSD_BAD_PATH, -1, "trailing slash"},
	{"a/..", FSD_BAD_PATH, -1, "'..' as the leaf"},
	{"..", FSD_BAD_PATH, -1, "'..' alone"},
};

/* The identity of the file an escape row aims at: a move or a write that
 * reached it would be the bug, so the test hands it over as "expected". */
static const struct fsd_ident *
target_ident(int target)
{
	static struct fsd_ident id;
	struct stat st;

	if (stat(canaries[target].path, &st) != 0)
		check_setup_failed("target ident", "stat");
	fsd_ident_of_stat(&st, &id);
	return &id;
}

static void
check_row(struct fsd_root *root, const struct row *r)
{
	char path[PATH_MAX], name[PATH_MAX + 128];
	struct fsd_ident ident, written;
	char *data = NULL;
	size_t len;
	bool held;
	enum fsd_status got;

	if (strncmp(r->path, "@ABS@", 5) == 0)
		snprintf(path, sizeof path, "%s%s", tree_base, r->path + 5);
	else
		snprintf(path, sizeof path, "%s", r->path);
	got = fsd_read_note(root, path, &data, &len, &ident);
	free(data);
	snprintf(name, sizeof name, "path read %s (%s)", r->path, r->what);
	check(got == r->want, name, "got %s, want %s", fsd_status_name(got), fsd_status_name(r->want));
	if (r->target < 0)
		return;
	got = fsd_trash_move(root, path, target_ident(r->target), "op-row", &held);
	snprintf(name, sizeof name, "path trash %s (%s)", r->path, r->what);
	check(got != FSD_OK && canaries_alive(), name, "got %s, canaries %s", fsd_status_name(got),
		  canaries_alive() ? "alive" : "DAMAGED");
	got = fsd_write_note(root, path, "overwritten\n", 12, NULL, "op-row", &written);
	snprintf(name, sizeof name, "path create %s (%s)", r->path, r->what);
	check(got != FSD_OK && canaries_alive(), name, "got %s, canaries %s", fsd_status_name(got),
		  canaries_alive() ? "alive" : "DAMAGED");
	got = fsd_write_note(root, path, "overwritten\n", 12, target_ident(r->target), "op-row", &written);
	snprintf(name, sizeof name, "path replace %s (%s)", r->path, r->what);
	check(got != FSD_OK && canaries_alive(), name, "got %s, canaries %s", fsd_status_name(got),
		  canaries_alive() ? "alive" : "DAMAGED");
}

static void
check_roots(int basefd)
{
	static const struct
	{
		const char *rel;
		enum fsd_status want;
		const char *what;
	} roots[] = {
		{"notes", FSD_OK, "a directory below the base"},
		{"rootlink", FSD_SYMLINK, "a root that is a symlink to /etc"},
		{"notes/link_in", FSD_SYMLINK, "a root that is a symlink inside the base"},
		{"..", FSD_OUTSIDE, "the base's parent"},
		{"/etc", FSD_OUTSIDE, "an absolute path"},
		{"notes/.mcp-trash", FSD_BAD_PATH, "a hidden directory"},
		{"notes/a/note.md", FSD_ERROR, "a file"},
	};
	char name[256];

	for (size_t i = 0; i < sizeof roots / sizeof roots[0]; i++)
	{
		struct fsd_root r;
		enum fsd_status got = fsd_root_open(basefd, roots[i].rel, &r);

		if (got == FSD_OK)
			fsd_root_close(&r);
		if (roots[i].want == FSD_ERROR) /* ENOTDIR: not found as a directory */
			got = got == FSD_NOT_FOUND ? FSD_ERROR : got;
		snprintf(name, sizeof name, "root %s (%s)", roots[i].rel, roots[i].what);
		check(got == roots[i].want, name, "got %s, want %s", fsd_status_name(got),
			  fsd_status_name(roots[i].want));
	}
}

int
main(void)
{
	struct fsd_root root;
	int basefd;

	build_tree();
	basefd = open(tree_base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0 || fsd_root_open(basefd, "notes", &root) != FSD_OK)
		check_setup_failed("root", "open");
	for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
		check_row(&root, &rows[i]);
	check_roots(basefd);
	check(canaries_alive(), "path canaries outside the root all survive", "a canary was changed or removed");
	fsd_root_close(&root);
	close(basefd);
	tree_remove();
	return check_exit();
}
