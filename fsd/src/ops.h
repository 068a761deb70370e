/*
 * Executing what the database decided (fsd_pending): the deletes that
 * notes_delete recorded as intents and the writes of notes created or
 * changed through the tools.  The same code is the recovery: at start and
 * every --recover-interval-ms every unfinished operation is taken from the
 * state the database holds and what is on disk:
 *
 *   state    on disk                              action
 *   intent   trash entry, the confirmed identity  T2 (fsd_trashed), F2, done
 *   intent   trash entry, another identity        put it back; conflict
 *   intent   the confirmed file at its path       F1 (into the trash), T2, F2, done
 *   intent   something else at the path           conflict (nothing moved)
 *   intent   nothing at the path                  missing (nothing moved)
 *   trashed  -                                    F2 (unlink from the trash), done
 *   write    the expected file (or none: create)  atomic write; written
 *   write    anything else                        conflict (the disk wins)
 *
 * A transient failure (EIO, the database gone) leaves the state as it is,
 * for the next pass.
 */
#ifndef FSD_OPS_H
#define FSD_OPS_H

#include "pg.h"
#include "volume.h"

/* One pass over the volume's unfinished operations: how many are left
 * unfinished (tried again at the next pass), or -1 when the database could
 * not be asked. */
int fsd_run_pending(struct fsd_pg *pg, struct fsd_volume *v);

#endif
