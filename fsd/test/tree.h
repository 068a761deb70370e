/*
 * Building the trees the tests run on, in a fresh mkdtemp directory, and
 * the canaries outside the root whose survival the tests assert.
 */
#ifndef FSD_TREE_H
#define FSD_TREE_H

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"

static char tree_base[PATH_MAX];

/* base/rel, in a static ring of buffers (enough for one expression) */
__attribute__((format(printf, 1, 2), unused)) static const char *
at(const char *fmt, ...)
{
	static char ring[8][PATH_MAX];
	static int next;
	char rel[PATH_MAX];
	va_list ap;
	char *out = ring[next++ % 8];

	va_start(ap, fmt);
	vsnprintf(rel, sizeof rel, fmt, ap);
	va_end(ap);
	if (snprintf(out, PATH_MAX, "%s/%s", tree_base, rel) >= PATH_MAX)
		check_setup_failed(rel, "path too long");
	return out;
}

__attribute__((unused)) static void
tree_new(const char *name)
{
	const char *tmp = getenv("TMPDIR");

	snprintf(tree_base, sizeof tree_base, "%s/fsd-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
	if (!mkdtemp(tree_base))
		check_setup_failed(name, "mkdtemp");
}

__attribute__((unused)) static void
tree_dir(const char *rel)
{
	if (mkdir(at("%s", rel), 0755) != 0 && errno != EEXIST)
		check_setup_failed(rel, "mkdir");
}

__attribute__((unused)) static void
tree_file(const char *rel, const char *content)
{
	FILE *f = fopen(at("%s", rel), "w");

	if (!f || fputs(content, f) < 0 || fclose(f) != 0)
		check_setup_failed(rel, "write file");
}

__attribute__((unused)) static void
tree_link(const char *target, const char *rel)
{
	if (symlink(target, at("%s", rel)) != 0)
		check_setup_failed(rel, "symlink");
}

/* What a canary was: its content and inode. */
struct canary
{
	char path[PATH_MAX];
	char content[256];
	ino_t ino;
};

__attribute__((unused)) static void
canary_plant(struct canary *c, const char *rel, const char *content)
{
	struct stat st;

	tree_file(rel, content);
	snprintf(c->path, sizeof c->path, "%s", at("%s", rel));
	snprintf(c->content, sizeof c->content, "%s", content);
	if (stat(c->path, &st) != 0)
		check_setup_failed(rel, "stat canary");
	c->ino = st.st_ino;
}

/* True while the canary is where it was, the same inode, the same bytes. */
__attribute__((unused)) static bool
canary_alive(const struct canary *c)
{
	char buf[256] = {0};
	struct stat st;
	FILE *f;
	size_t n;

	if (lstat(c->path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_ino != c->ino)
		return false;
	f = fopen(c->path, "r");
	if (!f)
		return false;
	n = fread(buf, 1, sizeof buf - 1, f);
	fclose(f);
	buf[n] = '\0';
	return strcmp(buf, c->content) == 0;
}

__attribute__((unused)) static void
tree_remove(void)
{
	char cmd[PATH_MAX + 32];

	if (getenv("FSD_KEEP_TREE"))
		return;
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", tree_base);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", tree_base);
}

#endif
