// The peer of make bench: the official TypeScript SDK v2 server
// (@modelcontextprotocol/server) serving the same notes_delete flow as
// mcp_notes, with its notes in memory: step 1 answers input_required with
// the delete_choice form and an HMAC-sealed requestState (the SDK's own
// codec, createRequestStateCodec), step 2 deletes the accepted note.  The
// 2026-07-28 multi-round-trip API as the SDK documents it: inputRequired(),
// inputRequired.elicit(), acceptedContent(), ctx.mcpReq.requestState().
//
//   node bench/peer/server.mjs PORT NOTES_FILE
//
// NOTES_FILE: one note a line, "uri<TAB>title".  POST /admin/notes with
// the same format adds notes, POST /admin/remove with URIs (one a line)
// removes them; GET /admin/count answers the number of notes.
// Listens on 127.0.0.1 only; prints "listening PORT" when ready.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { pathToFileURL } from 'node:url';
import path from 'node:path';

const modules = process.env.MCP_NOTES_NODE_MODULES ??
    path.resolve(path.dirname(new URL(import.meta.url).pathname), '../../tests/node/node_modules');
const sdk = await import(pathToFileURL(path.join(modules, '@modelcontextprotocol/server/dist/index.mjs')).href);
const { McpServer, createMcpHandler, createRequestStateCodec, inputRequired, acceptedContent, fromJsonSchema } = sdk;

const MAX_CANDIDATES = 25;
const notes = new Map();                    // note id -> { uri, title, lower: lower-cased title }

function addNotes(text) {
    let n = 0;
    for (const line of text.split('\n')) {
        const tab = line.indexOf('\t');
        if (tab > 0) {
            const title = line.slice(tab + 1);
            notes.set(randomUUID(), { uri: line.slice(0, tab), title, lower: title.toLowerCase() });
            n++;
        }
    }
    return n;
}

// the same decision as mcp_notes: inside by whole components, contains, case-insensitive
function candidates(workspace, title) {
    const prefix = workspace.endsWith('/') ? workspace : workspace + '/';
    const needle = title.toLowerCase();
    const found = [];
    for (const [id, n] of notes) {
        if ((n.uri === workspace || n.uri.startsWith(prefix)) && n.lower.includes(needle)) {
            found.push({ id, uri: n.uri, title: n.title });
            if (found.length > MAX_CANDIDATES) break;
        }
    }
    return found;
}

const codec = createRequestStateCodec({ key: randomBytes(32), ttlSeconds: 300,
                                        bind: ctx => `${ctx.mcpReq.method}\0notes_delete` });
const inputSchema = fromJsonSchema({
    type: 'object',
    properties: { workspaceUri: { type: 'string' }, title: { type: 'string', minLength: 1, maxLength: 200 } },
    required: ['workspaceUri', 'title'],
    additionalProperties: false,
});
const fail = text => ({ content: [{ type: 'text', text }], isError: true });

async function notesDelete({ workspaceUri, title }, ctx) {
    const state = await ctx.mcpReq.requestState?.();
    if (!state) {
        const found = candidates(workspaceUri, title);
        if (found.length === 0) return fail(`No note in ${workspaceUri} has a title containing "${title}".`);
        if (found.length > MAX_CANDIDATES) return fail(`More than ${MAX_CANDIDATES} notes match "${title}".`);
        found.sort((a, b) => (a.uri < b.uri ? -1 : a.uri > b.uri ? 1 : 0));
        return inputRequired({
            inputRequests: {
                delete_choice: inputRequired.elicit({
                    message: `Delete a note from ${workspaceUri}? Pick the note to delete and confirm. This cannot be undone.`,
                    requestedSchema: {
                        type: 'object',
                        properties: {
                            note_id: { type: 'string', title: 'Note to delete',
                                       oneOf: found.map(n => ({ const: n.id, title: `${n.title} — ${n.uri}` })) },
                            confirm: { type: 'boolean', title: 'Yes, delete this note permanently', default: false },
                        },
                        required: ['note_id', 'confirm'],
                    },
                }),
            },
            requestState: await codec.mint({ workspaceUri, title, candidates: found.map(n => n.id) }, ctx),
        });
    }
    const answer = acceptedContent(ctx.mcpReq.inputResponses, 'delete_choice');
    if (state.workspaceUri !== workspaceUri || state.title !== title) return fail('The arguments changed.');
    if (!answer || answer.confirm !== true) return { content: [{ type: 'text', text: 'Nothing deleted.' }] };
    if (!state.candidates.includes(answer.note_id) || !notes.delete(answer.note_id)) {
        return fail('That note is not one the form offered, or it is gone.');
    }
    return { content: [{ type: 'text', text: `Deleted note ${answer.note_id}.` }],
             structuredContent: { deleted: true, noteId: answer.note_id } };
}

const handler = createMcpHandler(() => {
    const server = new McpServer({ name: 'notes-peer', version: '1.0.0' },
                                 { requestState: { verify: codec.verify } });
    server.registerTool('notes_delete', { description: 'Delete a note, after the user confirms', inputSchema },
                        notesDelete);
    return server;
});

// node:http -> the handler's web-standard fetch face
const http = createServer(async (req, res) => {
    const chunks = [];
    for await (const c of req) chunks.push(c);
    const body = Buffer.concat(chunks);
    if (req.url === '/admin/notes' && req.method === 'POST') {
        res.end(String(addNotes(body.toString('utf8'))));
        return;
    }
    if (req.url === '/admin/remove' && req.method === 'POST') {
        const uris = new Set(body.toString('utf8').split('\n'));
        for (const [id, n] of notes) if (uris.has(n.uri)) notes.delete(id);
        res.end(String(notes.size));
        return;
    }
    if (req.url === '/admin/count') {
        res.end(String(notes.size));
        return;
    }
    const request = new Request(`http://127.0.0.1${req.url}`, {
        method: req.method, headers: req.headers, body: req.method === 'GET' || req.method === 'HEAD' ? undefined : body,
    });
    const response = await handler.fetch(request);
    const out = Buffer.from(await response.arrayBuffer());
    // a length, not chunks: the load generator reads Content-Length answers
    res.writeHead(response.status, { ...Object.fromEntries(response.headers), 'content-length': out.length });
    res.end(out);
});
http.keepAliveTimeout = 60000;
const [port, file] = process.argv.slice(2);
if (file) addNotes(readFileSync(file, 'utf8'));
http.listen(Number(port), '127.0.0.1', () => console.log(`listening ${http.address().port}`));
