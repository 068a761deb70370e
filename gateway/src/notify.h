/*
 * notify.h
 *		The gateway's one LISTEN connection, shared through a table of
 *		channel -> callback.
 *
 * A module registers what it listens for before notify_start() (main.c);
 * the listener thread opens one dedicated connection, LISTENs on the
 * channel each subscriber names at that moment (channels come from
 * features(): the token cache's tokenChannel, the 2025-era adapter's answer
 * channel; URL-mode confirmations, subscriptions and file operations are
 * meant to register the same way), and calls on_notify with each
 * notification's payload, on the listener thread: a callback must be quick
 * and must not block (wake a waiter, bump a counter).  Each (re)connect and
 * each loss of the connection is reported to every subscriber through
 * on_state, since what was notified while nobody listened is lost: a
 * subscriber treats that as "anything may have changed".
 */
#ifndef GW_NOTIFY_H
#define GW_NOTIFY_H

#include <stdbool.h>

#define NOTIFY_MAX_SUBSCRIBERS	8

struct notify_sub
{
	/* the channel now (called at each connect, may read features()); NULL = none: not listened */
	const char *(*channel) (void);
	/* a notification on that channel */
	void		(*on_notify) (const char *payload, void *cls);
	/* listening: the LISTEN is in place (true) or gone / not possible (false); may be NULL */
	void		(*on_state) (bool listening, void *cls);
	void	   *cls;
};

/* Before notify_start(); sub must outlive notify_stop(). -1 when the table is full. */
extern int	notify_register(const struct notify_sub *sub);

/* Start the listener thread (none when nothing registered). 0 on success. */
extern int	notify_start(void);

/* Stop the thread, close the connection; every subscriber hears on_state(false). */
extern void notify_stop(void);

#endif							/* GW_NOTIFY_H */
