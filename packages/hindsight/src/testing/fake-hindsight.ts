import { type FakeServer, type FakeServerOptions, reply, startFakeServer } from '@hermes-memory/testkit/http';
import { versionAtLeast } from '../version';

/** A retained document: what one `document_id` holds (its items' text, appended or replaced). */
export interface FakeHindsightDocument {
  id: string;
  bankId: string;
  /** The items' contents, in the order they arrived (append adds one, replace resets). */
  contents: string[];
  tags: string[];
  metadata: Record<string, string>;
  createdAt: string;
  updatedAt: string;
}

/** One memory unit: a fact extracted from an item (`world`, `experience`) or an `observation`. */
export interface FakeHindsightMemory {
  id: string;
  bankId: string;
  text: string;
  type: 'world' | 'experience' | 'observation';
  documentId: string | null;
  context: string | null;
  tags: string[];
  metadata: Record<string, string>;
  /** The item's event time (`timestamp`), or the time it was retained. */
  occurredAt: string;
  mentionedAt: string;
}

/** An async retain: pending until it has been polled `pendingPolls` times, then applied. */
export interface FakeHindsightOperation {
  id: string;
  bankId: string;
  status: 'pending' | 'completed' | 'failed';
  polls: number;
  /** Applies the retain's items (run once, on completion). */
  apply: (() => void) | null;
  createdAt: string;
  completedAt: string | null;
}

export interface FakeHindsightBank {
  id: string;
  name: string;
  mission: string;
  retainMission: string | null;
}

/** What a bank's template import applied: its config, mental models (by id) and directives (by name). */
export interface FakeHindsightBankTemplate {
  bank: Record<string, unknown> | null;
  mentalModels: Record<string, unknown>[];
  directives: Record<string, unknown>[];
}

/** One entry of the Bank Templates catalog (`templates.json`) and the manifest its file holds. */
export interface FakeHindsightTemplate {
  id: string;
  name: string;
  description: string;
  integrations: string[];
  manifest: Record<string, unknown>;
}

export interface FakeHindsightState {
  banks: Record<string, FakeHindsightBank>;
  /** Banks a template was imported into. */
  bankTemplates: Record<string, FakeHindsightBankTemplate>;
  documents: FakeHindsightDocument[];
  memories: FakeHindsightMemory[];
  operations: Record<string, FakeHindsightOperation>;
  nextId: number;
}

export interface FakeHindsightOptions {
  /**
   * The key accepted as `Authorization: Bearer <key>`. Default `test-hindsight-key`; `null` runs
   * without auth, as a self-hosted (`local_external`) server usually does.
   */
  apiKey?: string | null;
  /**
   * What `GET /version` reports. Default `0.5.6`. Below 0.5.0 the server predates
   * `update_mode: "append"`: the field is ignored (FastAPI drops unknown fields) and a retain with a
   * known `document_id` replaces that document.
   */
  apiVersion?: string;
  /**
   * Status reads an async retain answers `pending` before it completes (and its memories become
   * recall-visible). Default 0: complete at once. Tests of the read-after-write wait raise it.
   */
  pendingPolls?: number;
  /** Completed operations answer 404 (evicted), as the service does after a while. Default false. */
  evictCompleted?: boolean;
  /** Timestamps (default `Date.now`): tests pass a fixed clock. */
  now?: () => number;
  /**
   * The Bank Templates catalog served (no auth) at `/catalog/templates.json`, each manifest at
   * `/catalog/templates/<id>.json` (relative to the catalog, as the real one is). Default
   * `FAKE_HINDSIGHT_TEMPLATES`.
   */
  templates?: readonly FakeHindsightTemplate[];
  server?: Pick<FakeServerOptions<FakeHindsightState>, 'faultFor' | 'secrets' | 'name'>;
}

export const FAKE_HINDSIGHT_KEY = 'test-hindsight-key';
/** Where the fake serves its Bank Templates catalog (append to `url`). */
export const FAKE_TEMPLATES_PATH = '/catalog/templates.json';

/** Two Hermes starters and one template for another integration (setup must not offer it). */
export const FAKE_HINDSIGHT_TEMPLATES: readonly FakeHindsightTemplate[] = [
  {
    id: 'personal-assistant',
    name: 'Personal assistant',
    description: 'Remembers preferences, people and plans across conversations.',
    integrations: ['hermes', 'openclaw'],
    manifest: {
      version: '1',
      bank: { retain_mission: 'Keep facts about the user, their people and plans.' },
      mental_models: [{ id: 'user-profile', name: 'User profile', source_query: 'Who is the user?' }],
      directives: [{ name: 'no-secrets', content: 'Never store credentials.' }],
    },
  },
  {
    id: 'coding-agent',
    name: 'Coding agent',
    description: 'Project conventions, decisions and the state of ongoing work.',
    integrations: ['hermes'],
    manifest: {
      version: '1',
      bank: { retain_mission: 'Keep project decisions and conventions.' },
      mental_models: [],
      directives: [{ name: 'cite-files', content: 'Name the files a decision touches.' }],
    },
  },
  {
    id: 'support-desk',
    name: 'Support desk',
    description: 'Tickets and customers.',
    integrations: ['zendesk'],
    manifest: { version: '1', bank: { retain_mission: 'Tickets.' } },
  },
];
const BUDGETS = new Set(['low', 'mid', 'high']);
/** How many results a budget lets recall return (the service spends more search on higher budgets). */
const BUDGET_RESULTS: Record<string, number> = { low: 5, mid: 10, high: 20 };
const TAGS_MATCH = new Set(['any', 'all', 'any_strict', 'all_strict', 'exact']);
const FACT_TYPES = new Set(['world', 'experience', 'observation']);
const BANK = '/v1/default/banks/:bank';

/**
 * A protocol-faithful fake of the Hindsight API: the routes `@vectorize-io/hindsight-client` 0.9.1
 * calls, its request and response bodies, Bearer auth (optional), FastAPI's `{"detail": …}` errors
 * with the 422 shape `{"detail": [{loc, msg, type}]}`, and a JSON body on every answer, deletes
 * included (the SDK treats an empty body as a failure). Built on testkit's `startFakeServer`:
 * recordings with the key redacted, per-route faults.
 *
 * Extraction is deliberately simple and deterministic: each message of a retained conversation
 * (a JSON array of `[user, assistant]` turns) or a plain item becomes a fact (`world` for user
 * text, `experience` for assistant text) and the user's facts are consolidated into `observation`s
 * (one per distinct text); recall scores shared words (rarer words count more), capped by the
 * budget and `max_tokens` (4 characters a token).
 *
 * - `GET /version` → `{api_version, features}`; `GET /health` (no auth)
 * - `PUT /v1/default/banks/{bank}` `{name?, mission?, retain_mission?}` → bank profile
 * - `DELETE /v1/default/banks/{bank}` → `{success, message, deleted_count}`
 * - `POST …/{bank}/memories` `{items, async?, operation_id?, document_tags?}` (a known operation_id is not applied twice) → `{success, bank_id, items_count, async, operation_id?, operation_ids?}`
 * - `POST …/{bank}/memories/recall` `{query, budget, types?, max_tokens?, tags?, tags_match?}` → `{results}`
 * - `POST …/{bank}/reflect` `{query, budget}` → `{text, based_on}`
 * - `GET …/{bank}/memories/list` `?limit&offset&type&q&document_id` → `{items, total, limit, offset}`
 * - `GET …/{bank}/operations/{id}` → `{operation_id, status, …}` (404 when unknown or evicted)
 * - `GET …/{bank}/documents`, `GET|DELETE …/{bank}/documents/{id}`
 * - `POST …/{bank}/import` (a template manifest; `?dry_run`), `GET …/{bank}/export` (404 for no bank)
 * - the Bank Templates catalog, with no key: `GET /catalog/templates.json`, `GET /catalog/templates/{id}.json`
 */
export async function startFakeHindsight(
  options: FakeHindsightOptions = {},
): Promise<FakeServer<FakeHindsightState>> {
  const now = options.now ?? Date.now;
  const stamp = () => new Date(now()).toISOString();
  const apiVersion = options.apiVersion ?? '0.5.6';
  const appends = versionAtLeast(apiVersion, '0.5.0');
  const key = options.apiKey === undefined ? FAKE_HINDSIGHT_KEY : options.apiKey;
  const server = await startFakeServer<FakeHindsightState>({
    name: 'fake Hindsight',
    ...options.server,
    ...(key !== null ? { auth: { type: 'bearer' as const, token: key } } : {}),
    publicRoutes: ['GET /health', `GET ${FAKE_TEMPLATES_PATH}`, 'GET /catalog/templates/:file'],
    errorBody: (_status, message) => ({ detail: message }),
    state: () => ({ banks: {}, bankTemplates: {}, documents: [], memories: [], operations: {}, nextId: 1 }),
  });
  const id = (state: FakeHindsightState, prefix: string) =>
    `${prefix}-${String(state.nextId++).padStart(6, '0')}`;

  server.route('GET', '/version', () =>
    reply.json({
      api_version: apiVersion,
      features: {
        observations: true,
        mcp: false,
        worker: true,
        bank_config_api: true,
        bank_llm_health: false,
        file_upload_api: false,
        document_export_api: false,
        document_import_api: false,
        audit_log: false,
        llm_trace: false,
        store_document_text: true,
      },
    }),
  );
  server.route('GET', '/health', () => reply.json({ status: 'healthy', database: 'connected' }));

  server.route('PUT', BANK, (req, state) => {
    const body = record(req.body);
    const bank = ensureBank(state, req.params.bank ?? '');
    if (typeof body.name === 'string') bank.name = body.name;
    if (typeof body.mission === 'string') bank.mission = body.mission;
    if (typeof body.retain_mission === 'string') bank.retainMission = body.retain_mission;
    return reply.json(profile(bank));
  });

  // The Bank Templates catalog (hosted with the docs, not by the API: no key).
  const templates = options.templates ?? FAKE_HINDSIGHT_TEMPLATES;
  server.route('GET', FAKE_TEMPLATES_PATH, () =>
    reply.json({
      templates: templates.map((t) => ({
        id: t.id,
        name: t.name,
        description: t.description,
        integrations: t.integrations,
        manifest_file: `templates/${t.id}.json`,
      })),
    }),
  );
  server.route('GET', '/catalog/templates/:file', (req) => {
    const found = templates.find((t) => `${t.id}.json` === req.params.file);
    return found ? reply.json(found.manifest) : reply.json({ detail: 'Not Found' }, 404);
  });

  // Template import: creates the bank; config replaced, mental models matched by id, directives by name.
  server.route('POST', `${BANK}/import`, (req, state) => {
    const body = record(req.body);
    if (typeof body.version !== 'string') return invalid(['body', 'version'], 'Field required', 'missing');
    const bankId = req.params.bank ?? '';
    const models = Array.isArray(body.mental_models) ? body.mental_models.map(record) : [];
    const directives = Array.isArray(body.directives) ? body.directives.map(record) : [];
    const current = state.bankTemplates[bankId] ?? { bank: null, mentalModels: [], directives: [] };
    const created = { models: [] as string[], directives: [] as string[] };
    const updated = { models: [] as string[], directives: [] as string[] };
    const upsert = (list: Record<string, unknown>[], item: Record<string, unknown>, key: string) => {
      const at = list.findIndex((x) => x[key] === item[key]);
      if (at >= 0) list[at] = item;
      else list.push(item);
      return at >= 0;
    };
    const next: FakeHindsightBankTemplate = {
      bank: body.bank === undefined || body.bank === null ? current.bank : record(body.bank),
      mentalModels: [...current.mentalModels],
      directives: [...current.directives],
    };
    for (const m of models)
      (upsert(next.mentalModels, m, 'id') ? updated : created).models.push(String(m.id));
    for (const d of directives)
      (upsert(next.directives, d, 'name') ? updated : created).directives.push(String(d.name));
    const dryRun = req.query.get('dry_run') === 'true';
    if (!dryRun) {
      ensureBank(state, bankId);
      state.bankTemplates[bankId] = next;
    }
    return reply.json({
      bank_id: bankId,
      config_applied: body.bank !== undefined && body.bank !== null,
      mental_models_created: created.models,
      mental_models_updated: updated.models,
      directives_created: created.directives,
      directives_updated: updated.directives,
      dry_run: dryRun,
    });
  });

  server.route('GET', `${BANK}/export`, (req, state) => {
    const bankId = req.params.bank ?? '';
    if (!state.banks[bankId]) return reply.json({ detail: `Bank ${bankId} not found` }, 404);
    const template = state.bankTemplates[bankId];
    return reply.json({
      version: '1',
      bank: template?.bank ?? null,
      mental_models: template?.mentalModels ?? [],
      directives: template?.directives ?? [],
    });
  });

  server.route('GET', `${BANK}/profile`, (req, state) =>
    reply.json(profile(ensureBank(state, req.params.bank ?? ''))),
  );

  server.route('DELETE', BANK, (req, state) => {
    const bankId = req.params.bank ?? '';
    const count = state.memories.filter((m) => m.bankId === bankId).length;
    delete state.banks[bankId];
    state.memories = state.memories.filter((m) => m.bankId !== bankId);
    state.documents = state.documents.filter((d) => d.bankId !== bankId);
    return reply.json({ success: true, message: `Bank ${bankId} deleted`, deleted_count: count });
  });

  server.route('POST', `${BANK}/memories`, (req, state) => {
    const bankId = req.params.bank ?? '';
    const body = record(req.body);
    if (!Array.isArray(body.items)) return invalid(['body', 'items'], 'Field required', 'missing');
    const items: RetainItem[] = [];
    for (const [index, raw] of body.items.entries()) {
      const item = parseItem(raw, index);
      if ('error' in item) return item.error;
      items.push(item);
    }
    const documentTags = Array.isArray(body.document_tags) ? body.document_tags.map(String) : [];
    const apply = () => {
      ensureBank(state, bankId);
      for (const item of items) retainItem(state, bankId, item, documentTags, appends, stamp(), id);
    };
    if (body.async === true) {
      const given =
        typeof body.operation_id === 'string' && body.operation_id !== '' ? body.operation_id : null;
      const asyncAnswer = (operationId: string) =>
        reply.json({
          success: true,
          bank_id: bankId,
          items_count: items.length,
          async: true,
          operation_id: operationId,
          operation_ids: [operationId],
        });
      // A caller-chosen operation id makes a retried request the same operation, not a second write.
      if (given && state.operations[given]?.bankId === bankId) return asyncAnswer(given);
      const operationId = given ?? id(state, 'op');
      const operation: FakeHindsightOperation = {
        id: operationId,
        bankId,
        status: 'pending',
        polls: 0,
        apply,
        createdAt: stamp(),
        completedAt: null,
      };
      state.operations[operationId] = operation;
      if ((options.pendingPolls ?? 0) <= 0) complete(operation, stamp());
      return asyncAnswer(operationId);
    }
    apply();
    return reply.json({ success: true, bank_id: bankId, items_count: items.length, async: false });
  });

  server.route('GET', `${BANK}/operations/:operation`, (req, state) => {
    const operation = state.operations[req.params.operation ?? ''];
    if (!operation || operation.bankId !== req.params.bank)
      return reply.json({ detail: `Operation ${req.params.operation} not found` }, 404);
    if (operation.status === 'pending') {
      operation.polls += 1;
      if (operation.polls > (options.pendingPolls ?? 0)) complete(operation, stamp());
      else
        return reply.json({
          operation_id: operation.id,
          status: 'pending',
          operation_type: 'retain',
          created_at: operation.createdAt,
        });
    }
    if (options.evictCompleted) return reply.json({ detail: `Operation ${operation.id} not found` }, 404);
    return reply.json({
      operation_id: operation.id,
      status: operation.status,
      operation_type: 'retain',
      created_at: operation.createdAt,
      completed_at: operation.completedAt,
    });
  });

  server.route('POST', `${BANK}/memories/recall`, (req, state) => {
    const body = record(req.body);
    if (typeof body.query !== 'string') return invalid(['body', 'query'], 'Field required', 'missing');
    const budget = body.budget ?? 'mid';
    if (typeof budget !== 'string' || !BUDGETS.has(budget))
      return invalid(['body', 'budget'], "Input should be 'low', 'mid' or 'high'", 'enum');
    const types = Array.isArray(body.types) ? body.types.map(String) : null;
    if (types?.some((t) => !FACT_TYPES.has(t)))
      return invalid(['body', 'types'], "Input should be 'world', 'experience' or 'observation'", 'enum');
    const match = typeof body.tags_match === 'string' ? body.tags_match : 'any';
    if (!TAGS_MATCH.has(match))
      return invalid(
        ['body', 'tags_match'],
        "Input should be 'any', 'all', 'any_strict', 'all_strict' or 'exact'",
        'enum',
      );
    const tags = Array.isArray(body.tags) ? body.tags.map(String) : null;
    const maxTokens = typeof body.max_tokens === 'number' && body.max_tokens > 0 ? body.max_tokens : 4096;
    const pool = state.memories.filter(
      (m) =>
        m.bankId === req.params.bank && (!types || types.includes(m.type)) && tagsMatch(m.tags, tags, match),
    );
    const results: Record<string, unknown>[] = [];
    let tokens = 0;
    for (const memory of rank(pool, body.query).slice(0, BUDGET_RESULTS[budget])) {
      tokens += Math.ceil(memory.text.length / 4);
      if (tokens > maxTokens) break;
      results.push(recallResult(memory));
    }
    return reply.json({ results });
  });

  server.route('POST', `${BANK}/reflect`, (req, state) => {
    const body = record(req.body);
    if (typeof body.query !== 'string') return invalid(['body', 'query'], 'Field required', 'missing');
    const budget = body.budget ?? 'low';
    if (typeof budget !== 'string' || !BUDGETS.has(budget))
      return invalid(['body', 'budget'], "Input should be 'low', 'mid' or 'high'", 'enum');
    const pool = state.memories.filter((m) => m.bankId === req.params.bank && m.type !== 'observation');
    const used = rank(pool, body.query).slice(0, BUDGET_RESULTS[budget]);
    // The service's LLM writes a synthesis; the fake joins what it found (empty when nothing).
    const text = used.length === 0 ? '' : `From memory: ${used.map((m) => m.text).join('; ')}.`;
    return reply.json({
      text,
      based_on: { memories: used.map(recallResult), mental_models: [], directives: [] },
    });
  });

  server.route('GET', `${BANK}/memories/list`, (req, state) => {
    const limit = clamp(Number(req.query.get('limit') ?? 100), 1, 1000, 100);
    const offset = clamp(Number(req.query.get('offset') ?? 0), 0, Number.MAX_SAFE_INTEGER, 0);
    const type = req.query.get('type');
    const q = req.query.get('q')?.toLowerCase();
    const documentId = req.query.get('document_id');
    const matching = state.memories.filter(
      (m) =>
        m.bankId === req.params.bank &&
        (!type || m.type === type) &&
        (!q || m.text.toLowerCase().includes(q)) &&
        (!documentId || m.documentId === documentId),
    );
    return reply.json({
      items: matching.slice(offset, offset + limit).map(listItem),
      total: matching.length,
      limit,
      offset,
    });
  });

  server.route('GET', `${BANK}/documents`, (req, state) => {
    const limit = clamp(Number(req.query.get('limit') ?? 100), 1, 1000, 100);
    const offset = clamp(Number(req.query.get('offset') ?? 0), 0, Number.MAX_SAFE_INTEGER, 0);
    const matching = state.documents.filter((d) => d.bankId === req.params.bank);
    return reply.json({
      items: matching.slice(offset, offset + limit).map((d) => ({
        id: d.id,
        bank_id: d.bankId,
        content_hash: null,
        created_at: d.createdAt,
        updated_at: d.updatedAt,
        text_length: documentText(d).length,
        memory_unit_count: state.memories.filter((m) => m.documentId === d.id && m.bankId === d.bankId)
          .length,
        tags: d.tags,
      })),
      total: matching.length,
      limit,
      offset,
    });
  });

  server.route('GET', `${BANK}/documents/:document`, (req, state) => {
    const doc = state.documents.find((d) => d.bankId === req.params.bank && d.id === req.params.document);
    if (!doc) return reply.json({ detail: `Document ${req.params.document} not found` }, 404);
    return reply.json({
      id: doc.id,
      bank_id: doc.bankId,
      original_text: documentText(doc),
      content_hash: null,
      created_at: doc.createdAt,
      updated_at: doc.updatedAt,
      memory_unit_count: state.memories.filter((m) => m.documentId === doc.id && m.bankId === doc.bankId)
        .length,
      tags: doc.tags,
      document_metadata: doc.metadata,
    });
  });

  server.route('DELETE', `${BANK}/documents/:document`, (req, state) => {
    const index = state.documents.findIndex(
      (d) => d.bankId === req.params.bank && d.id === req.params.document,
    );
    if (index < 0) return reply.json({ detail: `Document ${req.params.document} not found` }, 404);
    const [doc] = state.documents.splice(index, 1);
    const before = state.memories.length;
    state.memories = state.memories.filter((m) => !(m.documentId === doc?.id && m.bankId === doc?.bankId));
    return reply.json({
      success: true,
      message: `Document ${req.params.document} deleted`,
      document_id: req.params.document,
      memory_units_deleted: before - state.memories.length,
    });
  });

  return server;
}

interface RetainItem {
  content: string;
  timestamp: string | null;
  context: string | null;
  metadata: Record<string, string>;
  documentId: string | null;
  tags: string[];
  updateMode: 'replace' | 'append';
}

type Invalid = { error: ReturnType<typeof reply.json> };

function invalid(loc: (string | number)[], msg: string, type: string) {
  return reply.json({ detail: [{ loc, msg, type }] }, 422);
}

function parseItem(raw: unknown, index: number): RetainItem | Invalid {
  const item = record(raw);
  const at = (field: string) => ['body', 'items', index, field];
  if (typeof item.content !== 'string') return { error: invalid(at('content'), 'Field required', 'missing') };
  const metadata = record(item.metadata);
  for (const [k, v] of Object.entries(metadata)) {
    if (typeof v !== 'string')
      return { error: invalid([...at('metadata'), k], 'Input should be a valid string', 'string_type') };
  }
  let timestamp: string | null = null;
  if (item.timestamp !== undefined && item.timestamp !== null) {
    if (typeof item.timestamp !== 'string' || Number.isNaN(Date.parse(item.timestamp)))
      return { error: invalid(at('timestamp'), 'Input should be a valid datetime', 'datetime_parsing') };
    timestamp = item.timestamp;
  }
  if (item.tags !== undefined && item.tags !== null && !Array.isArray(item.tags))
    return { error: invalid(at('tags'), 'Input should be a valid list', 'list_type') };
  const mode = item.update_mode ?? 'replace';
  if (mode !== 'replace' && mode !== 'append')
    return { error: invalid(at('update_mode'), "Input should be 'replace' or 'append'", 'enum') };
  return {
    content: item.content,
    timestamp,
    context: typeof item.context === 'string' ? item.context : null,
    metadata: metadata as Record<string, string>,
    documentId: typeof item.document_id === 'string' && item.document_id !== '' ? item.document_id : null,
    tags: Array.isArray(item.tags) ? item.tags.map(String) : [],
    updateMode: mode,
  };
}

function retainItem(
  state: FakeHindsightState,
  bankId: string,
  item: RetainItem,
  documentTags: string[],
  appends: boolean,
  time: string,
  id: (state: FakeHindsightState, prefix: string) => string,
): void {
  const tags = [...new Set([...item.tags, ...documentTags])];
  let documentId = item.documentId;
  if (documentId) {
    const existing = state.documents.find((d) => d.bankId === bankId && d.id === documentId);
    // Servers before 0.5.0 do not know update_mode: a known document is always replaced.
    const append = appends && item.updateMode === 'append';
    if (existing && append) {
      existing.contents.push(item.content);
      existing.tags = [...new Set([...existing.tags, ...tags])];
      existing.metadata = { ...existing.metadata, ...item.metadata };
      existing.updatedAt = time;
    } else if (existing) {
      existing.contents = [item.content];
      existing.tags = tags;
      existing.metadata = item.metadata;
      existing.updatedAt = time;
      state.memories = state.memories.filter((m) => !(m.bankId === bankId && m.documentId === documentId));
    } else {
      state.documents.push({
        id: documentId,
        bankId,
        contents: [item.content],
        tags,
        metadata: item.metadata,
        createdAt: time,
        updatedAt: time,
      });
    }
  } else {
    documentId = null;
  }
  for (const fact of extractFacts(item.content)) {
    const base = {
      bankId,
      documentId,
      context: item.context,
      tags,
      metadata: item.metadata,
      occurredAt: item.timestamp ?? time,
      mentionedAt: time,
    };
    state.memories.push({ id: id(state, 'mem'), text: fact.text, type: fact.type, ...base });
    // Consolidation: one observation per distinct statement about the user.
    const known = state.memories.some(
      (m) =>
        m.bankId === bankId && m.type === 'observation' && m.text.toLowerCase() === fact.text.toLowerCase(),
    );
    if (fact.type === 'world' && !known)
      state.memories.push({ id: id(state, 'obs'), text: fact.text, type: 'observation', ...base });
  }
}

/** Facts of one item: each message of a retained conversation, else the whole text. */
function extractFacts(content: string): { text: string; type: 'world' | 'experience' }[] {
  const messages = conversationMessages(content);
  if (!messages) {
    const text = content.trim();
    return text === '' ? [] : [{ text, type: 'world' }];
  }
  const out: { text: string; type: 'world' | 'experience' }[] = [];
  for (const m of messages) {
    // Transcripts label each line ("User: …"); the label is not part of the fact.
    const text = m.content.replace(/^[^:\n]{1,40}:\s*/, '').trim();
    if (text !== '') out.push({ text, type: m.role === 'user' ? 'world' : 'experience' });
  }
  return out;
}

/** The messages of a JSON array of turns (each an array of `{role, content}`), or null. */
function conversationMessages(content: string): { role: string; content: string }[] | null {
  if (!content.trimStart().startsWith('[')) return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(content);
  } catch {
    return null;
  }
  if (!Array.isArray(parsed)) return null;
  const out: { role: string; content: string }[] = [];
  for (const turn of parsed) {
    for (const m of Array.isArray(turn) ? turn : [turn]) {
      const message = record(m);
      if (typeof message.role !== 'string' || typeof message.content !== 'string') return null;
      out.push({ role: message.role, content: message.content });
    }
  }
  return out;
}

function complete(operation: FakeHindsightOperation, time: string): void {
  operation.apply?.();
  operation.apply = null;
  operation.status = 'completed';
  operation.completedAt = time;
}

function ensureBank(state: FakeHindsightState, bankId: string): FakeHindsightBank {
  state.banks[bankId] ??= { id: bankId, name: bankId, mission: '', retainMission: null };
  return state.banks[bankId];
}

function profile(bank: FakeHindsightBank) {
  return {
    bank_id: bank.id,
    name: bank.name,
    disposition: { skepticism: 3, literalism: 3, empathy: 3 },
    mission: bank.mission,
    background: null,
  };
}

/** The document's text: appended conversation parts as one JSON array of turns, other text joined by lines. */
function documentText(doc: FakeHindsightDocument): string {
  const parts = doc.contents.map((c) => {
    try {
      const parsed: unknown = JSON.parse(c);
      return Array.isArray(parsed) ? parsed : null;
    } catch {
      return null;
    }
  });
  if (parts.length > 1 && parts.every((p) => p !== null)) return JSON.stringify(parts.flat());
  return doc.contents.join('\n');
}

function recallResult(m: FakeHindsightMemory) {
  return {
    id: m.id,
    text: m.text,
    type: m.type,
    context: m.context,
    occurred_start: m.occurredAt,
    occurred_end: m.occurredAt,
    mentioned_at: m.mentionedAt,
    document_id: m.documentId,
    metadata: m.metadata,
    chunk_id: null,
    tags: m.tags,
  };
}

function listItem(m: FakeHindsightMemory) {
  return {
    id: m.id,
    text: m.text,
    fact_type: m.type,
    context: m.context ?? '',
    date: m.occurredAt,
    mentioned_at: m.mentionedAt,
    document_id: m.documentId,
    tags: m.tags,
  };
}

/** any/all include untagged memories; the strict forms and exact do not. */
function tagsMatch(memoryTags: readonly string[], wanted: readonly string[] | null, match: string): boolean {
  if (!wanted || wanted.length === 0) return true;
  if (memoryTags.length === 0) return match === 'any' || match === 'all';
  if (match === 'exact')
    return memoryTags.length === wanted.length && wanted.every((t) => memoryTags.includes(t));
  if (match.startsWith('all')) return wanted.every((t) => memoryTags.includes(t));
  return wanted.some((t) => memoryTags.includes(t));
}

/** Memories sharing words with the query, rarer words counting more; newest first on ties. */
function rank(memories: readonly FakeHindsightMemory[], query: string): FakeHindsightMemory[] {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) return [];
  const docs = memories.map((memory) => ({ memory, words: new Set(words(memory.text)) }));
  const weight = (term: string) =>
    Math.log(1 + (docs.length + 1) / (1 + docs.filter((d) => d.words.has(term)).length));
  return docs
    .map(({ memory, words: present }, index) => ({
      memory,
      index,
      score: terms.filter((t) => present.has(t)).reduce((sum, t) => sum + weight(t), 0),
    }))
    .filter((hit) => hit.score > 0)
    .sort((a, b) => b.score - a.score || b.index - a.index)
    .map((hit) => hit.memory);
}

const STOPWORDS = new Set(
  'a an and are as at be but by do does for from has have how i in is it me my of on or the this to was we what when where who with you your'.split(
    ' ',
  ),
);

function words(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

function record(value: unknown): Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
    ? (value as Record<string, unknown>)
    : {};
}

function clamp(n: number, min: number, max: number, fallback: number): number {
  return Number.isFinite(n) ? Math.min(max, Math.max(min, Math.trunc(n))) : fallback;
}
