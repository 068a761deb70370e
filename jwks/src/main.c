/*
 * main.c
 *		mcp-notes-jwks: settings and the refresh loop.
 *
 * Every issuer of mcp_notes.jwks_issuers() is fetched when first seen and
 * then every --refresh-seconds.  The extension NOTIFYs mcp_notes_jwks with
 * an issuer when a token names a key id it does not know (the issuer may
 * have rotated its keys) and when an operator adds an issuer: that issuer is
 * fetched at once, but at most once per --min-interval-seconds, so tokens
 * with made-up key ids cannot make this program hammer the issuer.  Between
 * fetches it waits on the connection's socket, holding nothing else.
 */
#include "jwks.h"

#include <errno.h>
#include <getopt.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

struct jwks_config jwks_cfg = {
	.db = "", .refresh_s = 300, .min_interval_s = 10, .timeout_ms = 10000, .max_bytes = 1024 * 1024,
};

/* what this process remembers of an issuer between fetches */
struct seen
{
	char	   *issuer;
	double		last;			/* monotonic seconds of the last attempt; 0 = never */
	bool		pending;		/* asked for early, not yet fetched */
};

static struct seen seen[JWKS_MAX_ISSUERS];
static int	n_seen;
static volatile sig_atomic_t stopping;

static double
now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double) ts.tv_sec + (double) ts.tv_nsec / 1e9;
}

static struct seen *
seen_of(const char *issuer)
{
	for (int i = 0; i < n_seen; i++)
		if (strcmp(seen[i].issuer, issuer) == 0)
			return &seen[i];
	if (n_seen == JWKS_MAX_ISSUERS)
		return NULL;
	seen[n_seen].issuer = strdup(issuer);
	seen[n_seen].last = 0;
	seen[n_seen].pending = false;
	return seen[n_seen].issuer ? &seen[n_seen++] : NULL;
}

/* fetch and store one issuer's keys; true when stored */
static bool
refresh(const struct issuer *is)
{
	char	   *jwks_uri = NULL;
	char	   *jwks_text = NULL;
	char		problem[600];
	char		kept_text[16];
	int			kept = -1;

	if (fetch_jwks(is->issuer, is->metadata_url, &jwks_uri, &jwks_text, problem, sizeof(problem)) == 0)
		kept = store_keys(is->issuer, jwks_uri, jwks_text);
	if (kept >= 0)
	{
		snprintf(kept_text, sizeof(kept_text), "%d", kept);
		jlog(JLOG_INFO, "jwks_stored", "issuer", is->issuer, "jwks_uri", jwks_uri, "keys", kept_text, NULL);
	}
	else if (jwks_text == NULL)
	{
		jlog(JLOG_WARN, "jwks_fetch_failed", "issuer", is->issuer, "detail", problem, NULL);
		store_failure(is->issuer, problem);
	}
	free(jwks_uri);
	free(jwks_text);
	return kept >= 0;
}

/*
 * One pass over the issuers: fetch those due (never fetched, refresh_s old,
 * or asked for and min_interval_s old).  Returns the seconds until the next
 * is due; *failures counts the fetches that failed.
 */
static double
pass(bool force, int *failures)
{
	struct issuer *list;
	int			n;
	double		wait = (double) jwks_cfg.refresh_s;

	if (store_issuers(&list, &n) != 0)
		return -1;
	for (int i = 0; i < n && !stopping; i++)
	{
		struct seen *s = seen_of(list[i].issuer);
		double		t = now_s();
		double		age = s && s->last > 0 ? t - s->last : 1e18;
		bool		due = force || age >= (double) jwks_cfg.refresh_s ||
			(s && s->pending && age >= (double) jwks_cfg.min_interval_s);

		if (due)
		{
			if (!refresh(&list[i]))
				(*failures)++;
			if (s)
			{
				s->last = now_s();
				s->pending = false;
			}
			age = 0;
		}
		if (s && s->pending && jwks_cfg.min_interval_s - age < wait)
			wait = jwks_cfg.min_interval_s - age;
		if (jwks_cfg.refresh_s - age < wait)
			wait = jwks_cfg.refresh_s - age;
	}
	store_free_issuers(list, n);
	return wait < 0.05 ? 0.05 : wait;
}

/* notifications -> pending issuers; false when the connection was lost */
static bool
take_notifications(void)
{
	char	   *names[JWKS_MAX_ISSUERS];
	int			n = 0;
	bool		all = false;

	if (store_notifications(names, JWKS_MAX_ISSUERS, &n, &all) != 0)
		return false;
	for (int i = 0; i < n; i++)
	{
		struct seen *s = seen_of(names[i]);

		if (s)
			s->pending = true;
		free(names[i]);
	}
	for (int i = 0; all && i < n_seen; i++)
		seen[i].pending = true;
	return true;
}

/* wait for a notification, a signal or the timeout; false when the connection was lost */
static bool
wait_for(double seconds)
{
	struct pollfd p = {.fd = store_socket(), .events = POLLIN};
	int			rc = poll(&p, 1, (int) (seconds * 1000.0));

	if (rc < 0 && errno != EINTR)
		return false;
	return rc <= 0 || take_notifications();
}

static void
on_signal(int sig)
{
	(void) sig;
	stopping = 1;
}

static int
run_loop(void)
{
	int			backoff = 1;

	while (!stopping)
	{
		int			failures = 0;
		double		wait;

		if (!store_connected() && store_connect() != 0)
		{
			struct timespec ts = {.tv_sec = backoff};

			nanosleep(&ts, NULL);
			backoff = backoff < 30 ? backoff * 2 : 30;
			continue;
		}
		backoff = 1;
		if (!take_notifications() || (wait = pass(false, &failures)) < 0 || !wait_for(wait))
			store_disconnect();	/* reconnect, and fetch what became due meanwhile */
	}
	jlog(JLOG_INFO, "stopped", NULL);
	return 0;
}

static void
usage(FILE *out)
{
	fprintf(out,
			"Usage: mcp-notes-jwks [OPTION]...\n"
			"Keeps the signing keys (JWKS) of the OAuth issuers configured in mcp_notes\n"
			"(mcp_notes.add_oauth_issuer) in the database: reads each issuer's metadata,\n"
			"then its jwks_uri, and stores the public keys with mcp_notes.jwks_store().\n"
			"Run it as a role given mcp_notes.grant_jwks_fetcher(); never as a gateway.\n\n"
			"  --db CONNINFO               libpq connection string (env MCP_NOTES_JWKS_DB; empty: PG*)\n"
			"  --once                      fetch every issuer once and exit (1 if any failed)\n"
			"  --refresh-seconds N         fetch every issuer at least this often (300)\n"
			"  --min-interval-seconds N    an early refresh (unknown key id) at most this often (10)\n"
			"  --timeout-ms N              one HTTP request, connect included (10000)\n"
			"  --max-bytes N               largest metadata or JWKS accepted (1048576)\n"
			"  --ca-file FILE              CA certificates to verify the issuer with (system bundle)\n"
			"  --connect-to H:P:H2:P2      connect to H2:P2 for URLs naming H:P (as curl; repeatable)\n"
			"  --allow-http                development only: accept http:// metadata and JWKS URLs\n"
			"  --help, --version\n");
}

static long
number(const char *flag, const char *text, long min, long max)
{
	char	   *end;
	long		v = strtol(text, &end, 10);

	if (*text == '\0' || *end != '\0' || v < min || v > max)
	{
		fprintf(stderr, "mcp-notes-jwks: %s expects an integer in %ld..%ld, got \"%s\"\n", flag, min, max, text);
		exit(2);
	}
	return v;
}

static void
parse_args(int argc, char **argv)
{
	static const struct option opts[] = {
		{"db", required_argument, NULL, 'd'}, {"once", no_argument, NULL, 'o'},
		{"refresh-seconds", required_argument, NULL, 'r'}, {"min-interval-seconds", required_argument, NULL, 'm'},
		{"timeout-ms", required_argument, NULL, 't'}, {"max-bytes", required_argument, NULL, 'b'},
		{"ca-file", required_argument, NULL, 'c'}, {"connect-to", required_argument, NULL, 'C'},
		{"allow-http", no_argument, NULL, 'H'}, {"help", no_argument, NULL, 'h'},
		{"version", no_argument, NULL, 'V'}, {NULL, 0, NULL, 0}};
	int			c;

	if (getenv("MCP_NOTES_JWKS_DB"))
		jwks_cfg.db = getenv("MCP_NOTES_JWKS_DB");
	while ((c = getopt_long(argc, argv, "", opts, NULL)) != -1)
	{
		switch (c)
		{
			case 'd': jwks_cfg.db = optarg; break;
			case 'o': jwks_cfg.once = true; break;
			case 'r': jwks_cfg.refresh_s = number("--refresh-seconds", optarg, 1, 86400); break;
			case 'm': jwks_cfg.min_interval_s = number("--min-interval-seconds", optarg, 0, 3600); break;
			case 't': jwks_cfg.timeout_ms = number("--timeout-ms", optarg, 100, 600000); break;
			case 'b': jwks_cfg.max_bytes = number("--max-bytes", optarg, 1024, 64L * 1024 * 1024); break;
			case 'c': jwks_cfg.ca_file = optarg; break;
			case 'C':
				if (jwks_cfg.n_connect_to == JWKS_MAX_CONNECT_TO)
					exit((fprintf(stderr, "mcp-notes-jwks: at most %d --connect-to\n", JWKS_MAX_CONNECT_TO), 2));
				jwks_cfg.connect_to[jwks_cfg.n_connect_to++] = optarg;
				break;
			case 'H': jwks_cfg.allow_http = true; break;
			case 'h': usage(stdout); exit(0);
			case 'V': printf("mcp-notes-jwks %s\n", JWKS_VERSION); exit(0);
			default: usage(stderr); exit(2);
		}
	}
	if (optind < argc)
		exit((fprintf(stderr, "mcp-notes-jwks: unexpected argument \"%s\"\n", argv[optind]), 2));
}

int
main(int argc, char **argv)
{
	struct sigaction sa = {.sa_handler = on_signal};
	int			failures = 0;
	int			status;

	parse_args(argc, argv);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
	if (fetch_init() != 0)
		return (fprintf(stderr, "mcp-notes-jwks: libcurl did not initialise\n"), 1);
	if (jwks_cfg.allow_http)
		jlog(JLOG_WARN, "insecure_http", "detail",
			 "--allow-http: keys may be read over plain HTTP; for development on loopback only", NULL);
	jlog(JLOG_INFO, "started", "version", JWKS_VERSION, NULL);
	if (jwks_cfg.once)
		status = store_connect() != 0 || pass(true, &failures) < 0 || failures > 0 ? 1 : 0;
	else
		status = run_loop();
	store_disconnect();
	fetch_cleanup();
	return status;
}
