/*
 * Settings of mcp-notes-fsd: one table (config.c) drives the defaults, the
 * environment, the flags and --help.  fsd_cfg is written by fsd_config_load
 * before anything else runs and only read afterwards.
 */
#ifndef FSD_CONFIG_H
#define FSD_CONFIG_H

#include <stdbool.h>

#define FSD_VERSION "1.0.0"

struct fsd_config
{
	char *db;     /* libpq conninfo; empty: libpq's environment */
	char *volume; /* the storage volume this daemon serves */
	char *base;   /* the directory the workspace roots are below */
	long scan_interval_ms;
	long recover_interval_ms;
	long max_files;
	char *log_level;
	bool probe; /* --probe: report whether file mode can run, and exit */

	int log_level_num; /* derived */
};

extern struct fsd_config fsd_cfg;

/* Defaults, then the environment, then argv.  0: run; 1: exit 0 (--help,
 * --version); -1: an error was printed (exit 2). */
int fsd_config_load(int argc, char **argv);

#endif
