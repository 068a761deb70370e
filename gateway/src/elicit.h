/*
 * elicit.h
 *		A legacy-era tools/call whose outcome asks the client (MRTR
 *		input_required): each input request becomes a server-to-client
 *		JSON-RPC request with the entry's method and params as they are
 *		(elicitation/create, sampling/createMessage, roots/list), the
 *		client's answers become inputResponses, and the call is retried through handle() with the
 *		sealed requestState, exactly as a modern client would retry it.  The
 *		transport (an SSE stream, stream.c; stdin/stdout, stdio.c) only sends
 *		messages and waits for answers.
 */
#ifndef GW_ELICIT_H
#define GW_ELICIT_H

#include <stdbool.h>
#include <json-c/json.h>

enum elicit_wait
{
	ELICIT_ANSWERED,			/* *answer is the client's response object */
	ELICIT_TIMEOUT,				/* no answer within --legacy-wait-ms */
	ELICIT_GONE					/* the client left (stream closed, end of input) or the gateway stops */
};

struct elicit_asker
{
	/* send request (consumed), whose id is request_id, and wait for its answer */
	enum elicit_wait (*ask) (void *cls, json_object *request_id, json_object *request, json_object **answer);
	/* send the final response (consumed) */
	void		(*finish) (void *cls, json_object *response);
	void	   *cls;
	/* send a notification (consumed) before the final response; NULL = drop notifications */
	void		(*notify) (void *cls, json_object *notification);
};

/* everything the retries need, owned by the job */
struct elicit_job
{
	bool		dev;			/* credential is the dev principal (handle_as) */
	char	   *credential;		/* the bearer token (wiped when freed) */
	char	   *session_id;		/* the legacy session (HTTP); NULL on stdio */
	json_object *request;		/* the request object of docs/contract.md */
	json_object *rpc_id;		/* the client's JSON-RPC id */
	json_object *asking;		/* the input_required result being answered */
	char		tool[64];
};

/* request and rpc_id: references are taken; asking is consumed. NULL when out of memory. */
extern struct elicit_job *elicit_job_new(bool dev, const char *credential, const char *session_id,
										 json_object *request, json_object *rpc_id, json_object *asking);
extern void elicit_job_free(struct elicit_job *job);

/* Each entry of notifications ([{method, params}], the outcome's) through asker->notify. */
extern void elicit_notify_all(const struct elicit_asker *asker, json_object *notifications);

/* Ask, retry, repeat while the outcome asks again (a few rounds); then asker->finish, unless the client left. */
extern void elicit_run(struct elicit_job *job, const struct elicit_asker *asker);

#endif							/* GW_ELICIT_H */
