/*
 * config.h
 *		Settings of mcp-notes-gateway: one table drives defaults, environment,
 *		flags and --help.
 *
 * gw_cfg is written only by config_load() in main() before any thread starts
 * and is read-only afterwards, so it needs no lock.
 */
#ifndef GW_CONFIG_H
#define GW_CONFIG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>


/* Fixed limits (not settings: changing them changes behaviour, not deployment). */
#define GW_JSON_MAX_DEPTH		64			/* nesting of request bodies */
#define GW_THREAD_STACK_SIZE	(512 * 1024)	/* per event or worker thread */
#define GW_CONNECTION_MEMORY	(16 * 1024)		/* MHD per-connection buffer: request line and headers */
#define GW_MAX_TOKEN_LEN		8192		/* longer bearer tokens are refused unseen (JWTs of
										 * real IdPs reach 2-3 KB; the database reads 16 KB) */

struct gw_config
{
	/* settings (see the table in config.c) */
	char	   *listen;
	char	   *db;
	long		max_connections;	/* --max-connections (alias --threads) */
	long		io_threads;		/* 0 in the table: one per CPU */
	long		max_connections_per_ip;	/* 0 in the table: derived from max_connections */
	long		connection_timeout;
	long		pool_size;
	long		pool_acquire_timeout_ms;
	long		pool_max_lifetime;
	long		max_body;
	char	   *allowed_origins;
	char	   *trusted_proxies;	/* parsed into clientaddr.c's table */
	char	   *gateway_id;
	char	   *log_level;
	char	   *insecure_dev_principal;
	long		drain_timeout_ms;
	long		tool_call_attempts;
	long		auth_cache_ms;
	long		audit_tick_ms;	/* 0: no audit_tick() thread (tick.c) */
	char	   *metrics_listen;	/* empty: no /metrics listener */
	long		stdio;			/* --stdio: 0 or 1 */
	long		legacy_session_ttl;
	long		legacy_wait_ms;
	char	   *public_url;		/* --public-url: the OAuth resource; empty = no metadata */
	char	   *authorization_servers;	/* --authorization-servers: issuers for the metadata */
	long		max_listen_streams;

	/* derived by config_load() */
	struct sockaddr_storage listen_addr;
	socklen_t	listen_addrlen;
	bool		listen_ipv6;
	bool		listen_loopback;
	struct sockaddr_storage metrics_addr;	/* --metrics-listen resolved */
	char	  **origins;		/* parsed --allowed-origins; NULL when none */
	size_t		n_origins;
	int			log_level_num;
	long		io_threads_num;	/* --io-threads resolved */
};

extern struct gw_config gw_cfg;

/*
 * Fill gw_cfg from defaults, then the environment, then argv.
 * Returns 0 to run, 1 when the program should exit 0 (--help, --version),
 * -1 after printing an error (exit 2).
 */
extern int	config_load(int argc, char **argv);
extern void config_free(void);

#endif							/* GW_CONFIG_H */
