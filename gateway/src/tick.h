/*
 * tick.h
 *		The audit chain's periodic step: every --audit-tick-ms one
 *		mcp_notes.audit_tick() on a connection of its own, and the chain's
 *		head logged (event audit_head) whenever it moved.
 *
 * Writers only queue their audit rows; this call, off the request path,
 * links them into the hash chain and folds the note-version accounting
 * (docs/security.md, "The audit chain").  The logged heads are the copy of
 * the chain kept outside the database that verify_audit(up_to, head)
 * checks.  Every gateway ticks; the database lets one tick work at a time.
 */
#ifndef GW_TICK_H
#define GW_TICK_H

/* Start the thread (none when --audit-tick-ms is 0). 0 on success. */
extern int	tick_start(void);

/* Stop the thread and close its connection. */
extern void tick_stop(void);

#endif							/* GW_TICK_H */
