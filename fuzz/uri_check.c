/*
 * uri_check.c
 *		A plain driver for the fuzz target, for machines without clang: runs
 *		the reference's self-test, then every file named (or every file in
 *		every directory named) through LLVMFuzzerTestOneInput.  Any invariant
 *		violation aborts, exactly as under libFuzzer.
 */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

extern int	LLVMFuzzerInitialize(int *argc, char ***argv);
extern int	LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static long files;

static void
run_file(const char *path)
{
	FILE	   *f = fopen(path, "rb");
	uint8_t    *buf;
	long		n;

	if (f == NULL || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 ||
		fseek(f, 0, SEEK_SET) != 0)
	{
		perror(path);
		exit(2);
	}
	buf = malloc(n ? (size_t) n : 1);
	if (buf == NULL || fread(buf, 1, (size_t) n, f) != (size_t) n)
	{
		perror(path);
		exit(2);
	}
	fclose(f);
	LLVMFuzzerTestOneInput(buf, (size_t) n);
	free(buf);
	files++;
}

static void
run_path(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0)
	{
		perror(path);
		exit(2);
	}
	if (S_ISDIR(st.st_mode))
	{
		struct dirent **names;
		int			n = scandir(path, &names, NULL, alphasort);
		int			i;

		if (n < 0)
		{
			perror(path);
			exit(2);
		}
		for (i = 0; i < n; i++)
		{
			char		child[4096];

			if (names[i]->d_name[0] != '.')
			{
				snprintf(child, sizeof(child), "%s/%s", path, names[i]->d_name);
				run_path(child);
			}
			free(names[i]);
		}
		free(names);
	}
	else
		run_file(path);
}

int
main(int argc, char **argv)
{
	int			i;

	LLVMFuzzerInitialize(&argc, &argv);	/* aborts if the reference fails its table */
	for (i = 1; i < argc; i++)
		run_path(argv[i]);
	printf("uri_check: reference self-test passed; %ld inputs, all invariants hold\n", files);
	return 0;
}
