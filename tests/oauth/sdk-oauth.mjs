// The official TS SDK v2 client as an OAuth client of mcp_notes: given only
// the server URL and its client credentials, it must discover everything
// from the 401 (Protected Resource Metadata, then the authorization server's
// metadata), get a token from the real IdP, and run a whole notes_delete
// accept, stepping up when the server answers 403 insufficient_scope.
// Prints one JSON object on stdout:
//   {ok, flows: {name: {ok, ...}}, requests: [{method, url, status}], error?}
//
//   node sdk-oauth.mjs CONFIG_JSON
//
// CONFIG: {url, clientId, clientSecret, issuer, workspaceUri, title,
//          token (instead of client credentials: a bearer token to send as is)}

const modules = new URL('../node/node_modules/@modelcontextprotocol/', import.meta.url);
const sdk = await import(new URL('client/dist/index.mjs', modules).href);

const config = JSON.parse(process.argv[2]);
const TIMEOUT_MS = 20000;
const requests = [];

// every HTTP exchange the client makes, in order (no bodies, no tokens)
async function loggingFetch(input, init) {
    const url = typeof input === 'string' ? input : input.url ?? String(input);
    const method = init?.method ?? (typeof input === 'object' && input.method) ?? 'GET';
    const response = await fetch(input, init);
    requests.push({ method, url, status: response.status });
    return response;
}

function describe(error) {
    return { message: String(error?.message ?? error), code: error?.code ?? null, name: error?.name ?? null };
}

async function flow(flows, name, body) {
    try {
        flows[name] = { ok: true, ...(await body()) };
    } catch (error) {
        flows[name] = { ok: false, error: describe(error) };
    }
}

async function main() {
    const out = { flows: {}, requests };
    const options = { capabilities: { elicitation: { form: {} } }, versionNegotiation: { mode: { pin: '2026-07-28' } } };
    const client = new sdk.Client({ name: 'mcp-notes-oauth-test', version: '1.0.0' }, options);
    let asked = 0;
    client.setRequestHandler('elicitation/create', async (request) => {
        asked++;
        const choice = request.params.requestedSchema?.properties?.note_id ?? {};
        return { action: 'accept', content: { note_id: choice.oneOf?.[0]?.const, confirm: true } };
    });
    const transportOptions = { fetch: loggingFetch };
    if (config.token)
        transportOptions.requestInit = { headers: { Authorization: `Bearer ${config.token}` } };
    else
        transportOptions.authProvider = new sdk.ClientCredentialsProvider({
            clientId: config.clientId, clientSecret: config.clientSecret, expectedIssuer: config.issuer,
        });
    const transport = new sdk.StreamableHTTPClientTransport(new URL(config.url), transportOptions);
    try {
        await client.connect(transport, { timeout: TIMEOUT_MS });
    } catch (error) {
        out.ok = false;
        out.error = describe(error);
        process.stdout.write(JSON.stringify(out) + '\n');
        return;
    }
    await flow(out.flows, 'list_tools', async () => {
        const tools = (await client.listTools(undefined, { timeout: TIMEOUT_MS })).tools.map((t) => t.name);
        return { tools };
    });
    await flow(out.flows, 'delete_accept', async () => {
        const result = await client.callTool({
            name: 'notes_delete', arguments: { workspaceUri: config.workspaceUri, title: config.title },
        }, undefined, { timeout: TIMEOUT_MS });
        const deleted = result.structuredContent?.deleted;
        if (result.isError || deleted !== true)
            throw new Error(`deleted=${deleted} isError=${result.isError} ${JSON.stringify(result).slice(0, 400)}`);
        return { deleted, asked };
    });
    out.tokenScope = transportOptions.authProvider?.tokens()?.scope ?? null;
    out.ok = Object.values(out.flows).every((f) => f.ok);
    await client.close().catch(() => {});
    process.stdout.write(JSON.stringify(out) + '\n');
}

main().catch((error) => {
    process.stdout.write(JSON.stringify({ ok: false, error: describe(error), requests }) + '\n');
    process.exitCode = 1;
});
