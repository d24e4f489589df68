/**
 * Setup's starter bank template, as the reference's `templates.py`: the Bank Templates catalog
 * (`HINDSIGHT_TEMPLATES_URL`, default the file behind hindsight.vectorize.io/templates) filtered to
 * entries whose `integrations` include `hermes`; the chosen entry's manifest, fetched relative to
 * the catalog, applied with `POST …/banks/{bank}/import`. A bank that already has template-level
 * settings (`GET …/export` with a non-empty `bank`, `mental_models` or `directives`) is only
 * overwritten when confirmed. Offered for cloud and local_external; never fatal to setup.
 */
import {
  describeError,
  PROMPT_CANCELLED,
  type ProviderCliContext,
  type ProviderPrompter,
  withDeadline,
} from '@hermes-memory/core';
import type { HindsightApi } from '../client';
import { type CliSetup, cliApi, unusable } from './connection';

export const DEFAULT_TEMPLATES_URL =
  'https://raw.githubusercontent.com/vectorize-io/hindsight/main/hindsight-docs/src/data/templates.json';
/** Modes whose API is reachable during setup. */
export const TEMPLATE_MODES: readonly string[] = ['cloud', 'local_external'];
/** The catalog and manifest fetches, as the reference bounds them. */
const FETCH_TIMEOUT_MS = 15_000;

export interface TemplateEntry {
  id: string;
  name: string;
  description: string;
  /** Relative to the catalog's URL (`templates/foo.json`). */
  manifestFile: string;
}

export function templatesUrl(env: Readonly<Record<string, string | undefined>>): string {
  return env.HINDSIGHT_TEMPLATES_URL?.trim() || DEFAULT_TEMPLATES_URL;
}

async function getJson(url: string, signal?: AbortSignal): Promise<unknown> {
  return withDeadline(
    async (s) => {
      const res = await globalThis.fetch(url, { headers: { accept: 'application/json' }, signal: s });
      if (!res.ok) throw new Error(`GET ${url} failed with HTTP ${res.status}`);
      return res.json();
    },
    { timeoutMs: FETCH_TIMEOUT_MS, label: `GET ${url}`, ...(signal ? { signal } : {}) },
  );
}

/** The catalog's entries for Hermes (entries without an id or manifest file are skipped). */
export async function fetchHermesTemplates(url: string, signal?: AbortSignal): Promise<TemplateEntry[]> {
  const catalog = (await getJson(url, signal)) as { templates?: unknown };
  const entries = Array.isArray(catalog?.templates) ? catalog.templates : [];
  const out: TemplateEntry[] = [];
  for (const raw of entries) {
    const e = (raw ?? {}) as Record<string, unknown>;
    const integrations = Array.isArray(e.integrations) ? e.integrations : [];
    if (!integrations.includes('hermes') || typeof e.id !== 'string' || typeof e.manifest_file !== 'string')
      continue;
    out.push({
      id: e.id,
      name: typeof e.name === 'string' && e.name !== '' ? e.name : e.id,
      description: typeof e.description === 'string' ? e.description : '',
      manifestFile: e.manifest_file,
    });
  }
  return out;
}

export async function fetchManifest(
  entry: TemplateEntry,
  catalogUrl: string,
  signal?: AbortSignal,
): Promise<Record<string, unknown>> {
  const manifest = await getJson(new URL(entry.manifestFile, catalogUrl).href, signal);
  if (typeof manifest !== 'object' || manifest === null || Array.isArray(manifest))
    throw new Error(`the manifest of '${entry.id}' is not a JSON object`);
  return manifest as Record<string, unknown>;
}

/** Whether applying a template would overwrite the bank's settings. A missing bank or any error: no. */
export async function bankIsCustomised(api: HindsightApi, bankId: string, signal?: AbortSignal) {
  try {
    const current = await api.exportBankTemplate(bankId, signal);
    const filled = (v: unknown) =>
      Array.isArray(v) ? v.length > 0 : typeof v === 'object' && v !== null && Object.keys(v).length > 0;
    return filled(current.bank) || filled(current.mental_models) || filled(current.directives);
  } catch {
    return false;
  }
}

/** How the step asks: which template (null: blank or cancelled), and whether to overwrite a customised bank. */
export interface TemplateChooser {
  choose(entries: readonly TemplateEntry[]): Promise<string | null>;
  confirmOverwrite(bankId: string): Promise<boolean>;
}

/** `--template <id>|blank`, overwriting a customised bank only with `--overwrite`. */
export function flagChooser(id: string, overwrite: boolean): TemplateChooser {
  return {
    choose: async () => (id === 'blank' ? null : id),
    confirmOverwrite: async () => overwrite,
  };
}

const BLANK = '';

/** The reference's pickers on the CLI's prompter: the Hermes templates plus Blank; then Apply / Keep existing (default Keep). */
export function promptChooser(prompter: ProviderPrompter): TemplateChooser {
  return {
    async choose(entries) {
      const options = [
        ...entries.map((e) => ({ value: e.id, label: e.name, hint: e.description.slice(0, 72) })),
        { value: BLANK, label: 'Blank', hint: 'Start with an empty memory bank' },
      ];
      const picked = await prompter.select('Starter memory template', options, entries[0]?.id);
      return picked === PROMPT_CANCELLED || picked === BLANK ? null : picked;
    },
    async confirmOverwrite(bankId) {
      const picked = await prompter.select(
        `Bank '${bankId}' already has memory settings — apply this template on top?`,
        [
          { value: 'apply', label: 'Apply', hint: 'Overwrite config; add/update mental models & directives' },
          { value: 'keep', label: 'Keep existing', hint: 'Leave the bank as-is' },
        ],
        'keep',
      );
      return picked === 'apply';
    },
  };
}

/**
 * Setup's last step: asked for by flag (`--template`), or offered with the CLI's prompter when
 * the service answered. Prints its one line (or returns it for `--json`); never throws.
 */
export async function offerTemplate(
  ctx: ProviderCliContext,
  setup: CliSetup,
  how: { flag?: string; overwrite?: boolean; offer: boolean },
): Promise<TemplateStepResult | undefined> {
  const chooser =
    how.flag !== undefined
      ? flagChooser(how.flag, how.overwrite === true)
      : how.offer && ctx.prompter
        ? promptChooser(ctx.prompter)
        : undefined;
  if (!chooser) return undefined;
  if (!TEMPLATE_MODES.includes(setup.config.mode) || unusable(setup.config) !== '') {
    if (how.flag !== undefined && !ctx.json)
      ctx.out('Starter templates are offered for a reachable cloud or local_external service; skipped.');
    return undefined;
  }
  const result = await runTemplateStep({
    api: cliApi(ctx, setup),
    bankId: setup.bankId,
    catalogUrl: templatesUrl(ctx.env),
    chooser,
    signal: ctx.signal,
  });
  if (!ctx.json) ctx.out(result.status === 'failed' ? ctx.style.yellow(result.message) : result.message);
  return result;
}

export interface TemplateStepResult {
  status: 'applied' | 'blank' | 'kept' | 'unavailable' | 'failed';
  template?: string;
  message: string;
}

/** Offer, confirm and apply a starter template. Never throws. */
export async function runTemplateStep(options: {
  api: HindsightApi;
  bankId: string;
  catalogUrl: string;
  chooser: TemplateChooser;
  signal?: AbortSignal;
}): Promise<TemplateStepResult> {
  const { api, bankId, catalogUrl, chooser, signal } = options;
  let entries: TemplateEntry[];
  try {
    entries = await fetchHermesTemplates(catalogUrl, signal);
  } catch (error) {
    return { status: 'unavailable', message: `Starter templates unavailable: ${describeError(error)}` };
  }
  if (entries.length === 0) return { status: 'unavailable', message: 'No starter templates for Hermes.' };
  const chosen = await chooser.choose(entries);
  if (chosen === null) return { status: 'blank', message: `Bank '${bankId}' starts blank.` };
  const entry = entries.find((e) => e.id === chosen);
  if (!entry) {
    return {
      status: 'failed',
      message: `Unknown starter template '${chosen}' (available: ${entries.map((e) => e.id).join(', ')}).`,
    };
  }
  if ((await bankIsCustomised(api, bankId, signal)) && !(await chooser.confirmOverwrite(bankId)))
    return { status: 'kept', template: entry.id, message: `Kept existing settings for bank '${bankId}'.` };
  try {
    await api.importBankTemplate(bankId, await fetchManifest(entry, catalogUrl, signal), signal);
    return {
      status: 'applied',
      template: entry.id,
      message: `✓ Applied '${entry.name}' template to bank '${bankId}'.`,
    };
  } catch (error) {
    return {
      status: 'failed',
      template: entry.id,
      message: `⚠ Could not apply template (${describeError(error)}). You can apply one later from hindsight.vectorize.io/templates.`,
    };
  }
}
