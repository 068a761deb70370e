/*
 * jsonrpc.h
 *		JSON-RPC 2.0 envelope: strict parsing, shape validation, responses.
 */
#ifndef GW_JSONRPC_H
#define GW_JSONRPC_H

#include <stdbool.h>
#include <stddef.h>
#include <json-c/json.h>

/* JSON-RPC 2.0 */
#define RPC_PARSE_ERROR			(-32700)
#define RPC_INVALID_REQUEST		(-32600)
#define RPC_METHOD_NOT_FOUND	(-32601)
#define RPC_INVALID_PARAMS		(-32602)
#define RPC_INTERNAL_ERROR		(-32603)
/* the 2025-era SDKs' "Session not found" */
#define RPC_SESSION_NOT_FOUND	(-32001)
/* MCP 2026-07-28 */
#define RPC_HEADER_MISMATCH		(-32020)
#define RPC_MISSING_CAPABILITY	(-32021)
#define RPC_UNSUPPORTED_VERSION	(-32022)

struct rpc_msg
{
	json_object *root;			/* the whole body (owned by the caller) */
	json_object *id;			/* a valid id (string or integer), or NULL */
	bool		has_id;			/* member "id" present: a request, not a notification */
	const char *method;			/* NUL-free (the parser refuses \u0000) */
	json_object *params;		/* object, or NULL when absent */
};

/*
 * Parse a request body strictly (RFC 8259; UTF-8; depth limit; no duplicate
 * member names; no \u0000; no lone surrogates; integers must fit 64 bits).
 * Returns 0 with *out set (NULL for a JSON null), or -1 with *why set to a
 * static message.
 */
extern int	jsonrpc_parse(const char *buf, size_t len, int max_depth, json_object **out, const char **why);

/*
 * Check the JSON-RPC 2.0 request shape.  Fills m (m->id is set whenever the
 * id member is valid, even on failure, so errors can echo it).  Returns 0, or
 * RPC_INVALID_REQUEST / RPC_INVALID_PARAMS with *why set.
 */
extern int	jsonrpc_check(json_object *root, struct rpc_msg *m, const char **why);

/*
 * {"jsonrpc":"2.0","id":id,"error":{code,message[,data]}}; without "id" when
 * id is NULL (it could not be read: MCP 2026-07-28 forbids a null id); data
 * is consumed.
 */
extern json_object *jsonrpc_error(json_object *id, int code, const char *message, json_object *data);

/* {"jsonrpc":"2.0","id":id,"result":result}; result is consumed */
extern json_object *jsonrpc_result(json_object *id, json_object *result);

/* malloc'd serialization of o */
extern char *jsonrpc_serialize(json_object *o);

/*
 * An MCP result as the gateway sends it: _meta["io.modelcontextprotocol/
 * serverInfo"] added (any other _meta kept) and resultType "complete" when
 * the result has none.
 */
extern void jsonrpc_add_server_info(json_object *result);

/* true when o is a string equal to s */
extern bool json_string_equals(json_object *o, const char *s);

#endif							/* GW_JSONRPC_H */
