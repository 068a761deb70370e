/*
 * elicit.c
 *		The legacy-era answer loop of an input_required outcome (elicit.h).
 *
 * Nothing here decides anything about the answer: the client's response
 * object goes into inputResponses as it came (an error response becomes a
 * cancel, the only answer that spends nothing), and handle() judges it with
 * the state it sealed, in its own transaction, for the token given again.
 */
#include "elicit.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "config.h"
#include "db.h"
#include "jsonrpc.h"
#include "legacywire.h"
#include "log.h"
#include "text.h"

#define ELICIT_MAX_ROUNDS	3

struct elicit_job *
elicit_job_new(bool dev, const char *credential, const char *session_id, json_object *request,
			   json_object *rpc_id, json_object *asking)
{
	struct elicit_job *job = calloc(1, sizeof(*job));
	json_object *params;
	json_object *name;

	if (job == NULL || (job->credential = strdup(credential)) == NULL ||
		(session_id && (job->session_id = strdup(session_id)) == NULL))
	{
		json_object_put(asking);
		elicit_job_free(job);
		return NULL;
	}
	job->dev = dev;
	job->request = json_object_get(request);
	job->rpc_id = json_object_get(rpc_id);
	job->asking = asking;
	if (json_object_object_get_ex(request, "params", &params) && json_object_object_get_ex(params, "name", &name))
		str_copy(job->tool, sizeof(job->tool), json_object_get_string(name));
	return job;
}

void
elicit_job_free(struct elicit_job *job)
{
	if (job == NULL)
		return;
	if (job->credential)
	{
		memset(job->credential, 0, strlen(job->credential));
		free(job->credential);
	}
	free(job->session_id);
	json_object_put(job->request);
	json_object_put(job->rpc_id);
	json_object_put(job->asking);
	free(job);
}

/* "mcpn-" and 16 random hex digits: never one of the client's own ids by accident */
static json_object *
new_request_id(void)
{
	unsigned char b[8] = {0};
	char		text[24];

	if (getrandom(b, sizeof(b), 0) != (ssize_t) sizeof(b))
		log_event(GW_LOG_WARN, "legacy", "getrandom failed: request ids are not random");
	snprintf(text, sizeof(text), "mcpn-%02x%02x%02x%02x%02x%02x%02x%02x",
			 b[0], b[1], b[2], b[3], b[4], b[5], b[6], b[7]);
	return json_object_new_string(text);
}

/* {"jsonrpc":"2.0","id":...,"method":entry.method,"params":entry.params} */
static json_object *
server_request(json_object *id, json_object *entry)
{
	json_object *o = json_object_new_object();
	json_object *method = NULL;
	json_object *params = NULL;

	json_object_object_get_ex(entry, "method", &method);
	json_object_object_get_ex(entry, "params", &params);
	json_object_object_add(o, "jsonrpc", json_object_new_string("2.0"));
	json_object_object_add(o, "id", json_object_get(id));
	json_object_object_add(o, "method", json_object_get(method));
	if (params)
		json_object_object_add(o, "params", json_object_get(params));
	return o;
}

/* the client's response -> what inputResponses holds for it */
static json_object *
input_response(json_object *answer)
{
	json_object *result;

	if (json_object_object_get_ex(answer, "result", &result) && json_object_is_type(result, json_type_object))
		return json_object_get(result);
	result = json_object_new_object();
	json_object_object_add(result, "action", json_object_new_string("cancel"));
	return result;
}

/*
 * Ask every input request of job->asking in turn; *responses is the
 * inputResponses object.  Returns ELICIT_ANSWERED when all were answered.
 */
static enum elicit_wait
ask_all(struct elicit_job *job, const struct elicit_asker *asker, json_object **responses)
{
	json_object *requests = NULL;

	*responses = json_object_new_object();
	if (!json_object_object_get_ex(job->asking, "inputRequests", &requests) ||
		!json_object_is_type(requests, json_type_object))
		return ELICIT_ANSWERED;
	json_object_object_foreach(requests, key, entry)
	{
		json_object *id = new_request_id();
		json_object *answer = NULL;
		enum elicit_wait w = asker->ask(asker->cls, id, server_request(id, entry), &answer);

		json_object_put(id);
		if (w != ELICIT_ANSWERED)
			return w;
		json_object_object_add(*responses, key, input_response(answer));
		json_object_put(answer);
	}
	return ELICIT_ANSWERED;
}

/* the request object again, with the answers and the state: handle()'s outcome text */
static char *
retry(struct elicit_job *job, json_object *responses, struct db_error *err, enum outcome_kind *kind)
{
	json_object *request = json_object_new_object();
	json_object *params = json_object_new_object();
	json_object *old_params = NULL;
	json_object *state = NULL;
	char	   *text = NULL;
	char	   *body;
	int			retries = 0;

	json_object_object_foreach(job->request, k, v)
		if (strcmp(k, "params") != 0)
			json_object_object_add(request, k, json_object_get(v));
	if (json_object_object_get_ex(job->request, "params", &old_params))
	{
		json_object_object_foreach(old_params, pk, pv)
			if (strcmp(pk, "inputResponses") != 0 && strcmp(pk, "requestState") != 0)
				json_object_object_add(params, pk, json_object_get(pv));
	}
	json_object_object_add(params, "inputResponses", json_object_get(responses));
	if (json_object_object_get_ex(job->asking, "requestState", &state))
		json_object_object_add(params, "requestState", json_object_get(state));
	json_object_object_add(request, "params", params);
	body = jsonrpc_serialize(request);
	json_object_put(request);
	*kind = body ? db_handle(job->dev, job->credential, body, &text, &retries, err) : OUT_INTERNAL;
	free(body);
	return text;
}

void
elicit_notify_all(const struct elicit_asker *asker, json_object *notifications)
{
	size_t		n = notifications ? json_object_array_length(notifications) : 0;

	for (size_t i = 0; asker->notify && i < n; i++)
	{
		json_object *msg = legacy_notification(json_object_array_get_idx(notifications, i));

		if (msg)
			asker->notify(asker->cls, msg);
	}
}

/* one retry's outcome: true when it asks again (job->asking replaced), else the final message */
static bool
next_outcome(struct elicit_job *job, const struct elicit_asker *asker, json_object *responses,
			 json_object **final)
{
	struct db_error err = {0};
	enum outcome_kind kind;
	char	   *text = retry(job, responses, &err, &kind);
	struct legacy_out out;

	*final = NULL;
	if (kind != OUT_OK)
	{
		const struct outcome *o = outcome_of(kind);

		log_event(GW_LOG_WARN, "legacy_retry_failed", "tool %s: %s", job->tool, err.message);
		*final = legacy_error(job->rpc_id, o->rpc_code ? o->rpc_code : -32603, o->message, NULL);
		free(text);
		return false;
	}
	legacy_translate(job->rpc_id, text, &out);
	free(text);
	json_object_put(out.challenge_data);	/* the stream has begun: no 401/403 now, a JSON-RPC error below */
	elicit_notify_all(asker, out.notifications);
	json_object_put(out.notifications);
	if (out.input_required)
	{
		json_object_put(job->asking);
		job->asking = out.input_required;
		return true;
	}
	*final = out.message ? out.message : legacy_error(job->rpc_id, -32001, out.message_text, NULL);
	return false;
}

void
elicit_run(struct elicit_job *job, const struct elicit_asker *asker)
{
	for (int round = 1; round <= ELICIT_MAX_ROUNDS; round++)
	{
		json_object *responses = NULL;
		json_object *final = NULL;
		enum elicit_wait w = ask_all(job, asker, &responses);
		char		msg[200];

		if (w == ELICIT_GONE)
		{
			log_event(GW_LOG_INFO, "legacy_elicitation", "tool %s: the client left before answering", job->tool);
			json_object_put(responses);
			return;
		}
		if (w == ELICIT_TIMEOUT)
		{
			json_object_put(responses);
			snprintf(msg, sizeof(msg), "No answer to the request for input within %ld ms: nothing was done. "
					 "Call %s again.", gw_cfg.legacy_wait_ms, job->tool[0] ? job->tool : "the tool");
			log_event(GW_LOG_INFO, "legacy_elicitation", "tool %s: no answer in time", job->tool);
			asker->finish(asker->cls, legacy_result(job->rpc_id, legacy_tool_error(msg)));
			return;
		}
		if (!next_outcome(job, asker, responses, &final))
		{
			json_object_put(responses);
			log_event(GW_LOG_INFO, "legacy_elicitation", "tool %s: answered after %d round(s)", job->tool, round);
			asker->finish(asker->cls, final);
			return;
		}
		json_object_put(responses);
	}
	asker->finish(asker->cls, legacy_result(job->rpc_id, legacy_tool_error(
		"The server kept asking for input: nothing more was done. Call the tool again.")));
}
