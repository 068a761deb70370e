/*
 * legacyask.c
 *		The 2025-era answer loop of an input_required outcome (legacyask.h).
 *
 * Nothing here decides anything about the answer: handle() judges it with
 * the state it sealed, in its own transaction, for the token given again.
 */
#include "legacyask.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config.h"
#include "fileops.h"
#include "jsonrpc.h"
#include "legacywire.h"
#include "log.h"
#include "text.h"

#define ASK_MAX_ROUNDS	3

struct legacy_job *
legacy_job_new(bool dev, const char *credential, json_object *request, json_object *rpc_id,
			   json_object *asking, json_object *pending)
{
	struct legacy_job *job = calloc(1, sizeof(*job));
	json_object *params;
	json_object *name;

	if (job == NULL || (job->credential = strdup(credential)) == NULL)
	{
		json_object_put(asking);
		json_object_put(pending);
		legacy_job_free(job);
		return NULL;
	}
	job->dev = dev;
	job->request = json_object_get(request);
	job->rpc_id = json_object_get(rpc_id);
	job->asking = asking;
	job->pending = pending;
	if (json_object_object_get_ex(request, "params", &params) && json_object_object_get_ex(params, "name", &name))
		str_copy(job->tool, sizeof(job->tool), json_object_get_string(name));
	return job;
}

void
legacy_job_free(struct legacy_job *job)
{
	if (job == NULL)
		return;
	if (job->credential)
	{
		memset(job->credential, 0, strlen(job->credential));
		free(job->credential);
	}
	json_object_put(job->request);
	json_object_put(job->rpc_id);
	json_object_put(job->asking);
	json_object_put(job->pending);
	free(job);
}

json_object *
legacy_server_request(json_object *id, json_object *entry)
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

enum outcome_kind
legacy_retry(struct legacy_job *job, json_object *params_add, json_object *request_add, char **outcome,
			 struct db_error *err)
{
	json_object *request = json_object_new_object();
	json_object *params = json_object_new_object();
	json_object *old_params = NULL;
	json_object *state = NULL;
	char	   *body;
	int			retries = 0;
	enum outcome_kind kind;

	json_object_object_foreach(job->request, k, v)
		if (strcmp(k, "params") != 0)
			json_object_object_add(request, k, json_object_get(v));
	if (json_object_object_get_ex(job->request, "params", &old_params))
	{
		json_object_object_foreach(old_params, pk, pv)
			if (strcmp(pk, "inputResponses") != 0 && strcmp(pk, "requestState") != 0)
				json_object_object_add(params, pk, json_object_get(pv));
	}
	if (json_object_object_get_ex(job->asking, "requestState", &state))
		json_object_object_add(params, "requestState", json_object_get(state));
	if (params_add)
	{
		json_object_object_foreach(params_add, ak, av)
			json_object_object_add(params, ak, json_object_get(av));
	}
	if (request_add)
	{
		json_object_object_foreach(request_add, rk, rv)
			json_object_object_add(request, rk, json_object_get(rv));
	}
	json_object_object_add(request, "params", params);
	body = jsonrpc_serialize(request);
	json_object_put(request);
	json_object_put(params_add);
	json_object_put(request_add);
	*outcome = NULL;
	kind = body ? fileops_handle(job->dev, job->credential, body, outcome, &retries, err) : OUT_INTERNAL;
	if (body == NULL)
		str_copy(err->message, sizeof(err->message), "out of memory");
	free(body);
	return kind;
}

void
legacy_notify_all(const struct legacy_asker *asker, json_object *notifications)
{
	size_t		n = notifications ? json_object_array_length(notifications) : 0;

	for (size_t i = 0; asker->notify && i < n; i++)
	{
		json_object *msg = legacy_notification(json_object_array_get_idx(notifications, i));

		if (msg)
			asker->notify(asker->cls, msg);
	}
}

/* a failed retry statement: the outcome table's words, the database's in the log */
static json_object *
failed_message(struct legacy_job *job, const struct db_error *err)
{
	const struct outcome *o = outcome_of(err->kind);
	unsigned	status;
	int			code;

	outcome_wire(err->kind, ERA_WIRE_LEGACY, &status, &code);
	log_event(GW_LOG_WARN, "legacy_retry_failed", "tool %s: %s", job->tool, err->message);
	return legacy_error(job->rpc_id, code ? code : RPC_INTERNAL_ERROR, o->message, NULL);
}

/* one retry's outcome: true when it asks again (job->asking replaced), else *final */
static bool
next_outcome(struct legacy_job *job, const struct legacy_asker *asker, const char *text, json_object **final)
{
	struct legacy_outcome out;

	legacy_outcome_read(text, &out);
	*final = NULL;
	legacy_notify_all(asker, out.notifications);
	if (out.input_required)
	{
		json_object_put(job->asking);
		json_object_put(job->pending);
		job->asking = json_object_get(out.input_required);
		job->pending = json_object_get(out.pending);
		legacy_outcome_free(&out);
		return true;
	}
	*final = out.result ? legacy_result(job->rpc_id, json_object_get(out.result))
		: legacy_error_message(job->rpc_id, &out);
	legacy_outcome_free(&out);
	return false;
}

static json_object *
no_answer(struct legacy_job *job)
{
	char		msg[200];

	snprintf(msg, sizeof(msg), "No answer to the request for input within %ld ms: nothing was done. "
			 "Call %s again.", gw_cfg.legacy_wait_ms, job->tool[0] ? job->tool : "the tool");
	log_event(GW_LOG_INFO, "legacy_elicitation", "tool %s: no answer in time", job->tool);
	return legacy_result(job->rpc_id, legacy_tool_error(msg));
}

void
legacy_ask_run(struct legacy_job *job, const struct legacy_asker *asker)
{
	for (int round = 1; round <= ASK_MAX_ROUNDS; round++)
	{
		struct db_error err = {0};
		char	   *text = NULL;
		json_object *final = NULL;
		enum legacy_wait w = asker->ask(asker->cls, job, &text, &err);

		if (w == LEGACY_GONE)
		{
			log_event(GW_LOG_INFO, "legacy_elicitation", "tool %s: the client left before answering", job->tool);
			free(text);
			return;
		}
		if (w == LEGACY_TIMEOUT)
			final = no_answer(job);
		else if (text == NULL)
			final = failed_message(job, &err);
		else if (next_outcome(job, asker, text, &final))
		{
			free(text);
			continue;
		}
		free(text);
		log_event(GW_LOG_INFO, "legacy_elicitation", "tool %s: answered after %d round(s)", job->tool, round);
		asker->finish(asker->cls, final);
		return;
	}
	asker->finish(asker->cls, legacy_result(job->rpc_id, legacy_tool_error(
		"The server kept asking for input: nothing more was done. Call the tool again.")));
}
