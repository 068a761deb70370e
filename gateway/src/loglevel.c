/*
 * loglevel.c
 *		Log levels and the filter of an outcome's notifications (loglevel.h).
 */
#include "loglevel.h"

#include <string.h>

/* RFC 5424 severities, least severe first, as MCP names them */
static const char *const levels[] = {
	"debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"
};

#define N_LEVELS	((int) (sizeof(levels) / sizeof(levels[0])))

static int
rank(const char *level)
{
	for (int i = 0; level && i < N_LEVELS; i++)
		if (strcmp(levels[i], level) == 0)
			return i;
	return -1;
}

bool
log_level_known(const char *level)
{
	return rank(level) >= 0;
}

/* a notifications/message entry at or above min (min < 0: none passes) */
static bool
message_passes(json_object *n, int min)
{
	json_object *method = NULL;
	json_object *params = NULL;
	json_object *level = NULL;

	if (!json_object_object_get_ex(n, "method", &method) ||
		strcmp(json_object_get_string(method), "notifications/message") != 0)
		return true;
	if (min < 0 || !json_object_object_get_ex(n, "params", &params) ||
		!json_object_object_get_ex(params, "level", &level))
		return false;
	return rank(json_object_get_string(level)) >= min;
}

json_object *
log_level_filter(json_object *notifications, const char *level)
{
	int			min = rank(level);
	json_object *kept = json_object_new_array();
	size_t		n = json_object_array_length(notifications);

	for (size_t i = 0; kept && i < n; i++)
	{
		json_object *e = json_object_array_get_idx(notifications, i);

		if (json_object_is_type(e, json_type_object) && message_passes(e, min))
			json_object_array_add(kept, json_object_get(e));
	}
	if (kept && json_object_array_length(kept) == 0)
	{
		json_object_put(kept);
		return NULL;
	}
	return kept;
}
