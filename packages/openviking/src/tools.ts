import crypto from 'node:crypto';
import {
  describeError,
  enumArg,
  integerArg,
  optionalNumber,
  optionalString,
  parseBoolean,
  parseToolArgs,
  scanWrite,
  type ToolSchema,
  toolError,
  toolResult,
} from '@hermes-memory/core';
import { asRecord, type OpenvikingClient, stringOf, type VikingHit } from './client';
import { isRemoteSource, localPath, readLocalUpload } from './resources';

export const TOOL_NAMES = {
  search: 'viking_search',
  read: 'viking_read',
  browse: 'viking_browse',
  remember: 'viking_remember',
  forget: 'viking_forget',
  addResource: 'viking_add_resource',
} as const;

export const NOT_CONNECTED = 'OpenViking server not connected';
const READ_LIMITS = { abstract: 1200, overview: 4000, full: 8000 } as const;
const BATCH_FULL_LIMIT = 2500;
const MAX_READ_URIS = 3;
const BROWSE_LIMIT = 50;

export interface ToolContext {
  client: OpenvikingClient;
  /** The live session ('' when none), for deep search. */
  sessionId: string;
  writable: boolean;
  hermesHome: string;
  signal: AbortSignal;
}

export function toolSchemas(): ToolSchema[] {
  const string = (description: string) => ({ type: 'string', description });
  return [
    {
      name: TOOL_NAMES.search,
      description:
        'Search OpenViking memory (memories, resources, skills) for remembered facts and context. Search first; then read specific URIs with viking_read.',
      parameters: {
        type: 'object',
        properties: {
          query: string('What to look for.'),
          mode: {
            type: 'string',
            enum: ['auto', 'fast', 'deep'],
            description: 'fast = plain find; deep = session-aware search. Default auto.',
          },
          scope: string('A viking:// URI prefix to search under.'),
          limit: { type: 'integer', minimum: 1, maximum: 50, description: 'Maximum results (default 10).' },
        },
        required: ['query'],
      },
    },
    {
      name: TOOL_NAMES.read,
      description:
        'Read up to three viking:// URIs at a level: abstract (short), overview (default) or full.',
      parameters: {
        type: 'object',
        properties: {
          uri: string('One viking:// URI.'),
          uris: {
            type: 'array',
            items: { type: 'string' },
            maxItems: MAX_READ_URIS,
            description: 'Up to three URIs.',
          },
          level: { type: 'string', enum: ['abstract', 'overview', 'full'], description: 'Default overview.' },
        },
      },
    },
    {
      name: TOOL_NAMES.browse,
      description: 'Browse the OpenViking tree (diagnostics): list a folder, show its tree, or stat a URI.',
      parameters: {
        type: 'object',
        properties: {
          action: { type: 'string', enum: ['tree', 'list', 'stat'] },
          path: string('A viking:// URI (default viking://).'),
        },
        required: ['action'],
      },
    },
    {
      name: TOOL_NAMES.remember,
      description:
        'Remember a durable fact: it is submitted to OpenViking, which extracts memories from it. Use for stable facts and preferences.',
      parameters: {
        type: 'object',
        properties: { content: string('The fact, self-contained.') },
        required: ['content'],
      },
    },
    {
      name: TOOL_NAMES.forget,
      description: 'Delete one memory file (a viking://user/…/memories/…/<name>.md URI from search results).',
      parameters: { type: 'object', properties: { uri: string('The memory file URI.') }, required: ['uri'] },
    },
    {
      name: TOOL_NAMES.addResource,
      description:
        'Add a resource to OpenViking: a web or git URL (fetched by the server) or a local file or folder (uploaded).',
      parameters: {
        type: 'object',
        properties: {
          url: string('http(s)://, git@…, ssh://, git://, file:// or a local path.'),
          reason: string('Why it matters (helps retrieval).'),
          to: string('Exact viking:// URI to place it at (not with parent).'),
          parent: string('viking:// folder to place it under (not with to).'),
          instruction: string('Processing instruction for the server.'),
          wait: { type: 'boolean', description: 'Wait for processing.' },
          timeout: { type: 'number', description: 'Seconds to wait when wait is true.' },
        },
        required: ['url'],
      },
    },
  ];
}

/** One tool call; answers JSON. Throws only for the caller's guard to turn into JSON. */
export async function runTool(name: string, rawArgs: unknown, ctx: ToolContext): Promise<string> {
  const args = parseToolArgs(rawArgs);
  const call = { signal: ctx.signal };
  switch (name) {
    case TOOL_NAMES.search:
      return search(args, ctx, call);
    case TOOL_NAMES.read:
      return read(args, ctx, call);
    case TOOL_NAMES.browse:
      return browse(args, ctx, call);
    case TOOL_NAMES.remember:
      return remember(args, ctx, call);
    case TOOL_NAMES.forget:
      return forget(args, ctx, call);
    case TOOL_NAMES.addResource:
      return addResource(args, ctx, call);
    default:
      return toolError(`Unknown tool '${name}' for the OpenViking memory provider.`);
  }
}

type Args = ReturnType<typeof parseToolArgs>;
type Call = { signal: AbortSignal };

async function search(args: Args, ctx: ToolContext, call: Call): Promise<string> {
  const query = stringOf(args.query);
  if (!query) return toolError("'query' must be a non-empty string.");
  const mode = enumArg(args, 'mode', ['auto', 'fast', 'deep'] as const) ?? 'auto';
  const scope = optionalString(args, 'scope');
  if (scope !== undefined && scope !== '' && !scope.startsWith('viking://'))
    return toolError("'scope' must be a viking:// URI.");
  const limit = integerArg(args, 'limit', { fallback: 10, min: 1, max: 50 });
  const deep = mode === 'deep' && ctx.sessionId !== '';
  const found = await ctx.client.search(
    {
      query,
      limit,
      ...(scope ? { target_uri: scope } : {}),
      ...(deep ? { session_id: ctx.sessionId } : {}),
    },
    call,
  );
  const merged = [
    ...found.memories.map((hit) => ({ hit, type: 'memory' })),
    ...found.resources.map((hit) => ({ hit, type: 'resource' })),
    ...found.skills.map((hit) => ({ hit, type: 'skill' })),
  ].sort((a, b) => rawScore(b.hit) - rawScore(a.hit));
  const results = merged.map(({ hit, type }) => {
    const related = relatedOf(hit);
    return {
      uri: hit.uri,
      type,
      score: Math.round(rawScore(hit) * 1000) / 1000,
      abstract: hit.abstract ?? '',
      ...(related.length > 0 ? { related } : {}),
    };
  });
  return toolResult({ results, total: results.length });
}

function rawScore(hit: VikingHit): number {
  return typeof hit.score === 'number' && Number.isFinite(hit.score) ? hit.score : 0;
}

function relatedOf(hit: VikingHit): string[] {
  if (!Array.isArray(hit.relations)) return [];
  return hit.relations
    .map((r) => (typeof r === 'string' ? r : stringOf(asRecord(r).uri)))
    .filter((u): u is string => typeof u === 'string')
    .slice(0, 3);
}

type Level = keyof typeof READ_LIMITS;
const PSEUDO: Record<string, Level> = {
  '.abstract.md': 'abstract',
  '.overview.md': 'overview',
  '.read.md': 'full',
  '.full.md': 'full',
};

async function read(args: Args, ctx: ToolContext, call: Call): Promise<string> {
  const level = enumArg(args, 'level', ['abstract', 'overview', 'full'] as const) ?? 'overview';
  const requested: string[] = [];
  const single = stringOf(args.uri);
  if (single) requested.push(single.trim());
  if (Array.isArray(args.uris))
    for (const u of args.uris) if (typeof u === 'string' && u.trim() !== '') requested.push(u.trim());
  const unique = [...new Set(requested)];
  if (unique.length === 0) return toolError("Pass 'uri' or 'uris' (viking:// URIs).");
  const bad = unique.find((u) => !u.startsWith('viking://'));
  if (bad) return toolError(`'${bad}' is not a viking:// URI.`);
  const batch = unique.length > 1 || Array.isArray(args.uris);
  if (!batch) return toolResult(await readOne(unique[0]!, level, READ_LIMITS[level], ctx, call));
  const chosen = unique.slice(0, MAX_READ_URIS);
  const limit = level === 'full' ? BATCH_FULL_LIMIT : READ_LIMITS[level];
  const results = [];
  for (const uri of chosen) {
    try {
      results.push(await readOne(uri, level, limit, ctx, call));
    } catch (error) {
      results.push({ uri, error: describeError(error) });
    }
  }
  return toolResult({
    level,
    results,
    requested: unique.length,
    returned: results.length,
    truncated: unique.length > MAX_READ_URIS ? unique.slice(MAX_READ_URIS) : [],
  });
}

async function readOne(uri: string, asked: Level, limit: number, ctx: ToolContext, call: Call) {
  let target = uri;
  let level = asked;
  const base = uri.slice(uri.lastIndexOf('/') + 1);
  const pseudo = PSEUDO[base];
  if (pseudo) {
    target = uri.slice(0, uri.lastIndexOf('/'));
    level = pseudo;
  }
  let content: string;
  let fallback: string | undefined;
  if (level === 'full') content = await ctx.client.content('read', target, call);
  else {
    let isDir = true;
    try {
      isDir = asRecord(await ctx.client.stat(target, call)).is_dir !== false;
    } catch {}
    try {
      if (!isDir) throw new Error('a file');
      content = await ctx.client.content(level, target, call);
    } catch {
      content = await ctx.client.content('read', target, call);
      fallback = 'content/read';
    }
  }
  return {
    uri,
    resolved_uri: target,
    level,
    content: truncate(content, limit),
    ...(fallback ? { fallback } : {}),
  };
}

function truncate(text: string, limit: number): string {
  if (text.length <= limit) return text;
  return `${text.slice(0, limit)}\n[... truncated ${text.length - limit} chars; read a narrower URI or level ...]`;
}

async function browse(args: Args, ctx: ToolContext, call: Call): Promise<string> {
  const action = enumArg(args, 'action', ['tree', 'list', 'stat'] as const);
  if (!action) return toolError("'action' must be one of tree, list, stat.");
  const target = stringOf(args.path)?.trim() ?? 'viking://';
  if (!target.startsWith('viking://')) return toolError("'path' must be a viking:// URI.");
  if (action === 'stat') return toolResult({ path: target, stat: await ctx.client.stat(target, call) });
  const entries =
    action === 'list' ? await ctx.client.ls(target, {}, call) : await ctx.client.tree(target, call);
  return toolResult({
    path: target,
    entries: entries.slice(0, BROWSE_LIMIT).map((e) => ({
      name: e.name ?? e.uri.slice(e.uri.lastIndexOf('/') + 1),
      uri: e.uri,
      type: e.is_dir ? 'dir' : 'file',
      abstract: e.abstract ?? '',
    })),
    ...(entries.length > BROWSE_LIMIT ? { truncated: entries.length - BROWSE_LIMIT } : {}),
  });
}

async function remember(args: Args, ctx: ToolContext, call: Call): Promise<string> {
  if (!ctx.writable)
    return toolError('OpenViking memory is read-only in this context (only the primary agent writes).');
  const content = stringOf(args.content)?.trim();
  if (!content) return toolError("'content' must be a non-empty string.");
  const scan = scanWrite(content);
  if (!scan.ok) return toolError(scan.message);
  const sessionId = `hermes-remember-${crypto.randomBytes(6).toString('hex')}`;
  const sessionUri = `viking://session/${sessionId}`;
  const failure = (stage: 'message' | 'commit', status: 'unknown' | 'accepted', error: unknown) =>
    toolError(`OpenViking remember failed at the ${stage} step: ${describeError(error)}`, {
      session_id: sessionId,
      session_uri: sessionUri,
      failure_stage: stage,
      message_status: status,
      recovery_command: `ov session commit ${sessionId}`,
      note:
        status === 'accepted'
          ? 'The fact reached the server but was not committed; run the recovery command to extract it.'
          : 'The fact may not have reached the server; try again.',
    });
  try {
    await ctx.client.addMessage(sessionId, { role: 'user', parts: [{ type: 'text', text: content }] }, call);
  } catch (error) {
    return failure('message', 'unknown', error);
  }
  let committed: Record<string, unknown>;
  try {
    committed = await ctx.client.commit(sessionId, call);
  } catch (error) {
    return failure('commit', 'accepted', error);
  }
  return toolResult({
    status: 'submitted',
    session_id: sessionId,
    session_uri: sessionUri,
    message_status: 'accepted',
    extraction_status: stringOf(committed.status) ?? 'committed',
    message: 'Submitted; OpenViking extracts the memory from it.',
    ...(stringOf(committed.task_id) ? { task_id: committed.task_id } : {}),
    ...(stringOf(committed.trace_id) ? { trace_id: committed.trace_id } : {}),
  });
}

/** Concrete memory files only: `viking://user/[<uid>/][peers/<p>/]memories/…/<name>.md`, no summaries. */
export function forgettableUri(uri: string): string | null {
  if (/[?#]/.test(uri)) return 'the URI must not have a query or fragment';
  if (!/^viking:\/\/user\/([^/]+\/)?(peers\/[^/]+\/)?memories\/(.+\/)?[^/]+\.md$/.test(uri))
    return 'only memory files (viking://user/…/memories/…/<name>.md) can be forgotten';
  if (/\/\.\.?(\/|$)/.test(uri)) return 'the URI must not contain . or .. segments';
  const name = uri.slice(uri.lastIndexOf('/') + 1);
  if (name.startsWith('.')) return 'generated summaries (.abstract.md, .overview.md) cannot be deleted';
  return null;
}

async function forget(args: Args, ctx: ToolContext, call: Call): Promise<string> {
  if (!ctx.writable)
    return toolError('OpenViking memory is read-only in this context (only the primary agent writes).');
  const uri = stringOf(args.uri)?.trim();
  if (!uri) return toolError("'uri' must be a viking:// memory file URI.");
  const refused = forgettableUri(uri);
  if (refused) return toolError(`Cannot forget '${uri}': ${refused}.`);
  const stat = asRecord(await ctx.client.stat(uri, call));
  if (stat.is_dir === true) return toolError(`Cannot forget '${uri}': it is a directory.`);
  const result = await ctx.client.remove(uri, call);
  const extra: Record<string, unknown> = {};
  for (const key of [
    'estimated_deleted_count',
    'memory_cleanup',
    'semantic_root_uri',
    'semantic_status',
    'queue_status',
  ])
    if (result[key] !== undefined) extra[key] = result[key];
  return toolResult({ status: 'deleted', uri, ...extra });
}

async function addResource(args: Args, ctx: ToolContext, call: Call): Promise<string> {
  if (!ctx.writable)
    return toolError('OpenViking memory is read-only in this context (only the primary agent writes).');
  const source = stringOf(args.url)?.trim();
  if (!source) return toolError("'url' must be a URL or a local path.");
  const to = optionalString(args, 'to');
  const parent = optionalString(args, 'parent');
  if (to && parent) return toolError("'to' and 'parent' are mutually exclusive.");
  for (const [key, value] of [
    ['to', to],
    ['parent', parent],
  ] as const)
    if (value && !value.startsWith('viking://')) return toolError(`'${key}' must be a viking:// URI.`);
  const body: Record<string, unknown> = {};
  for (const key of ['reason', 'instruction'] as const) {
    const value = optionalString(args, key);
    if (value) body[key] = value;
  }
  if (to) body.to = to;
  if (parent) body.parent = parent;
  const wait = parseBoolean(args.wait);
  if (wait !== undefined) body.wait = wait;
  const timeout = optionalNumber(args, 'timeout');
  if (timeout !== undefined && timeout > 0) body.timeout = Math.min(timeout, 600);
  let skipped: string[] = [];
  if (isRemoteSource(source)) body.path = source;
  else {
    const file = localPath(source);
    if (!file) return toolError(`'${source}' is neither a remote URL nor a local path on this host.`);
    let upload: ReturnType<typeof readLocalUpload>;
    try {
      upload = readLocalUpload(file, ctx.hermesHome);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      return toolError(code === 'ENOENT' ? `No such file or folder: ${file}` : describeError(error));
    }
    skipped = upload.skipped;
    body.temp_file_id = await ctx.client.tempUpload(upload.bytes, upload.name, call);
    body.source_name = upload.name;
  }
  const result = await ctx.client.addResource(body, call);
  return toolResult({
    status: 'added',
    root_uri: stringOf(result.root_uri) ?? '',
    message: 'Added; OpenViking indexes it in the background.',
    ...(skipped.length > 0 ? { skipped } : {}),
  });
}
