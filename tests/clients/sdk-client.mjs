// One official MCP SDK client against mcp_notes, driving every flow the
// clients suite checks (tests/suites/clients), and printing one JSON object
// on stdout: {"client", "era", "protocolVersion", "flows": {name: {ok, ...}}}.
// The suite checks the database afterwards (the note gone, the audit rows).
//
//   node sdk-client.mjs CONFIG_JSON
//
// CONFIG: {client: "v2" | "v1", mode: "default" | "auto" | "pinned" (v2),
//          transport: "http" | "stdio", url, token, gateway, conninfo,
//          workspaceUri, accept, decline, cancel (note titles), noteId (a note
//          the read/update tools use), createUri, watchUri + watchNoteId (a
//          note the watch flow listens to, HTTP only)}
//
// The packages are imported by path from tests/node/node_modules, where
// scripts/install-node puts them (Node resolves bare names only upwards from
// this file's directory).

const modules = new URL('../node/node_modules/@modelcontextprotocol/', import.meta.url);
const load = (path) => import(new URL(path, modules).href);

const config = JSON.parse(process.argv[2]);
const TIMEOUT_MS = 20000;
const SURFACE = ['notes_create', 'notes_read', 'notes_update', 'notes_list', 'notes_search'];

// The answer the elicitation handler gives next; every flow sets it.
let answer = 'accept';
let asked = [];
// What a gateway launched over stdio wrote on stderr (its JSON log lines),
// reported when something fails.
let gatewayStderr = '';

function elicit(request) {
    const params = request.params;
    asked.push(params.message ?? '');
    if (answer !== 'accept')
        return { action: answer };
    const schema = params.requestedSchema ?? {};
    const choice = schema.properties?.note_id ?? {};
    const noteId = choice.oneOf?.[0]?.const ?? choice.enum?.[0];
    return { action: 'accept', content: { note_id: noteId, confirm: true } };
}

async function connectV2() {
    const sdk = await load('client/dist/index.mjs');
    const options = { capabilities: { elicitation: { form: {} } } };
    if (config.mode === 'auto')
        options.versionNegotiation = { mode: 'auto' };
    else if (config.mode === 'pinned')
        options.versionNegotiation = { mode: { pin: '2026-07-28' } };
    else if (config.mode !== 'default')
        throw new Error(`unknown v2 mode ${config.mode}`);
    const client = new sdk.Client({ name: `mcp-notes-tests-v2-${config.mode}`, version: '1.0.0' }, options);
    client.setRequestHandler('elicitation/create', async (request) => elicit(request));
    let transport;
    if (config.transport === 'http') {
        transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), {
            requestInit: { headers: { Authorization: `Bearer ${config.token}` } },
        });
    } else {
        const stdio = await load('client/dist/stdio.mjs');
        transport = new stdio.StdioClientTransport(stdioParameters());
        keepStderr(transport);
    }
    await client.connect(transport, { timeout: TIMEOUT_MS });
    return {
        client,
        era: client.getProtocolEra?.() ?? null,
        version: client.getNegotiatedProtocolVersion?.() ?? null,
    };
}

async function connectV1() {
    const { Client } = await load('sdk/dist/esm/client/index.js');
    const { ElicitRequestSchema } = await load('sdk/dist/esm/types.js');
    const client = new Client({ name: 'mcp-notes-tests-v1', version: '1.0.0' },
                              { capabilities: { elicitation: { form: {} } } });
    client.setRequestHandler(ElicitRequestSchema, async (request) => elicit(request));
    let transport;
    if (config.transport === 'http') {
        const { StreamableHTTPClientTransport } = await load('sdk/dist/esm/client/streamableHttp.js');
        transport = new StreamableHTTPClientTransport(new URL(config.url), {
            requestInit: { headers: { Authorization: `Bearer ${config.token}` } },
        });
    } else {
        const { StdioClientTransport } = await load('sdk/dist/esm/client/stdio.js');
        transport = new StdioClientTransport(stdioParameters());
        keepStderr(transport);
    }
    await client.connect(transport, { timeout: TIMEOUT_MS });
    return { client, era: 'legacy', version: transport.protocolVersion ?? null };
}

// A desktop host's launch of the gateway: the token in the environment, the
// gateway's logs (stderr) kept apart from the protocol (stdout).
function stdioParameters() {
    return {
        command: config.gateway,
        args: ['--stdio', '--db', config.conninfo],
        env: { PATH: process.env.PATH ?? '/usr/bin:/bin', MCP_NOTES_TOKEN: config.token },
        stderr: 'pipe',
    };
}

function keepStderr(transport) {
    transport.stderr?.on('data', (chunk) => {
        gatewayStderr = (gatewayStderr + chunk.toString()).slice(-2000);
    });
}

function describe(error) {
    const out = { message: String(error?.message ?? error), code: error?.code ?? null, data: error?.data ?? null };
    if (gatewayStderr)
        out.gatewayStderr = gatewayStderr.slice(-600);
    return out;
}

async function flow(flows, name, body) {
    try {
        flows[name] = { ok: true, ...(await body()) };
    } catch (error) {
        flows[name] = { ok: false, error: describe(error) };
    }
}

async function deleteFlow(client, action, title) {
    answer = action;
    asked = [];
    const result = await client.callTool({
        name: 'notes_delete',
        arguments: { workspaceUri: config.workspaceUri, title },
    }, undefined, { timeout: TIMEOUT_MS });
    const deleted = result.structuredContent?.deleted;
    const wanted = action === 'accept';
    if (result.isError || deleted !== wanted)
        throw new Error(`${action}: deleted=${deleted} isError=${result.isError} ${JSON.stringify(result).slice(0, 400)}`);
    if (asked.length !== 1)
        throw new Error(`${action}: the elicitation handler ran ${asked.length} times, not once`);
    return { deleted, asked: asked.length };
}

// Valid arguments for each notes-surface tool (the contract table of issue 12).
function surfaceArguments(name, created) {
    const ws = config.workspaceUri;
    switch (name) {
    case 'notes_create':
        return { workspaceUri: ws, uri: config.createUri, title: 'Created by a client test', body: 'first body' };
    case 'notes_read':
        return { workspaceUri: ws, noteId: config.noteId };
    case 'notes_update':
        return { workspaceUri: ws, noteId: created ?? config.noteId, body: 'updated by a client test' };
    case 'notes_list':
        return { workspaceUri: ws };
    case 'notes_search':
        return { workspaceUri: ws, query: 'TPS' };
    }
    return null;
}

async function surfaceCall(client, name, created) {
    const result = await client.callTool({ name, arguments: surfaceArguments(name, created) },
                                         undefined, { timeout: TIMEOUT_MS });
    const sc = result.structuredContent;
    if (result.isError || !sc)
        throw new Error(`${name}: isError=${result.isError} ${JSON.stringify(result).slice(0, 400)}`);
    const wanted = { notes_create: ['noteId', 'uri'], notes_read: ['noteId', 'title', 'body'],
                     notes_update: ['noteId', 'updatedAt'], notes_list: ['notes'], notes_search: ['notes'] }[name];
    const missing = wanted.filter((k) => !(k in sc));
    if (missing.length)
        throw new Error(`${name}: structuredContent lacks ${missing.join(', ')}: ${JSON.stringify(sc).slice(0, 400)}`);
    return sc;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// Change notifications: a 2026 connection listens (subscriptions/listen), a
// 2025 one subscribes (resources/subscribe, delivered on its GET stream);
// then the note is updated through the same client and the update must come.
async function watchFlow(client, era) {
    const uri = config.watchUri;
    let resolveUpdate;
    const updated = new Promise((resolve) => { resolveUpdate = resolve; });
    const handler = (n) => { if (n.params?.uri === uri) resolveUpdate(n.params.uri); };
    let subscription = null;
    if (config.client === 'v1') {
        const { ResourceUpdatedNotificationSchema } = await load('sdk/dist/esm/types.js');
        client.setNotificationHandler(ResourceUpdatedNotificationSchema, handler);
    } else
        client.setNotificationHandler('notifications/resources/updated', handler);
    if (era === 'modern')
        subscription = await client.listen({ resourceSubscriptions: [uri] }, { timeout: TIMEOUT_MS });
    else {
        await client.subscribeResource({ uri }, { timeout: TIMEOUT_MS });
        await sleep(1000);      // the session's GET stream takes the subscription up
    }
    const started = Date.now();
    await client.callTool({ name: 'notes_update', arguments: { workspaceUri: config.workspaceUri,
                                                              noteId: config.watchNoteId, body: 'changed while watched' } },
                          undefined, { timeout: TIMEOUT_MS });
    const got = await Promise.race([updated, sleep(TIMEOUT_MS).then(() => null)]);
    const ms = Date.now() - started;
    await subscription?.close();
    if (got === null)
        throw new Error(`no notifications/resources/updated for ${uri} within ${TIMEOUT_MS} ms`);
    return { uri: got, ms, honoredFilter: subscription?.honoredFilter ?? null };
}

async function main() {
    const out = { client: config.client, mode: config.mode ?? null, transport: config.transport, flows: {} };
    let connection;
    try {
        connection = config.client === 'v1' ? await connectV1() : await connectV2();
    } catch (error) {
        out.connect = describe(error);
        process.stdout.write(JSON.stringify(out) + '\n');
        return;
    }
    const { client } = connection;
    out.era = connection.era;
    out.protocolVersion = connection.version;
    let tools = [];
    await flow(out.flows, 'list_tools', async () => {
        tools = (await client.listTools(undefined, { timeout: TIMEOUT_MS })).tools.map((t) => t.name);
        if (!tools.includes('notes_delete'))
            throw new Error(`tools/list has no notes_delete: ${JSON.stringify(tools)}`);
        return { tools };
    });
    await flow(out.flows, 'delete_accept', () => deleteFlow(client, 'accept', config.accept));
    await flow(out.flows, 'delete_decline', () => deleteFlow(client, 'decline', config.decline));
    await flow(out.flows, 'delete_cancel', () => deleteFlow(client, 'cancel', config.cancel));
    let created;
    for (const name of SURFACE.filter((n) => tools.includes(n))) {
        await flow(out.flows, name, async () => {
            const sc = await surfaceCall(client, name, created);
            if (name === 'notes_create')
                created = sc.noteId;
            return { structuredContent: sc };
        });
    }
    out.surface = SURFACE.filter((n) => tools.includes(n));
    if (config.watchUri && config.transport === 'http')
        await flow(out.flows, 'watch', () => watchFlow(client, connection.era));
    await client.close().catch(() => {});
    process.stdout.write(JSON.stringify(out) + '\n');
}

main().then(() => process.exit(0), (error) => {
    process.stdout.write(JSON.stringify({ fatal: describe(error) }) + '\n');
    process.exit(1);
});
