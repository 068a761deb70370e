/*
 * loglevel.h
 *		MCP log levels (notifications/message): which names exist, and the
 *		gateway's own guarantee that a request gets only the messages it
 *		asked for (none without a level), whatever an outcome carries.
 */
#ifndef GW_LOGLEVEL_H
#define GW_LOGLEVEL_H

#include <stdbool.h>
#include <json-c/json.h>

#define META_LOG_LEVEL	"io.modelcontextprotocol/logLevel"

/* level is one of debug, info, notice, warning, error, critical, alert, emergency */
extern bool log_level_known(const char *level);

/*
 * notifications (an outcome's array, not consumed) without the
 * notifications/message below level (all of them when level is NULL):
 * a new array, or NULL when nothing is left.
 */
extern json_object *log_level_filter(json_object *notifications, const char *level);

#endif							/* GW_LOGLEVEL_H */
