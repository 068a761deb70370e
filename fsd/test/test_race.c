/*
 * The race test: while one thread flips the root's directory a/ between the
 * real directory and a symlink to an outside tree (and, every other time,
 * exchanges it with an outside directory, so the real one is briefly
 * outside the root and the outside one inside), and another thread swaps
 * note names with a symlink to an outside file, the main thread deletes,
 * recreates, rewrites and reads the notes of a/ as fast as it can.
 *
 * Asserted: every outside canary survives (same path, inode and bytes);
 * every operation ends in a defined status; a note file is gone only when
 * its delete reported FSD_OK; the trash holds nothing but note files.
 * FSD_RACE_FLIPS sets the number of flips (default 100000).
 */
#include <dirent.h>
#include <pthread.h>
#include <stdatomic.h>
#include <sys/stat.h>

#include "beneath.h"
#include "files.h"
#include "root.h"
#include "status.h"
#include "trash.h"
#include "tree.h"

enum
{
	NOTES = 32
};

static struct fsd_root root;
static struct canary canaries[NOTES + 1];
static atomic_bool stop;
static atomic_long flips;
static atomic_long deleted;
static long want_flips = 100000;

struct note
{
	bool present; /* a file we wrote is believed to be at a/<name> */
	struct fsd_ident ident;
	long generation;
};
static struct note notes[NOTES];
static long counts[FSD_ERROR + 1][4]; /* [status][op] */
static const char *op_names[] = {"delete", "create", "replace", "read"};

/* The attackers act through descriptors of the directories they mean (as a
 * path through a/ could itself land in the outside tree and move canaries,
 * which is the attacker's doing, not the daemon's). */
static int root_dirfd, real_dirfd, outside_dirfd;

static void *
flip_dir(void *arg)
{
	(void) arg;
	/* at least want_flips, and on until enough deletes got through for the
	 * race to have been a race (bounded: at most 20 times as many) */
	for (long i = 0; i < want_flips || (atomic_load(&deleted) < 100 && i < 20 * want_flips); i++)
	{
		if (i % 2 == 0)
		{
			/* a/ becomes a symlink to the outside twin, then the real one again */
			if (renameat(root_dirfd, "a", root_dirfd, "a.real") == 0)
			{
				symlinkat(at("outside/twin"), root_dirfd, "a");
				unlinkat(root_dirfd, "a", 0);
				renameat(root_dirfd, "a.real", root_dirfd, "a");
			}
		}
		else
		{
			/* the real a/ goes outside the root while the outside twin is in */
			if (renameat2(root_dirfd, "a", outside_dirfd, "twin", RENAME_EXCHANGE) == 0)
				renameat2(root_dirfd, "a", outside_dirfd, "twin", RENAME_EXCHANGE);
		}
		atomic_fetch_add(&flips, 1);
	}
	atomic_store(&stop, true);
	return NULL;
}

/* Exchanges a note's name in the real a/ with a symlink to an outside file,
 * and back. */
static void *
flip_leaf(void *arg)
{
	(void) arg;
	symlinkat(canaries[NOTES].path, real_dirfd, "zz-link.md");
	for (long i = 0; !atomic_load(&stop); i++)
	{
		char name[64];

		snprintf(name, sizeof name, "n%02ld.md", i % NOTES);
		if (renameat2(real_dirfd, name, real_dirfd, "zz-link.md", RENAME_EXCHANGE) == 0)
			renameat2(real_dirfd, name, real_dirfd, "zz-link.md", RENAME_EXCHANGE);
	}
	return NULL;
}

static bool
defined(enum fsd_status st, int op)
{
	switch (st)
	{
		case FSD_OK:
		case FSD_NOT_FOUND:
		case FSD_SYMLINK:
		case FSD_OUTSIDE:
		case FSD_CHANGED:
		case FSD_NOT_REGULAR: return true;
		case FSD_EXISTS:
			return op == 1 || op == 0; /* a create's name taken; a trash entry left by a put back */
		default: return false;
	}
}

static bool
one_op(int i, long round)
{
	char rel[32], tag[32], body[64];
	struct note *n = &notes[i];
	struct fsd_ident w;
	enum fsd_status st;
	int op;
	bool held;

	snprintf(rel, sizeof rel, "a/n%02d.md", i);
	snprintf(tag, sizeof tag, "r%ld-%d", round, i);
	if (!n->present)
	{
		op = 1;
		snprintf(body, sizeof body, "note %d generation %ld\n", i, n->generation + 1);
		st = fsd_write_note(&root, rel, body, strlen(body), NULL, tag, &w);
	}
	else if (round % 3 == 0)
	{
		op = 2;
		snprintf(body, sizeof body, "note %d rewritten in round %ld\n", i, round);
		st = fsd_write_note(&root, rel, body, strlen(body), &n->ident, tag, &w);
	}
	else if (round % 3 == 1)
	{
		char *data;
		size_t len;

		op = 3;
		st = fsd_read_note(&root, rel, &data, &len, &w);
		free(data);
		if (st == FSD_OK && !fsd_ident_equal(&w, &n->ident))
			st = FSD_CHANGED; /* read something else: fine, if it is not a canary (checked at the end) */
		w = n->ident;
	}
	else
	{
		op = 0;
		st = fsd_trash_move(&root, rel, &n->ident, tag, &held);
		if (st == FSD_OK && fsd_trash_unlink(&root, tag) != FSD_OK)
			st = FSD_ERROR;
	}
	counts[st][op]++;
	if (st == FSD_OK && op == 0)
	{
		n->present = false;
		atomic_fetch_add(&deleted, 1);
	}
	else if (st == FSD_OK && op != 3)
	{
		n->present = true;
		n->ident = w;
		n->generation += op == 1;
	}
	return defined(st, op);
}

/* Every regular file left in the trash is a note (a file this test wrote). */
static bool
trash_holds_only_notes(void)
{
	DIR *d = opendir(at("root/.mcp-trash"));
	struct dirent *e;
	bool ok = true;

	if (!d)
		return true;
	while ((e = readdir(d)) != NULL)
	{
		char buf[128] = {0};
		FILE *f;

		if (e->d_name[0] == '.')
			continue;
		f = fopen(at("root/.mcp-trash/%s", e->d_name), "r");
		if (f)
		{
			if (!fgets(buf, sizeof buf, f) || strncmp(buf, "note ", 5) != 0)
				ok = false;
			fclose(f);
		}
	}
	closedir(d);
	return ok;
}

static void
setup(void)
{
	char name[64], content[64];
	struct stat st;
	int basefd;

	tree_new("race");
	tree_dir("root");
	tree_dir("root/a");
	tree_dir("outside");
	tree_dir("outside/twin");
	for (int i = 0; i < NOTES; i++)
	{
		snprintf(name, sizeof name, "outside/twin/n%02d.md", i);
		snprintf(content, sizeof content, "outside canary %d\n", i);
		canary_plant(&canaries[i], name, content);
	}
	tree_dir("elsewhere");
	canary_plant(&canaries[NOTES], "elsewhere/target.md", "the symlink's target\n");
	basefd = open(tree_base, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (basefd < 0 || fsd_root_open(basefd, "root", &root) != FSD_OK || fsd_root_open_trash(&root) != FSD_OK)
		check_setup_failed("race", "root");
	close(basefd);
	root_dirfd = open(at("root"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	real_dirfd = open(at("root/a"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	outside_dirfd = open(at("outside"), O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (root_dirfd < 0 || real_dirfd < 0 || outside_dirfd < 0)
		check_setup_failed("race", "directory descriptors");
	(void) st;
}

int
main(void)
{
	pthread_t dir_thread, leaf_thread;
	long ops = 0, undefined = 0;
	const char *env = getenv("FSD_RACE_FLIPS");
	char counts_line[1024] = "";

	if (env && atol(env) > 0)
		want_flips = atol(env);
	setup();
	if (pthread_create(&dir_thread, NULL, flip_dir, NULL) != 0 ||
		pthread_create(&leaf_thread, NULL, flip_leaf, NULL) != 0)
		check_setup_failed("race", "threads");
	for (long round = 0; !atomic_load(&stop); round++)
		for (int i = 0; i < NOTES; i++, ops++)
			if (!one_op(i, round))
				undefined++;
	pthread_join(dir_thread, NULL);
	pthread_join(leaf_thread, NULL);
	for (int op = 0; op < 4; op++)
	{
		size_t len = strlen(counts_line);

		snprintf(counts_line + len, sizeof counts_line - len,
				 "%s%s ok %ld changed %ld symlink %ld outside %ld missing %ld", op ? "; " : "", op_names[op],
				 counts[FSD_OK][op], counts[FSD_CHANGED][op], counts[FSD_SYMLINK][op],
				 counts[FSD_OUTSIDE][op], counts[FSD_NOT_FOUND][op]);
	}
	printf("race: %ld flips, %ld operations: %s\n", atomic_load(&flips), ops, counts_line);
	{
		bool alive = true;

		for (int i = 0; i <= NOTES; i++)
			if (!canary_alive(&canaries[i]))
			{
				fprintf(stderr, "race: canary %s is not as planted\n", canaries[i].path);
				alive = false;
			}
		check(alive, "race: every outside canary survives", "a canary was changed, moved or removed");
	}
	check(undefined == 0, "race: every operation ends in a defined status", "%ld of %ld did not", undefined,
		  ops);
	check(counts[FSD_OK][0] > 0 &&
			  counts[FSD_SYMLINK][0] + counts[FSD_OUTSIDE][0] + counts[FSD_CHANGED][0] > 0,
		  "race: deletes both succeeded and were refused while the tree flipped", "%s", counts_line);
	check(trash_holds_only_notes(), "race: the trash holds nothing but notes",
		  "a foreign file reached the trash");
	fsd_root_close(&root);
	tree_remove();
	return check_exit();
}
