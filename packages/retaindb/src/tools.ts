import fs from 'node:fs';
import path from 'node:path';
import {
  type ToolArgs,
  type ToolSchema,
  enumArg,
  integerArg,
  optionalNumber,
  optionalString,
  parseBoolean,
  parseToolArgs,
  scanWrite,
  secretPathReason,
} from '@hermes-memory/core';
import type { JsonObject, RetaindbClient } from './client';

export const MEMORY_TYPES = ['factual', 'preference', 'goal', 'instruction', 'event', 'opinion'] as const;
const FILE_SCOPES = ['USER', 'PROJECT', 'ORG'] as const;
const TEXT_EXTENSIONS = ['.txt', '.md', '.json', '.csv', '.yaml', '.yml', '.xml', '.html'];
/** Characters of a text file `retaindb_read_file` returns. */
export const READ_FILE_CHARS = 32_000;
/** Largest file the upload tool reads into memory. */
const MAX_UPLOAD_BYTES = 50 * 1024 * 1024;

const str = (description: string, extra: Record<string, unknown> = {}) => ({
  type: 'string',
  description,
  ...extra,
});

function schema(
  name: string,
  description: string,
  properties: Record<string, unknown> = {},
  required: string[] = [],
): ToolSchema {
  return { name, description, parameters: { type: 'object', properties, required } };
}

/** The reference's ten tools: five memory tools and five file tools. */
export const TOOL_SCHEMAS: readonly ToolSchema[] = [
  schema(
    'retaindb_profile',
    "Get the user's stable profile — preferences, facts, and patterns recalled from long-term memory.",
  ),
  schema(
    'retaindb_search',
    'Semantic search across stored memories. Returns ranked results with relevance scores.',
    {
      query: str('What to search for.'),
      top_k: { type: 'integer', description: 'Max results (default: 8, max: 20).' },
    },
    ['query'],
  ),
  schema(
    'retaindb_context',
    'Synthesized context block — what matters most for the current task, pulled from long-term memory.',
    { query: str('Current task or question.') },
    ['query'],
  ),
  schema(
    'retaindb_remember',
    'Persist an explicit fact, preference, or decision to long-term memory.',
    {
      content: str('The fact to remember.'),
      memory_type: str('Category (default: factual).', { enum: [...MEMORY_TYPES] }),
      importance: { type: 'number', description: 'Importance 0-1 (default: 0.7).' },
    },
    ['content'],
  ),
  schema('retaindb_forget', 'Delete a specific memory by ID.', { memory_id: str('Memory ID to delete.') }, [
    'memory_id',
  ]),
  schema(
    'retaindb_upload_file',
    'Upload a file to the shared RetainDB file store. Returns an rdb:// URI any agent can reference.',
    {
      local_path: str('Local file path to upload.'),
      remote_path: str('Destination path, e.g. /reports/q1.pdf'),
      scope: str('Access scope (default: PROJECT).', { enum: [...FILE_SCOPES] }),
      ingest: {
        type: 'boolean',
        description: 'Also extract memories from file after upload (default: false).',
      },
    },
    ['local_path'],
  ),
  schema('retaindb_list_files', 'List files in the shared file store.', {
    prefix: str('Path prefix to filter by, e.g. /reports/'),
    limit: { type: 'integer', description: 'Max results (default: 50).' },
  }),
  schema(
    'retaindb_read_file',
    'Read the text content of a stored file by its file ID.',
    { file_id: str('File ID returned from upload or list.') },
    ['file_id'],
  ),
  schema(
    'retaindb_ingest_file',
    'Chunk, embed, and extract memories from a stored file. Makes its contents searchable.',
    { file_id: str('File ID to ingest.') },
    ['file_id'],
  ),
  schema('retaindb_delete_file', 'Delete a stored file.', { file_id: str('File ID to delete.') }, [
    'file_id',
  ]),
];

/** What the tools need from the provider. */
export interface ToolHost {
  client: RetaindbClient;
  userId: string;
  sessionId: string;
  agentId: string;
  hermesHome: string;
  /** False outside the primary agent context: tools that change the service refuse. */
  writable: boolean;
  /** The `[RetainDB Context]` overlay and the raw query result for `query`. */
  context(query: string, signal?: AbortSignal): Promise<{ context: string; raw: JsonObject }>;
}

type Handler = (host: ToolHost, args: ToolArgs, value: string, signal?: AbortSignal) => Promise<unknown>;

/** tool → (required argument, whether it changes the service, handler). */
const TOOLS: Record<string, { required: string | null; writes: boolean; run: Handler }> = {
  retaindb_profile: {
    required: null,
    writes: false,
    run: (h, _a, _v, s) => h.client.getProfile(h.userId, s),
  },
  retaindb_search: {
    required: 'query',
    writes: false,
    run: (h, a, q, s) =>
      h.client.search(
        { userId: h.userId, sessionId: h.sessionId },
        q,
        integerArg(a, 'top_k', { fallback: 8, min: 1, max: 20 }),
        s,
      ),
  },
  retaindb_context: { required: 'query', writes: false, run: (h, _a, q, s) => h.context(q, s) },
  retaindb_remember: { required: 'content', writes: true, run: remember },
  retaindb_forget: {
    required: 'memory_id',
    writes: true,
    run: (h, _a, id, s) => h.client.deleteMemory(id, s),
  },
  retaindb_upload_file: { required: 'local_path', writes: true, run: uploadFile },
  retaindb_list_files: {
    required: null,
    writes: false,
    run: (h, a, _v, s) =>
      h.client.listFiles(
        optionalString(a, 'prefix') || undefined,
        integerArg(a, 'limit', { fallback: 50, min: 1, max: 1000 }),
        s,
      ),
  },
  retaindb_read_file: { required: 'file_id', writes: false, run: readFile },
  retaindb_ingest_file: { required: 'file_id', writes: true, run: (h, _a, id, s) => ingest(h, id, s) },
  retaindb_delete_file: {
    required: 'file_id',
    writes: true,
    run: (h, _a, id, s) => h.client.deleteFile(id, s),
  },
};

export function isToolName(name: string): boolean {
  return Object.hasOwn(TOOLS, name);
}

/**
 * Dispatch one call the way the reference does: a missing required argument is
 * `{"error": "<arg> is required"}` (a normal result), an unknown tool `{"error": "Unknown tool: X"}`;
 * anything thrown is the caller's to turn into a tool error.
 */
export async function dispatchTool(
  host: ToolHost,
  name: string,
  rawArgs: unknown,
  signal?: AbortSignal,
): Promise<unknown> {
  const tool = Object.hasOwn(TOOLS, name) ? TOOLS[name] : undefined;
  if (!tool) return { error: `Unknown tool: ${name}` };
  const args = parseToolArgs(rawArgs);
  const value = tool.required ? args[tool.required] : undefined;
  if (tool.required && (value === undefined || value === null || value === '' || value === false)) {
    return { error: `${tool.required} is required` };
  }
  if (tool.required && typeof value !== 'string' && typeof value !== 'number') {
    return { error: `${tool.required} must be a string` };
  }
  if (tool.writes && !host.writable) {
    return { error: 'RetainDB memory is read-only in this context (only the primary agent writes).' };
  }
  return tool.run(host, args, String(value ?? ''), signal);
}

async function remember(
  host: ToolHost,
  args: ToolArgs,
  content: string,
  signal?: AbortSignal,
): Promise<unknown> {
  // Stored text comes back into later prompts: refuse what the write scanner blocks.
  const scan = scanWrite(content, { scope: 'strict' });
  if (!scan.ok) return { error: scan.message };
  const importance = optionalNumber(args, 'importance') ?? 0.7;
  if (importance < 0 || importance > 1) return { error: 'importance must be between 0 and 1' };
  return host.client.addMemory(
    { userId: host.userId, sessionId: host.sessionId },
    { content, memoryType: enumArg(args, 'memory_type', MEMORY_TYPES) ?? 'factual', importance },
    signal,
  );
}

/**
 * Upload a local file. A path the file-safety rule calls secret-bearing (the credential store
 * `auth.json`, `.env`, keys, `~/.ssh`…, also through a link) is refused before any request.
 */
async function uploadFile(
  host: ToolHost,
  args: ToolArgs,
  localPath: string,
  signal?: AbortSignal,
): Promise<unknown> {
  const resolved = path.resolve(localPath);
  const blocked = secretPathReason(resolved, { hermesHome: host.hermesHome });
  if (blocked) return { error: `Refusing to read ${localPath}: ${blocked}.` };
  let stat: fs.Stats;
  try {
    stat = fs.statSync(resolved);
  } catch {
    return { error: `File not found: ${localPath}` };
  }
  if (!stat.isFile()) return { error: `Not a regular file: ${localPath}` };
  if (stat.size > MAX_UPLOAD_BYTES)
    return { error: `File is larger than ${MAX_UPLOAD_BYTES} bytes: ${localPath}` };
  const name = path.basename(resolved);
  // The reference uppercases the scope: "user" is USER.
  const rawScope = optionalString(args, 'scope');
  const scope = enumArg({ scope: rawScope?.toUpperCase() }, 'scope', FILE_SCOPES) ?? 'PROJECT';
  const result = await host.client.uploadFile(
    { data: fs.readFileSync(resolved), name, mimeType: mimeType(name) },
    optionalString(args, 'remote_path') || `/${name}`,
    scope,
    signal,
  );
  const file = result.file as JsonObject | undefined;
  const wantsIngest = args.ingest === true || parseBoolean(args.ingest) === true;
  if (wantsIngest && typeof file?.id === 'string' && file.id !== '') {
    return { ...result, ingest: await ingest(host, file.id, signal) };
  }
  return result;
}

async function readFile(
  host: ToolHost,
  _args: ToolArgs,
  fileId: string,
  signal?: AbortSignal,
): Promise<unknown> {
  const info = ((await host.client.getFile(fileId, signal)).file ?? {}) as JsonObject;
  const name = typeof info.name === 'string' ? info.name : '';
  const mime = typeof info.mime_type === 'string' ? info.mime_type.toLowerCase() : '';
  const out = { file_id: fileId, rdb_uri: info.rdb_uri ?? null, name: name || null };
  const isText = mime.startsWith('text/') || TEXT_EXTENSIONS.some((ext) => name.toLowerCase().endsWith(ext));
  if (!isText) {
    return {
      ...out,
      content: null,
      note: 'Binary file — use retaindb_ingest_file to extract text into memory.',
    };
  }
  const text = await host.client.readFileContent(fileId, signal);
  return { ...out, content: text.slice(0, READ_FILE_CHARS), truncated: text.length > READ_FILE_CHARS };
}

function ingest(host: ToolHost, fileId: string, signal?: AbortSignal): Promise<JsonObject> {
  return host.client.ingestFile(fileId, { userId: host.userId, agentId: host.agentId }, signal);
}

const MIME: Record<string, string> = {
  '.txt': 'text/plain',
  '.md': 'text/markdown',
  '.json': 'application/json',
  '.csv': 'text/csv',
  '.yaml': 'application/yaml',
  '.yml': 'application/yaml',
  '.xml': 'application/xml',
  '.html': 'text/html',
  '.pdf': 'application/pdf',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.zip': 'application/zip',
};

/** Guessed from the name, application/octet-stream otherwise. */
export function mimeType(name: string): string {
  return MIME[path.extname(name).toLowerCase()] ?? 'application/octet-stream';
}
