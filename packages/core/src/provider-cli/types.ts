import type { HermesConfig } from '../config/hermes-config';
import type { Logger } from '../logging/logger';
import type { CliError } from './args';
import type { MemoryProvider } from '../provider/memory-provider';
import type { MaybePromise } from '../provider/types';

/**
 * The provider seam of the `hermes-memory` command line (decision 0603). A provider package that
 * has commands, status or doctor output, or data to export declares a CLI module in package.json
 *
 *   "hermesMemory": { "provider": "acme", "cli": "./cli" }
 *
 * (plus `"localData": true` when its data lives under HERMES_HOME, a local database or files:
 * then `status`, `doctor` and `export` include it even when it is not the active provider, so
 * switching providers never hides data from a backup; remote backends leave it out and are
 * consulted only when active or named with `--provider`, their module never imported otherwise)
 *
 * and exports it as `./cli` (`export default defineProviderCli({...})`). The CLI imports it only
 * when it is needed — `hermes-memory acme …`, or `status` / `doctor` / `export` / `import` /
 * `setup` for the active provider (and providers that keep their data in HERMES_HOME) — and never
 * imports the provider's main entry unless the module asks for it (`ctx.loadProvider()`).
 */
export interface ProviderCliModule {
  /** The provider id; must equal `hermesMemory.provider` of the package that declares the module. */
  readonly provider: string;
  /** One line for `hermes-memory --help` and `hermes-memory <id> --help`. */
  readonly summary: string;
  /**
   * Where the provider's settings live in config.yaml, most authoritative first — the same list as
   * its provider's `configPaths()` (default `memory.<id>`). `ctx.providerConfig` merges them.
   */
  readonly configPaths?: readonly string[];
  /** `hermes-memory <id> <command> [args]`. */
  readonly commands?: readonly ProviderCommand[];
  /** Rows for `hermes-memory status`: the provider's stores and a few facts about it. */
  status?(ctx: ProviderCliContext): MaybePromise<ProviderStatusReport>;
  /** Checks for `hermes-memory doctor`, each with a fix a person can follow. No network by default. */
  doctor?(ctx: ProviderCliContext): MaybePromise<readonly ProviderCheck[]>;
  /**
   * Every record this provider holds, in a stable order, for `hermes-memory export`: export →
   * import into an empty home → export must give identical lines. Each record is a JSON object
   * whose shape the provider owns; the CLI writes it as `{"type":"record","provider":"<id>","data":…}`.
   */
  exportRecords?(ctx: ProviderCliContext): AsyncIterable<PortableRecord> | Iterable<PortableRecord>;
  /**
   * Called for every record of this provider before anything is written: return a one-line
   * problem, or undefined when the record can be imported. One bad record stops the whole import.
   */
  validateRecord?(record: PortableRecord): string | undefined;
  /**
   * Write imported records (already validated), skipping what is already there, so importing the
   * same file twice changes nothing. Refused records (a scanner block, a limit) are reported, not thrown.
   */
  importRecords?(
    ctx: ProviderCliContext,
    records: readonly PortableRecord[],
    progress: CliProgress,
  ): Promise<ProviderImportResult>;
  /**
   * Runs after `hermes-memory setup <id>` saved the settings (interactive or `--yes`): check the
   * connection, create a remote workspace, say what to do next. Throwing reports the failure
   * (exit 1); the saved settings stay.
   */
  postSetup?(ctx: ProviderCliContext, saved: SavedSetup): Promise<void>;
  /**
   * The provider's own interactive setup (the reference's `post_setup` wizard). When present,
   * `hermes-memory setup <id>` with questions allowed and no `--set` runs it instead of walking
   * the config schema: it saves what was chosen itself (then `postSetup` does not run) and returns
   * the exit code (1 when cancelled). `--yes` and `--set` still take the schema path.
   */
  setupWizard?(ctx: ProviderCliContext, prompter: ProviderPrompter): Promise<number>;
}

/** One `hermes-memory <id> <name>` command. */
export interface ProviderCommand {
  readonly name: string;
  /** One line for `hermes-memory <id> --help`. */
  readonly summary: string;
  /** Full usage text for `hermes-memory <id> <name> --help`. */
  readonly usage: string;
  /** Returns the exit code. Throw `ctx.usageError(...)` / `ctx.fail(...)` for a one-line error. */
  run(ctx: ProviderCliContext, argv: string[]): Promise<number>;
}

/** What a provider's CLI module is handed: the home, its settings, and the CLI's output helpers. */
export interface ProviderCliContext {
  /** The provider id. */
  readonly providerId: string;
  /** Absolute HERMES_HOME of this run. */
  readonly home: string;
  /** config.yaml, parsed (the whole file: some providers read keys outside `memory.<id>`). */
  readonly config: HermesConfig;
  /** The provider's settings from config.yaml: every place in `configPaths` merged, first wins. */
  readonly providerConfig: Readonly<Record<string, unknown>>;
  /** The environment the agent would see: process env overlaid with `<home>/.env`. */
  readonly env: Readonly<Record<string, string | undefined>>;
  /** `--json`: print one JSON document with `printJson` and nothing else on stdout. */
  readonly json: boolean;
  /** stdin and stdout are terminals and `--json` is off: the command may ask questions. */
  readonly interactive: boolean;
  /** Colours for stdout (plain text when it is not a terminal or NO_COLOR is set). */
  readonly style: CliStyle;
  /** Redacting logger on stderr (WARN and above unless HERMES_MEMORY_DEBUG is set). */
  readonly logger: Logger;
  /** Aborted on Ctrl-C: pass it to network calls. */
  readonly signal: AbortSignal;
  /**
   * Asks questions (the terminal's prompts, or a front end's). Present only when the command may
   * ask: an interactive terminal without `--json`, or a prompter injected by a front end or test.
   */
  readonly prompter?: ProviderPrompter;
  out(line?: string): void;
  err(line: string): void;
  printJson(value: unknown): void;
  /** A progress bar on stderr, drawn only when stderr is a terminal. */
  progress(label: string, total: number): CliProgress;
  /** node:util `parseArgs`, strict, positionals allowed; a bad flag becomes a one-line usage error. */
  parseArgs<O extends CliArgOptions>(argv: readonly string[], options: O): ParsedCliArgs<O>;
  /** An error to throw for a usage mistake: one line on stderr, exit code 2. */
  usageError(message: string, hint?: string): CliError;
  /** An error to throw for anything else: one line on stderr, exit code 1. */
  fail(message: string, hint?: string): CliError;
  /**
   * The provider itself, from its package's main entry (imported on the first call, not
   * initialised). For commands that need its settings resolution, health or connection probe.
   */
  loadProvider(): Promise<MemoryProvider>;
}

/** What a prompt returns when the person cancels it (Ctrl-C, Escape). */
export const PROMPT_CANCELLED: unique symbol = Symbol.for('hermes-memory.prompt-cancelled');
export type PromptCancelled = typeof PROMPT_CANCELLED;

export interface PromptOption {
  value: string;
  label: string;
  hint?: string;
}

/**
 * The questions a command or wizard can ask. The CLI answers them on the terminal
 * (@clack/prompts); tests and other front ends supply their own (testkit's `scriptedPrompter`).
 */
export interface ProviderPrompter {
  intro(title: string): void;
  outro(message: string): void;
  note(message: string): void;
  select(
    message: string,
    options: readonly PromptOption[],
    initial?: string,
  ): Promise<string | PromptCancelled>;
  text(
    message: string,
    options: { initial?: string; placeholder?: string; validate?: (value: string) => string | undefined },
  ): Promise<string | PromptCancelled>;
  /** Input that is never echoed (keys, passwords). */
  password(
    message: string,
    options: { validate?: (value: string) => string | undefined },
  ): Promise<string | PromptCancelled>;
}

/** One option of `ctx.parseArgs`, as node:util `parseArgs` takes it. */
export interface CliArgOption {
  type: 'string' | 'boolean';
  short?: string;
  multiple?: boolean;
  default?: string | boolean | string[] | boolean[];
}

export type CliArgOptions = Record<string, CliArgOption>;

/** The value an option parses to: a string or boolean, a list with `multiple`. */
export type CliArgValue<O extends CliArgOption> = O extends { type: 'boolean' }
  ? O extends { multiple: true }
    ? boolean[]
    : boolean
  : O extends { multiple: true }
    ? string[]
    : string;

export interface ParsedCliArgs<O extends CliArgOptions> {
  /** Absent options are undefined (unless they have a default). */
  values: { [K in keyof O]?: CliArgValue<O[K]> };
  positionals: string[];
}

export interface CliStyle {
  readonly enabled: boolean;
  bold(text: string): string;
  dim(text: string): string;
  red(text: string): string;
  green(text: string): string;
  yellow(text: string): string;
  cyan(text: string): string;
  gray(text: string): string;
}

export interface CliProgress {
  tick(delta?: number): void;
  done(): void;
}

/** A JSON value, as it appears in an export line. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };

/** One provider-owned record of an export: a JSON object. */
export type PortableRecord = { [key: string]: JsonValue };

export interface ProviderImportResult {
  inserted: number;
  /** Already present (importing the same file twice inserts nothing). */
  skipped: number;
  /** Not imported, with the reason; the import exits 1 when any record is refused. */
  refused: Array<{ error: string; record?: PortableRecord }>;
}

export interface ProviderStatusReport {
  /** Listed in the Stores table of `hermes-memory status`. */
  stores?: readonly ProviderStore[];
  /** A few facts (mode, endpoint, counts), shown under the provider and in `--json`. */
  details?: Readonly<Record<string, string | number | boolean>>;
}

export interface ProviderStore {
  name: string;
  path: string;
  exists: boolean;
  bytes: number;
  /** "3 facts"; empty when there is nothing to say. */
  detail: string;
}

export type ProviderCheckStatus = 'ok' | 'warn' | 'fail' | 'skip';

/** One doctor line. `fail` is wrong now (exit 1), `warn` worth knowing. */
export interface ProviderCheck {
  /** Stable id, e.g. `integrity`; the CLI reports it as `<provider>.<id>`. */
  id: string;
  title: string;
  status: ProviderCheckStatus;
  detail: string;
  /** How a person puts it right. */
  fix?: string;
  /** A safe repair `doctor --fix` may run; resolves to what it did. */
  repair?: () => MaybePromise<string>;
}

/** What `setup` saved before `postSetup` runs. Secret values are never passed, only their names. */
export interface SavedSetup {
  values: Readonly<Record<string, string | number | boolean>>;
  /** Names of the variables written to `<home>/.env`. */
  envNames: readonly string[];
}
