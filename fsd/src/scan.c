#include "scan.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "beneath.h"

/* Length of the UTF-8 sequence at s, 0 when it is not a valid one. */
static size_t
utf8_sequence(const unsigned char *s)
{
	size_t n;
	unsigned int cp;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xC2 && s[0] <= 0xDF)
		n = 2, cp = s[0] & 0x1F;
	else if (s[0] >= 0xE0 && s[0] <= 0xEF)
		n = 3, cp = s[0] & 0x0F;
	else if (s[0] >= 0xF0 && s[0] <= 0xF4)
		n = 4, cp = s[0] & 0x07;
	else
		return 0;
	for (size_t i = 1; i < n; i++)
	{
		if ((s[i] & 0xC0) != 0x80)
			return 0;
		cp = (cp << 6) | (s[i] & 0x3F);
	}
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10FFFF)) ||
		(cp >= 0xD800 && cp <= 0xDFFF))
		return 0;
	return n;
}

bool
fsd_name_ok(const char *name)
{
	const unsigned char *s = (const unsigned char *) name;

	if (*s == '\0')
		return false;
	while (*s)
	{
		size_t n = utf8_sequence(s);

		if (n == 0 || *s < 0x20 || *s == 0x7F || (n == 2 && s[0] == 0xC2 && s[1] < 0xA0))
			return false; /* invalid, C0, DEL, C1 */
		s += n;
	}
	return true;
}

bool
fsd_note_name(const char *name)
{
	size_t n = strlen(name);

	return n > 3 && strcmp(name + n - 3, ".md") == 0;
}

static bool
add_entry(struct fsd_scan *out, const char *prefix, const char *name, const struct stat *st)
{
	size_t plen = strlen(prefix), nlen = strlen(name);
	char *rel;

	if (out->n == out->cap)
	{
		size_t cap = out->cap ? out->cap * 2 : 64;
		struct fsd_scan_entry *items = realloc(out->items, cap * sizeof *items);

		if (!items)
			return false;
		out->items = items;
		out->cap = cap;
	}
	rel = malloc(plen + nlen + 2);
	if (!rel)
		return false;
	if (plen)
	{
		memcpy(rel, prefix, plen);
		rel[plen++] = '/';
	}
	memcpy(rel + plen, name, nlen + 1);
	out->items[out->n].rel = rel;
	fsd_ident_of_stat(st, &out->items[out->n].ident);
	out->n++;
	return true;
}

struct walk
{
	const struct fsd_root *root;
	struct fsd_scan *out;
	size_t max_files;
};

static void walk_dir(struct walk *w, int dirfd, const char *prefix, int depth);

/* One entry of a directory: a note to list, a directory to walk, or skipped. */
static void
walk_entry(struct walk *w, int dirfd, const char *prefix, const char *name, int depth)
{
	struct stat st;
	char sub[PATH_MAX];

	if (name[0] == '.')
		return; /* hidden, ".", "..": not counted */
	if (!fsd_name_ok(name))
	{
		w->out->skipped++;
		return;
	}
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
	{
		w->out->skipped++;
		if (errno != ENOENT)
			w->out->partial = true;
		return;
	}
	if (S_ISDIR(st.st_mode) && depth >= FSD_SCAN_MAX_DEPTH)
		w->out->partial = true; /* deeper notes are not listed: they are not gone either */
	if (S_ISDIR(st.st_mode) && (uint64_t) st.st_dev == w->root->dev && depth < FSD_SCAN_MAX_DEPTH &&
		(size_t) snprintf(sub, sizeof sub, "%s%s%s", prefix, *prefix ? "/" : "", name) < sizeof sub)
	{
		int fd = fsd_openat2(dirfd, name, O_RDONLY | O_DIRECTORY, 0, false);

		if (fd >= 0)
			walk_dir(w, fd, sub, depth + 1); /* takes fd */
		else
		{
			enum fsd_status st = fsd_status_of_errno(errno);

			w->out->skipped++;
			/* a symlink or a mount swapped in is policy: nothing below it is
			 * a note; anything else (EMFILE, EACCES, EIO) leaves it unknown */
			if (st != FSD_SYMLINK && st != FSD_OUTSIDE && st != FSD_NOT_FOUND)
				w->out->partial = true;
		}
		return;
	}
	if (!S_ISREG(st.st_mode) || st.st_nlink != 1 || !fsd_note_name(name))
	{
		w->out->skipped++;
		return;
	}
	if (w->out->n >= w->max_files)
	{
		w->out->truncated = true;
		return;
	}
	if (!add_entry(w->out, prefix, name, &st))
		w->out->truncated = true;
}

static void
walk_dir(struct walk *w, int dirfd, const char *prefix, int depth)
{
	DIR *dir = fdopendir(dirfd);
	struct dirent *e;

	if (!dir)
	{
		close(dirfd);
		w->out->skipped++;
		w->out->partial = true;
		return;
	}
	errno = 0;
	while ((e = readdir(dir)) != NULL)
	{
		walk_entry(w, dirfd, prefix, e->d_name, depth);
		errno = 0;
	}
	if (errno != 0)
		w->out->partial = true;
	closedir(dir);
}

static int
by_rel(const void *a, const void *b)
{
	return strcmp(((const struct fsd_scan_entry *) a)->rel, ((const struct fsd_scan_entry *) b)->rel);
}

enum fsd_status
fsd_scan(const struct fsd_root *root, size_t max_files, struct fsd_scan *out)
{
	struct walk w = {root, out, max_files};
	int fd;

	memset(out, 0, sizeof *out);
	fd = fsd_openat2(root->fd, ".", O_RDONLY | O_DIRECTORY, 0, false);
	if (fd < 0)
		return fsd_status_of_errno(errno);
	walk_dir(&w, fd, "", 0);
	qsort(out->items, out->n, sizeof *out->items, by_rel);
	return FSD_OK;
}

void
fsd_scan_free(struct fsd_scan *scan)
{
	for (size_t i = 0; i < scan->n; i++)
		free(scan->items[i].rel);
	free(scan->items);
	memset(scan, 0, sizeof *scan);
}
