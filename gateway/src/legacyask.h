/*
 * legacyask.h
 *		A 2025-era tools/call whose outcome asks the client (MRTR
 *		input_required): each input request becomes a server-to-client
 *		JSON-RPC request with the entry's method and params as they are
 *		(elicitation/create, sampling/createMessage, roots/list), and the
 *		call is retried through handle() with the sealed requestState, as a
 *		modern client would retry it.  The transport asks and takes the
 *		answers: over HTTP the database recorded the pending requests with
 *		the outcome, and the retry names them (inputFrom) so handle() takes
 *		the answers in the transaction that acts (legacystream.c); on stdio
 *		the answers are read from stdin and sent as inputResponses.
 */
#ifndef GW_LEGACYASK_H
#define GW_LEGACYASK_H

#include <stdbool.h>
#include <json-c/json.h>

#include "db.h"

enum legacy_wait
{
	LEGACY_ANSWERED,			/* *outcome is the retry's outcome text (or err says why there is none) */
	LEGACY_TIMEOUT,				/* no answer within --legacy-wait-ms */
	LEGACY_GONE					/* the client left (stream closed, end of input) or the gateway stops */
};

/* everything the retries need, owned by the job */
struct legacy_job
{
	bool		dev;			/* credential is the dev principal (handle_as) */
	char	   *credential;		/* the bearer token (wiped when freed) */
	json_object *request;		/* the request object of docs/contract.md (with "session" over HTTP) */
	json_object *rpc_id;		/* the client's JSON-RPC id */
	json_object *asking;		/* the input_required result being answered */
	json_object *pending;		/* its pending requests {key: {pendingId, id}} (HTTP), or NULL */
	char		tool[64];
};

struct legacy_asker
{
	/* ask every input request of job->asking and retry: the retry's outcome text in *outcome */
	enum legacy_wait (*ask) (void *cls, struct legacy_job *job, char **outcome, struct db_error *err);
	/* send the final response (consumed) */
	void		(*finish) (void *cls, json_object *response);
	/* send a notification (consumed) before the final response */
	void		(*notify) (void *cls, json_object *notification);
	void	   *cls;
};

/* request, rpc_id: references taken; asking and pending consumed. NULL when out of memory. */
extern struct legacy_job *legacy_job_new(bool dev, const char *credential, json_object *request,
										 json_object *rpc_id, json_object *asking, json_object *pending);
extern void legacy_job_free(struct legacy_job *job);

/*
 * The retry: job->request with asking's requestState, and members added to
 * params (inputResponses) or to the request (inputFrom, giveUp); both
 * objects are consumed, either may be NULL.  One handle() statement.
 */
extern enum outcome_kind legacy_retry(struct legacy_job *job, json_object *params_add, json_object *request_add,
									  char **outcome, struct db_error *err);

/* Each entry of notifications ([{method, params}], an outcome's) through asker->notify. */
extern void legacy_notify_all(const struct legacy_asker *asker, json_object *notifications);

/* Ask, retry, repeat while the outcome asks again (a few rounds); then asker->finish, unless the client left. */
extern void legacy_ask_run(struct legacy_job *job, const struct legacy_asker *asker);

/* {"jsonrpc":"2.0","id":id,"method":entry.method,"params":entry.params} */
extern json_object *legacy_server_request(json_object *id, json_object *entry);

#endif							/* GW_LEGACYASK_H */
