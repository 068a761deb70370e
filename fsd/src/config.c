#include "config.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

struct fsd_config fsd_cfg;

enum kind
{
	TEXT,
	NUMBER,
	FLAG
};

struct setting
{
	const char *flag; /* without the leading "--" */
	const char *env;
	enum kind kind;
	size_t offset;
	const char *def;
	long min, max;
	const char *help;
};

#define AT(field) offsetof(struct fsd_config, field)

static const struct setting settings[] = {
	{"db", "MCP_NOTES_FSD_DB", TEXT, AT(db), "", 0, 0,
	 "libpq connection string of the database (password: PGPASSWORD or ~/.pgpass)"},
	{"volume", "MCP_NOTES_FSD_VOLUME", TEXT, AT(volume), "", 0, 0,
	 "name of the storage volume this daemon serves (register_file_volume); required"},
	{"base", "MCP_NOTES_FSD_BASE", TEXT, AT(base), "", 0, 0,
	 "directory that holds the workspace roots of the volume; required"},
	{"scan-interval-ms", "MCP_NOTES_FSD_SCAN_INTERVAL_MS", NUMBER, AT(scan_interval_ms), "2000", 100, 3600000,
	 "how often each root is scanned for changes made on disk"},
	{"recover-interval-ms", "MCP_NOTES_FSD_RECOVER_INTERVAL_MS", NUMBER, AT(recover_interval_ms), "60000",
	 100, 3600000, "how often every unfinished file operation is looked at again (also at start)"},
	{"max-files", "MCP_NOTES_FSD_MAX_FILES", NUMBER, AT(max_files), "100000", 1, 10000000,
	 "most notes a scan lists per root; beyond that the scan reports no removals"},
	{"log-level", "MCP_NOTES_FSD_LOG_LEVEL", TEXT, AT(log_level), "info", 0, 0, "error, warn, info or debug"},
	{"probe", NULL, FLAG, AT(probe), "0", 0, 1,
	 "check that openat2 with every resolve flag works here, and exit"},
};

#define N_SETTINGS (sizeof settings / sizeof settings[0])

static int
set_value(const struct setting *s, const char *value, const char *from)
{
	char *field = (char *) &fsd_cfg + s->offset;

	if (s->kind == TEXT)
	{
		free(*(char **) field);
		*(char **) field = strdup(value);
		return *(char **) field ? 0 : -1;
	}
	if (s->kind == FLAG)
	{
		*(bool *) field = strcmp(value, "0") != 0;
		return 0;
	}
	{
		char *end;
		long v;

		errno = 0;
		v = strtol(value, &end, 10);
		if (errno || end == value || *end || v < s->min || v > s->max)
		{
			fprintf(stderr, "mcp-notes-fsd: %s %s: a number from %ld to %ld is needed, not \"%s\"\n", from,
					s->flag, s->min, s->max, value);
			return -1;
		}
		*(long *) field = v;
		return 0;
	}
}

static void
usage(void)
{
	printf("Usage: mcp-notes-fsd [OPTION...]\n"
		   "Executes the file operations of the file-backed workspaces of one storage volume:\n"
		   "what the mcp_notes extension decided, below each registered root, never outside it.\n\n");
	for (size_t i = 0; i < N_SETTINGS; i++)
	{
		const struct setting *s = &settings[i];

		printf("  --%-22s %s", s->flag, s->help);
		if (s->kind != FLAG && s->def[0])
			printf(" (default %s)", s->def);
		if (s->env)
			printf(" [env %s]", s->env);
		printf("\n");
	}
	printf("  --%-22s %s\n  --%-22s %s\n", "help", "this text", "version", "the version");
}

static const struct setting *
find_flag(const char *arg, const char **inline_value)
{
	*inline_value = NULL;
	if (strncmp(arg, "--", 2) != 0)
		return NULL;
	arg += 2;
	for (size_t i = 0; i < N_SETTINGS; i++)
	{
		size_t n = strlen(settings[i].flag);

		if (strncmp(arg, settings[i].flag, n) == 0 && (arg[n] == '\0' || arg[n] == '='))
		{
			*inline_value = arg[n] == '=' ? arg + n + 1 : NULL;
			return &settings[i];
		}
	}
	return NULL;
}

static int
load_argv(int argc, char **argv)
{
	for (int i = 1; i < argc; i++)
	{
		const char *value;
		const struct setting *s;

		if (strcmp(argv[i], "--help") == 0)
		{
			usage();
			return 1;
		}
		if (strcmp(argv[i], "--version") == 0)
		{
			printf("mcp-notes-fsd %s\n", FSD_VERSION);
			return 1;
		}
		s = find_flag(argv[i], &value);
		if (!s)
		{
			fprintf(stderr, "mcp-notes-fsd: unknown option \"%s\" (see --help)\n", argv[i]);
			return -1;
		}
		if (s->kind == FLAG && !value)
			value = "1";
		else if (!value && ++i < argc)
			value = argv[i];
		if (!value)
		{
			fprintf(stderr, "mcp-notes-fsd: --%s needs a value\n", s->flag);
			return -1;
		}
		if (set_value(s, value, "option") != 0)
			return -1;
	}
	return 0;
}

int
fsd_config_load(int argc, char **argv)
{
	int rc;

	for (size_t i = 0; i < N_SETTINGS; i++)
	{
		const char *env = settings[i].env ? getenv(settings[i].env) : NULL;

		if (set_value(&settings[i], settings[i].def, "default") != 0 ||
			(env && set_value(&settings[i], env, settings[i].env) != 0))
			return -1;
	}
	if ((rc = load_argv(argc, argv)) != 0)
		return rc;
	fsd_cfg.log_level_num = fsd_log_level_from_name(fsd_cfg.log_level);
	if (fsd_cfg.log_level_num < 0)
	{
		fprintf(stderr, "mcp-notes-fsd: --log-level must be error, warn, info or debug\n");
		return -1;
	}
	if (!fsd_cfg.probe && (!fsd_cfg.volume[0] || !fsd_cfg.base[0]))
	{
		fprintf(stderr, "mcp-notes-fsd: --volume and --base are required (see --help)\n");
		return -1;
	}
	return 0;
}
