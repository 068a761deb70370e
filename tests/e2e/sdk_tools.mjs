// Calls every notes tool through the official TypeScript SDK v2 client
// (@modelcontextprotocol/client), pinned to protocol revision 2026-07-28,
// against a gateway: node sdk_tools.mjs URL TOKEN WORKSPACE FOLDER.
// Prints one JSON object saying what the client saw; test_sdk_tools.py
// starts the gateway and judges it.  Any exception fails the run (exit 1).
import { readFileSync } from 'node:fs';

// The packages live in tests/node/node_modules (scripts/install-node), not
// beside this file: import the client's ESM entry from there.
const pkgDir = new URL('../node/node_modules/@modelcontextprotocol/client/', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', pkgDir)));
const { Client, StreamableHTTPClientTransport } = await import(new URL(pkg.exports['.'].import.default, pkgDir));

const [url, token, workspace, folder] = process.argv.slice(2);

// The default negotiation mode is 'legacy' (2025 initialize); this server
// speaks only the modern era, so the test pins it.
const client = new Client(
    { name: 'mcp-notes-sdk-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: '2026-07-28' } } });
const transport = new StreamableHTTPClientTransport(new URL(url), {
    authProvider: { token: async () => token },
});
await client.connect(transport);

const seen = {
    era: client.getProtocolEra(),
    version: client.getNegotiatedProtocolVersion(),
    server: client.getServerVersion()?.name,
};

const listed = await client.listTools();
seen.tools = Object.fromEntries(listed.tools
    .filter((t) => t.name.startsWith('notes_'))
    .map((t) => [t.name, { title: t.title, hasOutputSchema: !!t.outputSchema, annotations: t.annotations }]));

// With tools/list held, callTool validates structuredContent against the
// tool's outputSchema (a mismatch throws), so this also checks the schemas.
const call = (name, args) => client.callTool({ name, arguments: args });

const created = await call('notes_create', {
    workspaceUri: workspace, uri: `${folder}/sdk.md`, title: 'Written by the SDK', body: 'first' });
seen.created = created.structuredContent;
const noteId = created.structuredContent.noteId;

const read = await call('notes_read', { workspaceUri: workspace, noteId });
seen.read = read.structuredContent;
seen.readText = JSON.parse(read.content[0].text);

const updated = await call('notes_update', {
    workspaceUri: workspace, noteId, body: 'second', expectedUpdatedAt: read.structuredContent.updatedAt });
seen.updated = updated.structuredContent;

const stale = await call('notes_update', {
    workspaceUri: workspace, noteId, body: 'lost', expectedUpdatedAt: read.structuredContent.updatedAt });
seen.stale = { isError: stale.isError, text: stale.content[0].text };

seen.readAgain = (await call('notes_read', { workspaceUri: workspace, noteId })).structuredContent;

// every page of the folder, following nextCursor
seen.pages = [];
let cursor;
do {
    const page = await call('notes_list', cursor ? { workspaceUri: folder, cursor } : { workspaceUri: folder });
    seen.pages.push(page.structuredContent.notes.map((n) => n.uri));
    cursor = page.structuredContent.nextCursor;
} while (cursor && seen.pages.length < 10);

const found = await call('notes_search', { workspaceUri: workspace, query: 'written by the sdk' });
seen.found = found.structuredContent.notes.map((n) => n.noteId);

const outside = await call('notes_read', { workspaceUri: workspace, noteId: 'no-such-note' });
seen.outside = { isError: outside.isError, text: outside.content[0].text };

const malformed = await call('notes_list', { workspaceUri: workspace, cursor: 'not-a-cursor' });
seen.badCursor = { isError: malformed.isError, text: malformed.content[0].text };

await client.close();
console.log(JSON.stringify(seen));
