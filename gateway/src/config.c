/*
 * config.c
 *		The settings table of mcp-notes-gateway and its loader.
 *
 * Every setting is one row below: flag name, environment variable, type,
 * default and help text.  Defaults, environment parsing, flag parsing and
 * --help are all generated from the table, so they cannot drift apart.
 * Precedence: built-in default < environment < command line.
 */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <arpa/inet.h>

#include "clientaddr.h"
#include "log.h"
#include "version.h"

struct gw_config gw_cfg;

enum setting_type
{
	SET_STRING,
	SET_INT,
	SET_SIZE,					/* bytes, optional k/K or m/M suffix (KiB, MiB) */
	SET_FLAG					/* no value on the command line: present = 1 */
};

struct setting
{
	const char *name;			/* --name */
	const char *env;			/* environment variable, NULL = flag only */
	const char *alias;			/* an older --name still accepted, or NULL */
	const char *alias_env;		/* an older environment variable still read, or NULL */
	enum setting_type type;
	size_t		offset;			/* into struct gw_config */
	const char *def;			/* default as text; NULL = unset */
	long		min;
	long		max;
	const char *metavar;
	const char *help;
};

#define OFF(f) offsetof(struct gw_config, f)

static const struct setting settings[] = {
	{"listen", "MCP_NOTES_LISTEN", NULL, NULL, SET_STRING, OFF(listen), "127.0.0.1:8080", 0, 0,
	"HOST:PORT", "Address to listen on; [::1]:PORT for IPv6, port 0 picks a free port (logged)."},
	{"db", "MCP_NOTES_DB", NULL, NULL, SET_STRING, OFF(db), "", 0, 0,
	"CONNINFO", "libpq connection string or URI of the database with the mcp_notes extension; empty uses the PG* environment."},
	{"max-connections", "MCP_NOTES_MAX_CONNECTIONS", "threads", "MCP_NOTES_THREADS", SET_INT, OFF(max_connections), "64", 1, 10000,
	"N", "Maximum concurrent HTTP connections (further ones are refused at accept) and the most worker threads, which run the requests that wait on the database. --threads and MCP_NOTES_THREADS are accepted as older names."},
	{"io-threads", "MCP_NOTES_IO_THREADS", NULL, NULL, SET_INT, OFF(io_threads), "0", 0, 64,
	"N", "Event threads that read, check and answer HTTP requests without blocking; 0 = one per CPU."},
	{"max-connections-per-ip", "MCP_NOTES_MAX_CONNECTIONS_PER_IP", NULL, NULL, SET_INT, OFF(max_connections_per_ip), "0", 0, 10000,
	"N", "Maximum concurrent HTTP connections from one client address, so idle or slow clients on one host cannot take every connection; 0 = half of --max-connections (rounded up). Keep a load balancer's per-gateway connection cap below it."},
	{"connection-timeout", "MCP_NOTES_CONNECTION_TIMEOUT", NULL, NULL, SET_INT, OFF(connection_timeout), "30", 1, 3600,
	"SECONDS", "Idle HTTP connections (keep-alive included) are closed after this many seconds."},
	{"pool-size", "MCP_NOTES_POOL_SIZE", NULL, NULL, SET_INT, OFF(pool_size), "8", 1, 1000,
	"N", "Maximum database connections."},
	{"pool-acquire-timeout-ms", "MCP_NOTES_POOL_ACQUIRE_TIMEOUT_MS", NULL, NULL, SET_INT, OFF(pool_acquire_timeout_ms), "2000", 1, 600000,
	"MS", "How long a request waits for a pooled connection before failing with HTTP 503."},
	{"pool-max-lifetime", "MCP_NOTES_POOL_MAX_LIFETIME", NULL, NULL, SET_INT, OFF(pool_max_lifetime), "3600", 1, 604800,
	"SECONDS", "Database connections older than this are closed when returned to the pool."},
	{"max-body", "MCP_NOTES_MAX_BODY", NULL, NULL, SET_SIZE, OFF(max_body), "1M", 64, 1024L * 1024 * 1024,
	"BYTES", "Largest accepted request body (suffix k or m for KiB, MiB); larger bodies get HTTP 413."},
	{"trusted-proxies", "MCP_NOTES_TRUSTED_PROXIES", NULL, NULL, SET_STRING, OFF(trusted_proxies), "", 0, 0,
	"CIDR[,CIDR]", "Peers (a load balancer) whose last X-Forwarded-For hop is taken as the client address in logs; empty trusts none, and the header is ignored from every other peer."},
	{"allowed-origins", "MCP_NOTES_ALLOWED_ORIGINS", NULL, NULL, SET_STRING, OFF(allowed_origins), "", 0, 0,
	"LIST", "Comma-separated exact Origin values accepted; empty accepts only http(s) origins on localhost, 127.0.0.1 and [::1]. Requests without Origin are always accepted."},
	{"gateway-id", "MCP_NOTES_GATEWAY_ID", NULL, NULL, SET_STRING, OFF(gateway_id), "", 0, 0,
	"ID", "Name of this gateway in logs, audit rows and application_name; default HOSTNAME-PID."},
	{"log-level", "MCP_NOTES_LOG_LEVEL", NULL, NULL, SET_STRING, OFF(log_level), "info", 0, 0,
	"LEVEL", "error, warn, info or debug (debug adds /healthz and /readyz lines)."},
	{"insecure-dev-principal", NULL, NULL, NULL, SET_STRING, OFF(insecure_dev_principal), NULL, 0, 0,
	"NAME", "Development only: no bearer tokens, every request acts as NAME (needs grant_dev_gateway; refused unless listening on loopback)."},
	{"drain-timeout-ms", "MCP_NOTES_DRAIN_TIMEOUT_MS", NULL, NULL, SET_INT, OFF(drain_timeout_ms), "10000", 0, 3600000,
	"MS", "On SIGTERM/SIGINT, how long in-flight requests may finish before queries are cancelled."},
	{"tool-call-attempts", "MCP_NOTES_TOOL_CALL_ATTEMPTS", NULL, NULL, SET_INT, OFF(tool_call_attempts), "8", 1, 100,
	"N", "Attempts of one tools/call on serialization failure or deadlock (SQLSTATE 40001/40P01)."},
	{"auth-cache-ms", "MCP_NOTES_AUTH_CACHE_MS", NULL, NULL, SET_INT, OFF(auth_cache_ms), "1000", 0, 60000,
	"MS", "How long a token the database accepted is reused for tools/list and server/discover (never for tools/call); any change to the tokens table forgets it at once (LISTEN/NOTIFY). 0 = ask the database every time."},
	{"audit-tick-ms", "MCP_NOTES_AUDIT_TICK_MS", NULL, NULL, SET_INT, OFF(audit_tick_ms), "5000", 0, 3600000,
	"MS", "How often this gateway calls mcp_notes.audit_tick() (links committed audit rows into the hash chain, folds the note-version accounting) and logs the chain's head when it moved (event audit_head). 0 = never (then cron must call it)."},
	{"metrics-listen", "MCP_NOTES_METRICS_LISTEN", NULL, NULL, SET_STRING, OFF(metrics_listen), "", 0, 0,
	"HOST:PORT", "Address of a second listener serving GET /metrics (Prometheus text, no authentication: keep it on loopback or a private network); empty = no metrics."},
	{"stdio", NULL, NULL, NULL, SET_FLAG, OFF(stdio), "0", 0, 1,
	"", "Serve one client on stdin/stdout (newline-delimited JSON-RPC, both eras) instead of HTTP; the bearer token is MCP_NOTES_TOKEN; logs stay on stderr; exits 0 at end of input."},
	{"legacy-session-ttl", "MCP_NOTES_LEGACY_SESSION_TTL", NULL, NULL, SET_INT, OFF(legacy_session_ttl), "3600", 1, 86400,
	"SECONDS", "Legacy era (2025-11-25 and older): an Mcp-Session-Id unused this long expires (every request renews it)."},
	{"legacy-wait-ms", "MCP_NOTES_LEGACY_WAIT_MS", NULL, NULL, SET_INT, OFF(legacy_wait_ms), "60000", 100, 86400000,
	"MS", "Legacy era: how long a tools/call stream waits for the client's answer to a server request (elicitation/create), time enough for a human to read a form and answer, before it ends with a tool error."},
	{"public-url", "MCP_NOTES_PUBLIC_URL", NULL, NULL, SET_STRING, OFF(public_url), "", 0, 0,
	"URL", "The endpoint's public URL as clients reach it (https://notes.example/mcp; http only on loopback): the OAuth resource of RFC 8707, served as Protected Resource Metadata at /.well-known/oauth-protected-resource[/PATH] and named in every 401; never derived from Host. It must equal the database's mcp_notes.oauth_resource. Empty = no metadata (operator tokens only)."},
	{"authorization-servers", "MCP_NOTES_AUTHORIZATION_SERVERS", NULL, NULL, SET_STRING, OFF(authorization_servers), "", 0, 0,
	"LIST", "Comma-separated issuer URLs the Protected Resource Metadata names (needed with --public-url); the database trusts only the issuers added with mcp_notes.add_oauth_issuer."},
	{"max-listen-streams", "MCP_NOTES_MAX_LISTEN_STREAMS", NULL, NULL, SET_INT, OFF(max_listen_streams), "16", 0, 100000,
	"N", "Streams of change notifications this gateway holds at once (subscriptions/listen, the 2025-era GET stream); each holds a worker thread, so keep it below --max-connections. More are refused (-32603, HTTP 200); 0 = none."},
};

#define N_SETTINGS (sizeof(settings) / sizeof(settings[0]))

static void config_error(const char *fmt,...) __attribute__((format(printf, 1, 2)));

/*
 * A configuration error, as one JSON line (event config_error) like every
 * other line the gateway writes; the log is not initialised yet, so the
 * line has an empty gateway id.
 */
static void
config_error(const char *fmt,...)
{
	char		msg[600];
	va_list		ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	msg[strcspn(msg, "\n")] = '\0';
	log_event(GW_LOG_ERROR, "config_error", "%s", msg);
}

static void
usage(FILE *out)
{
	fprintf(out,
			"Usage: mcp-notes-gateway [OPTION]...\n"
			"Stateless MCP %s server (Streamable HTTP, POST /mcp; also the 2025-11-25 era\n"
			"with sessions) in front of the PostgreSQL extension mcp_notes.  Endpoints:\n"
			"POST /mcp, DELETE /mcp, GET /healthz, GET /readyz, with --public-url GET\n"
			"/.well-known/oauth-protected-resource[/PATH] (and GET /metrics on\n"
			"--metrics-listen); or --stdio.\n\n"
			"Options (flag, environment variable, default):\n",
			GW_PROTOCOL_VERSION);
	for (size_t i = 0; i < N_SETTINGS; i++)
	{
		const struct setting *s = &settings[i];
		char		flag[80];

		snprintf(flag, sizeof(flag), s->type == SET_FLAG ? "--%s%s" : "--%s %s", s->name, s->metavar);
		fprintf(out, "  %-36s %s\n", flag, s->help);
		fprintf(out, "  %-36s [env %s; default %s]\n", "",
				s->env ? s->env : "none, flag only",
				s->def == NULL ? "unset" : (s->def[0] == '\0' ? "empty" : s->def));
		if (s->alias)
			fprintf(out, "  %-36s [also --%s, env %s]\n", "", s->alias, s->alias_env ? s->alias_env : "none");
	}
	fprintf(out, "  %-36s %s\n", "--help", "Print this help and exit.");
	fprintf(out, "  %-36s %s\n", "--version", "Print the version and exit.");
	fprintf(out, "\nSignals: SIGTERM or SIGINT drain in-flight requests and exit 0.\n");
}

static bool
parse_long(const char *text, long *out)
{
	char	   *end;
	long		v;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || *end != '\0')
		return false;
	*out = v;
	return true;
}

static bool
parse_size(const char *text, long *out)
{
	char	   *end;
	long		v;
	long		mult = 1;

	errno = 0;
	v = strtol(text, &end, 10);
	if (errno != 0 || end == text || v < 0)
		return false;
	if (*end == 'k' || *end == 'K')
		mult = 1024, end++;
	else if (*end == 'm' || *end == 'M')
		mult = 1024 * 1024, end++;
	if (*end != '\0' || v > LONG_MAX / mult)
		return false;
	*out = v * mult;
	return true;
}

static int
apply_setting(const struct setting *s, const char *value, const char *source)
{
	char	   *base = (char *) &gw_cfg;

	if (s->type == SET_STRING)
	{
		char	  **slot = (char **) (base + s->offset);

		free(*slot);
		*slot = value ? strdup(value) : NULL;
		if (value && *slot == NULL)
			return -1;
		return 0;
	}
	else
	{
		long	   *slot = (long *) (base + s->offset);
		long		v;
		bool		ok = s->type == SET_SIZE ? parse_size(value, &v) : parse_long(value, &v);

		if (!ok || v < s->min || v > s->max)
		{
			config_error("invalid value \"%s\" for %s %s (expected %s in %ld..%ld)\n",
					value, source, s->name, s->type == SET_INT ? "an integer" : "a size", s->min, s->max);
			return -1;
		}
		*slot = v;
		return 0;
	}
}

static const struct setting *
find_setting(const char *name, size_t len)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
	{
		const char *alias = settings[i].alias;

		if ((strlen(settings[i].name) == len && strncmp(settings[i].name, name, len) == 0) ||
			(alias && strlen(alias) == len && strncmp(alias, name, len) == 0))
			return &settings[i];
	}
	return NULL;
}

static bool
addr_is_loopback(const struct sockaddr *sa)
{
	if (sa->sa_family == AF_INET)
	{
		const struct sockaddr_in *in = (const struct sockaddr_in *) sa;

		return (ntohl(in->sin_addr.s_addr) >> 24) == 127;
	}
	if (sa->sa_family == AF_INET6)
	{
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *) sa;

		if (IN6_IS_ADDR_LOOPBACK(&in6->sin6_addr))
			return true;
		if (IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr))
			return in6->sin6_addr.s6_addr[12] == 127;
	}
	return false;
}

/* HOST:PORT or [HOST]:PORT of the setting --flag -> *addr */
static int
resolve_address(const char *flag, const char *text, struct sockaddr_storage *addr, socklen_t *addrlen)
{
	char		host[256];
	const char *port;
	struct addrinfo hints;
	struct addrinfo *res = NULL;
	int			rc;

	if (text[0] == '[')
	{
		const char *close = strchr(text, ']');

		if (close == NULL || close[1] != ':' || (size_t) (close - text - 1) >= sizeof(host))
			goto bad;
		memcpy(host, text + 1, close - text - 1);
		host[close - text - 1] = '\0';
		port = close + 2;
	}
	else
	{
		const char *colon = strrchr(text, ':');

		if (colon == NULL || (size_t) (colon - text) >= sizeof(host) || strchr(text, ':') != colon)
			goto bad;
		memcpy(host, text, colon - text);
		host[colon - text] = '\0';
		port = colon + 1;
	}
	if (host[0] == '\0' || port[0] == '\0')
		goto bad;

	memset(&hints, 0, sizeof(hints));
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0 || res == NULL)
	{
		config_error("cannot resolve --%s %s: %s\n", flag, text, gai_strerror(rc));
		return -1;
	}
	memcpy(addr, res->ai_addr, res->ai_addrlen);
	*addrlen = res->ai_addrlen;
	freeaddrinfo(res);
	return 0;

bad:
	config_error("--%s expects HOST:PORT or [IPV6]:PORT, got \"%s\"\n", flag, text);
	return -1;
}

static int
resolve_listen(const char *text)
{
	socklen_t	len = 0;

	if (resolve_address("listen", text, &gw_cfg.listen_addr, &gw_cfg.listen_addrlen) != 0)
		return -1;
	gw_cfg.listen_ipv6 = gw_cfg.listen_addr.ss_family == AF_INET6;
	gw_cfg.listen_loopback = addr_is_loopback((const struct sockaddr *) &gw_cfg.listen_addr);
	if (gw_cfg.metrics_listen[0] == '\0')
		return 0;
	return resolve_address("metrics-listen", gw_cfg.metrics_listen, &gw_cfg.metrics_addr, &len);
}

static int
split_origins(const char *list)
{
	const char *p = list;

	while (*p)
	{
		const char *start;
		const char *end;
		char	  **grown;

		while (*p == ' ' || *p == '\t' || *p == ',')
			p++;
		if (*p == '\0')
			break;
		start = p;
		while (*p && *p != ',')
			p++;
		end = p;
		while (end > start && (end[-1] == ' ' || end[-1] == '\t'))
			end--;
		grown = realloc(gw_cfg.origins, (gw_cfg.n_origins + 1) * sizeof(char *));
		if (grown == NULL)
			return -1;
		gw_cfg.origins = grown;
		gw_cfg.origins[gw_cfg.n_origins] = strndup(start, end - start);
		if (gw_cfg.origins[gw_cfg.n_origins] == NULL)
			return -1;
		gw_cfg.n_origins++;
	}
	return 0;
}

static int
apply_defaults(void)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
		if (settings[i].def && apply_setting(&settings[i], settings[i].def, "default") != 0)
			return -1;
	return 0;
}

/* the environment: a setting's own variable wins over its older name */
static int
apply_environment(void)
{
	for (size_t i = 0; i < N_SETTINGS; i++)
	{
		const struct setting *s = &settings[i];
		const char *v = s->env ? getenv(s->env) : NULL;
		const char *source = s->env;

		if (v == NULL && s->alias_env && (v = getenv(s->alias_env)) != NULL)
			source = s->alias_env;
		if (v != NULL && apply_setting(s, v, source) != 0)
			return -1;
	}
	return 0;
}

/* one argument at argv[*i] (and its value); 1 = exit 0 (--help, --version) */
static int
apply_argument(int argc, char **argv, int *i)
{
	const char *arg = argv[*i];
	const char *eq;
	const char *value;
	const struct setting *s;

	if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0)
	{
		usage(stdout);
		return 1;
	}
	if (strcmp(arg, "--version") == 0)
	{
		printf("mcp-notes-gateway %s (MCP %s, extension contract %d)\n", GW_VERSION, GW_PROTOCOL_VERSION, GW_CONTRACT);
		return 1;
	}
	if (strncmp(arg, "--", 2) != 0)
	{
		config_error("unexpected argument \"%s\" (try --help)\n", arg);
		return -1;
	}
	eq = strchr(arg + 2, '=');
	s = find_setting(arg + 2, eq ? (size_t) (eq - arg - 2) : strlen(arg + 2));
	if (s == NULL)
	{
		config_error("unknown option \"%s\" (try --help)\n", arg);
		return -1;
	}
	if (s->type == SET_FLAG && eq == NULL)
		value = "1";
	else if (eq)
		value = eq + 1;
	else if (*i + 1 < argc)
		value = argv[++*i];
	else
	{
		config_error("option --%s needs a value\n", s->name);
		return -1;
	}
	return apply_setting(s, value, "option --");
}

/* --gateway-id: default HOSTNAME-PID; it is the application_name */
static int
derive_gateway_id(void)
{
	if (gw_cfg.gateway_id == NULL || gw_cfg.gateway_id[0] == '\0')
	{
		char		host[256] = "gateway";
		char		id[300];

		if (gethostname(host, sizeof(host)) != 0)
			strcpy(host, "gateway");
		host[sizeof(host) - 1] = '\0';
		snprintf(id, sizeof(id), "%s-%ld", host, (long) getpid());
		free(gw_cfg.gateway_id);
		gw_cfg.gateway_id = strdup(id);
		if (gw_cfg.gateway_id == NULL)
			return -1;
	}
	if (strlen(gw_cfg.gateway_id) > 63)
	{
		config_error("--gateway-id must be at most 63 bytes (it is the application_name)\n");
		return -1;
	}
	for (const char *p = gw_cfg.gateway_id; *p; p++)
		if ((unsigned char) *p < 0x21 || (unsigned char) *p > 0x7e)
		{
			config_error("--gateway-id must be printable ASCII without spaces\n");
			return -1;
		}
	return 0;
}

/* the connection limits and event threads, within --max-connections */
static void
derive_limits(void)
{
	/* one client address may hold at most this many of the --max-connections slots */
	if (gw_cfg.max_connections_per_ip == 0)
		gw_cfg.max_connections_per_ip = (gw_cfg.max_connections + 1) / 2;
	if (gw_cfg.max_connections_per_ip > gw_cfg.max_connections)
		gw_cfg.max_connections_per_ip = gw_cfg.max_connections;
	/* libmicrohttpd divides the connection limit among its event threads */
	gw_cfg.io_threads_num = gw_cfg.io_threads;
	if (gw_cfg.io_threads_num == 0)
	{
		long		cpus = sysconf(_SC_NPROCESSORS_ONLN);

		gw_cfg.io_threads_num = cpus < 1 ? 1 : (cpus > 64 ? 64 : cpus);
	}
	if (gw_cfg.io_threads_num > gw_cfg.max_connections)
		gw_cfg.io_threads_num = gw_cfg.max_connections;
}

static int
check_dev_principal(void)
{
	if (gw_cfg.insecure_dev_principal == NULL)
		return 0;
	if (gw_cfg.insecure_dev_principal[0] == '\0')
	{
		config_error("--insecure-dev-principal needs a principal name\n");
		return -1;
	}
	if (!gw_cfg.listen_loopback)
	{
		config_error("refusing --insecure-dev-principal: it turns authentication off, "
				"so the gateway must listen on a loopback address only (not %s)\n", gw_cfg.listen);
		return -1;
	}
	return 0;
}

/* derived values and cross-checks, once every setting is known */
static int
derive(void)
{
	char		problem[200];

	gw_cfg.log_level_num = log_level_from_name(gw_cfg.log_level);
	if (gw_cfg.log_level_num < 0)
	{
		config_error("--log-level must be error, warn, info or debug\n");
		return -1;
	}
	if (derive_gateway_id() != 0)
		return -1;
	derive_limits();
	if (resolve_listen(gw_cfg.listen) != 0 || split_origins(gw_cfg.allowed_origins) != 0)
		return -1;
	if (clientaddr_set_trusted(gw_cfg.trusted_proxies, problem, sizeof(problem)) != 0)
	{
		config_error("--trusted-proxies: %s\n", problem);
		return -1;
	}
	return check_dev_principal();
}

int
config_load(int argc, char **argv)
{
	memset(&gw_cfg, 0, sizeof(gw_cfg));
	if (apply_defaults() != 0 || apply_environment() != 0)
		return -1;
	for (int i = 1; i < argc; i++)
	{
		int			rc = apply_argument(argc, argv, &i);

		if (rc != 0)
			return rc;
	}
	return derive();
}

void
config_free(void)
{
	char	   *base = (char *) &gw_cfg;

	for (size_t i = 0; i < N_SETTINGS; i++)
		if (settings[i].type == SET_STRING)
		{
			char	  **slot = (char **) (base + settings[i].offset);

			free(*slot);
			*slot = NULL;
		}
	for (size_t i = 0; i < gw_cfg.n_origins; i++)
		free(gw_cfg.origins[i]);
	free(gw_cfg.origins);
	gw_cfg.origins = NULL;
	gw_cfg.n_origins = 0;
	clientaddr_clear_trusted();
}
