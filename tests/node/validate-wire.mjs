// Validates JSON-RPC messages against the MCP 2026-07-28 JSON schema that
// the pinned conformance package embeds, the way the package checks the wire
// (its wire-schema-valid check): a request or notification against the
// definition whose method it names, an error against the definition of its
// code, a result against InputRequiredResult or the result of the request's
// method, and every message against its JSON-RPC envelope.
//
//   node tests/node/validate-wire.mjs < lines
//
// Each input line is {"requestMethod": "tools/call", "message": {...}}; the
// output is one line per input, {"ok": true} or {"ok": false, "errors": [...]}.
// Exits 2 when the schema cannot be found in the package.
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { createInterface } from "node:readline";

const require = createRequire(import.meta.url);
const { Ajv2020 } = require("ajv/dist/2020.js");
const addFormats = require("ajv-formats");

// The schema is a literal in the bundle: `...,NAME={$schema:...}};const
// Re={"2025-03-26":...,[A]:NAME}` (A is "2026-07-28").  Its text is
// evaluated as an expression: it is the package's own data, pinned by
// tests/node/package-lock.json.
function loadSchema() {
  const bundle = readFileSync(require.resolve("@modelcontextprotocol/conformance/dist/index.js"), "utf8");
  const end = bundle.indexOf(';const Re={"2025-03-26"');
  const name = end < 0 ? null : /\[A\]:(\w+)\}/.exec(bundle.slice(end, end + 300))?.[1];
  const start = name ? bundle.lastIndexOf("," + name + "={", end) : -1;
  if (start < 0) {
    console.error("validate-wire: the 2026-07-28 schema was not found in the conformance bundle");
    process.exit(2);
  }
  const schema = new Function("return (" + bundle.slice(start + name.length + 2, end) + ")")();
  if (!String(schema.$schema).includes("2020-12") || !schema.$defs?.DiscoverResult) {
    console.error("validate-wire: what was found is not the 2026-07-28 schema");
    process.exit(2);
  }
  return schema;
}

const schema = loadSchema();
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default ? addFormats.default(ajv) : addFormats(ajv);
ajv.addFormat("byte", true);
ajv.addSchema({ ...schema, $id: "mcp://2026-07-28/schema.json" });
const defs = schema.$defs;
const byMethod = new Map();
const resultOf = new Map();
const byCode = new Map();
for (const [key, def] of Object.entries(defs)) {
  const method = def.properties?.method?.const;
  if (typeof method === "string" && !/^(Client|Server)(Request|Notification|Result|Message)$/.test(key)) {
    byMethod.set(method, key);
    if (key.endsWith("Request") && `${key.slice(0, -7)}Result` in defs) resultOf.set(method, `${key.slice(0, -7)}Result`);
  }
  for (const part of def.properties?.error?.allOf ?? []) {
    const code = part.properties?.code?.const;
    if (typeof code === "number") byCode.set(code, key);
  }
}
const compiled = new Map();
function check(defName, value) {
  let validate = compiled.get(defName);
  if (!validate) {
    validate = ajv.compile({ $ref: `mcp://2026-07-28/schema.json#/$defs/${defName}` });
    compiled.set(defName, validate);
  }
  return validate(value) ? [] : validate.errors.map((e) => `${defName}${e.instancePath}: ${e.message}`);
}

function validateMessage(message, requestMethod) {
  if (typeof message?.method === "string")
    return check(byMethod.get(message.method) ?? ("id" in message ? "JSONRPCRequest" : "JSONRPCNotification"), message);
  if (message?.error !== undefined)
    return check(byCode.get(message.error?.code) ?? "JSONRPCErrorResponse", message);
  if (message?.result !== undefined) {
    const def = message.result?.resultType === "input_required" ? "InputRequiredResult" : resultOf.get(requestMethod);
    const errors = def ? check(def, message.result) : [];
    if (!def) errors.push(`no result definition for method ${requestMethod}`);
    return errors.concat(check("JSONRPCResultResponse", message));
  }
  return ["not a JSON-RPC request, notification or response"];
}

const lines = createInterface({ input: process.stdin });
for await (const line of lines) {
  if (!line.trim()) continue;
  const { requestMethod, message } = JSON.parse(line);
  const errors = validateMessage(message, requestMethod);
  console.log(JSON.stringify(errors.length ? { ok: false, errors } : { ok: true }));
}
