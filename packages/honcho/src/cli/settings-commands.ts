/**
 * The `hermes-memory honcho …` commands that read or change honcho.json, after the reference's
 * `hermes honcho` (setup, mode, strategy, tokens, peer, map, sessions, enable, disable): each
 * shows the value in force with no argument, and writes this profile's host block (root
 * `sessions` for directory mappings) with everything else in the file kept.
 */
import { readFileSync } from 'node:fs';
import type { ProviderCliContext, ProviderCommand } from '@hermes-memory/core';
import { OBSERVATION_MODES, REASONING_LEVELS, RECALL_MODES, SESSION_STRATEGIES } from '../config/types';
import { isObject, type JsonObject } from '../config/values';
import { hostBlockOf, loadConfig, openHonchoFile, saveHonchoFile } from './honcho-file';
import { sessionName } from './identity';
import { testConnection } from './service-commands';

const MODES: Record<(typeof RECALL_MODES)[number], string> = {
  hybrid: 'auto-injected context + Honcho tools available (default)',
  context: 'auto-injected context only, Honcho tools hidden',
  tools: 'Honcho tools only, no auto-injected context',
};

const STRATEGIES: Record<(typeof SESSION_STRATEGIES)[number], string> = {
  'per-session': 'each run starts clean, Honcho injects context automatically',
  'per-directory': 'reuses the session per directory (default)',
  'per-repo': 'one session per git repository',
  global: 'one session across all directories',
};

/** Print `value` as JSON or as `lines`. */
function report(ctx: ProviderCliContext, value: unknown, lines: readonly string[]): number {
  if (ctx.json) ctx.printJson(value);
  else for (const line of lines) ctx.out(line);
  return 0;
}

function positiveInt(ctx: ProviderCliContext, flag: string, raw: string): number {
  const n = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || !Number.isSafeInteger(n))
    throw ctx.usageError(`${flag} must be a whole number, got '${raw}'.`);
  return n;
}

/** `mode` and `strategy`: show the value in force, or set one of `choices` on the host block. */
function choiceCommand(
  name: string,
  key: 'recallMode' | 'sessionStrategy',
  choices: Record<string, string>,
  summary: string,
): ProviderCommand {
  const list = Object.keys(choices).join('|');
  return {
    name,
    summary,
    usage: `Usage: hermes-memory honcho ${name} [${list}]\n\n${Object.entries(choices)
      .map(([k, v]) => `  ${k.padEnd(14)}${v}`)
      .join('\n')}`,
    async run(ctx, argv) {
      const { positionals } = ctx.parseArgs(argv, {});
      const wanted = positionals[0];
      if (positionals.length > 1) throw ctx.usageError(`Expected at most one ${name}.`);
      if (wanted === undefined) {
        const current = loadConfig(ctx)[key];
        return report(ctx, { [name]: current, choices: Object.keys(choices) }, [
          `${name}: ${current}`,
          ...Object.entries(choices).map(([k, v]) => `  ${k === current ? '*' : ' '} ${k.padEnd(14)}${v}`),
        ]);
      }
      if (!(wanted in choices)) throw ctx.usageError(`Unknown ${name} '${wanted}'. Use one of: ${list}.`);
      const file = openHonchoFile(ctx);
      hostBlockOf(file)[key] = wanted;
      saveHonchoFile(file);
      return report(ctx, { [name]: wanted, host: file.host, path: file.writePath }, [
        `[${file.host}] ${name} set to ${wanted}.`,
        `Saved to ${file.writePath}`,
      ]);
    },
  };
}

const tokens: ProviderCommand = {
  name: 'tokens',
  summary: 'show or set the context token budget and the dialectic character cap',
  usage:
    'Usage: hermes-memory honcho tokens [--context <N|uncapped>] [--dialectic <N>]\n\n' +
    '  --context    tokens of Honcho context injected per turn (contextTokens; "uncapped" removes the cap)\n' +
    '  --dialectic  characters of the dialectic answer injected (dialecticMaxChars)',
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, { context: { type: 'string' }, dialectic: { type: 'string' } });
    if (values.context === undefined && values.dialectic === undefined) {
      const config = loadConfig(ctx);
      const context = config.contextTokens ?? null;
      return report(ctx, { contextTokens: context, dialecticMaxChars: config.dialecticMaxChars }, [
        `context:   ${context ?? 'uncapped'}${context === null ? '' : ' tokens'} per turn`,
        `dialectic: ${config.dialecticMaxChars} characters`,
      ]);
    }
    const file = openHonchoFile(ctx);
    const block = hostBlockOf(file);
    if (values.context !== undefined) {
      if (['uncapped', 'none'].includes(values.context.trim().toLowerCase())) delete block.contextTokens;
      else block.contextTokens = positiveInt(ctx, '--context', values.context);
    }
    if (values.dialectic !== undefined) {
      const n = positiveInt(ctx, '--dialectic', values.dialectic);
      if (n < 1) throw ctx.usageError('--dialectic must be at least 1.');
      block.dialecticMaxChars = n;
    }
    saveHonchoFile(file);
    const config = loadConfig(ctx);
    return report(
      ctx,
      {
        contextTokens: config.contextTokens ?? null,
        dialecticMaxChars: config.dialecticMaxChars,
        host: file.host,
        path: file.writePath,
      },
      [
        `[${file.host}] context: ${config.contextTokens ?? 'uncapped'}, dialectic: ${config.dialecticMaxChars} characters.`,
        `Saved to ${file.writePath}`,
      ],
    );
  },
};

const peer: ProviderCommand = {
  name: 'peer',
  summary: 'show or set the user and AI peer names and the dialectic reasoning level',
  usage: `Usage: hermes-memory honcho peer [--user <name>] [--ai <name>] [--reasoning <${REASONING_LEVELS.join('|')}>]`,
  async run(ctx, argv) {
    const { values } = ctx.parseArgs(argv, {
      user: { type: 'string' },
      ai: { type: 'string' },
      reasoning: { type: 'string' },
    });
    if (values.reasoning !== undefined && !(REASONING_LEVELS as readonly string[]).includes(values.reasoning))
      throw ctx.usageError(
        `Unknown reasoning level '${values.reasoning}'. Use one of: ${REASONING_LEVELS.join(', ')}.`,
      );
    for (const flag of ['user', 'ai'] as const) {
      const v = values[flag];
      if (v !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(v))
        throw ctx.usageError(`--${flag} must be a peer id: letters, digits, '_' and '-' (got '${v}').`);
    }
    const changes: JsonObject = {};
    if (values.user !== undefined) changes.peerName = values.user;
    if (values.ai !== undefined) changes.aiPeer = values.ai;
    if (values.reasoning !== undefined) changes.dialecticReasoningLevel = values.reasoning;
    let saved: string | undefined;
    if (Object.keys(changes).length > 0) {
      const file = openHonchoFile(ctx);
      Object.assign(hostBlockOf(file), changes);
      saveHonchoFile(file);
      saved = file.writePath;
    }
    const config = loadConfig(ctx);
    const view = {
      user: config.peerName ?? null,
      ai: config.aiPeer,
      reasoning: config.dialecticReasoningLevel,
      ...(saved ? { path: saved } : {}),
    };
    return report(ctx, view, [
      `user peer: ${view.user ?? '(not set: derived from the chat)'}`,
      `AI peer:   ${view.ai}`,
      `reasoning: ${view.reasoning}`,
      ...(saved ? [`Saved to ${saved}`] : []),
    ]);
  },
};

const map: ProviderCommand = {
  name: 'map',
  summary: 'map the current directory to a Honcho session name (no name: list the mappings)',
  usage: 'Usage: hermes-memory honcho map [<session-name>] [--dir <path>] [--remove]',
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, {
      dir: { type: 'string' },
      remove: { type: 'boolean' },
    });
    const dir = values.dir ?? process.cwd();
    const name = positionals[0];
    if (name === undefined && !values.remove) return sessions.run(ctx, []);
    if (name !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(name))
      throw ctx.usageError(`A session name holds letters, digits, '_' and '-' (got '${name}').`);
    const file = openHonchoFile(ctx);
    const mapped = isObject(file.data.sessions) ? (file.data.sessions as JsonObject) : {};
    if (values.remove) delete mapped[dir];
    else mapped[dir] = name;
    file.data.sessions = mapped;
    saveHonchoFile(file);
    return report(ctx, { dir, session: values.remove ? null : name, path: file.writePath }, [
      values.remove ? `${dir} is no longer mapped.` : `${dir} → ${name}`,
      `Saved to ${file.writePath}`,
    ]);
  },
};

const sessions: ProviderCommand = {
  name: 'sessions',
  summary: 'list the directory → session mappings and the session this directory uses',
  usage: 'Usage: hermes-memory honcho sessions',
  async run(ctx, argv) {
    ctx.parseArgs(argv, {});
    const config = loadConfig(ctx);
    const current = sessionName(config, process.cwd());
    const mappings = Object.entries(config.sessions).sort(([a], [b]) => a.localeCompare(b));
    return report(
      ctx,
      { strategy: config.sessionStrategy, current, mappings: Object.fromEntries(mappings) },
      [
        `strategy: ${config.sessionStrategy}`,
        `this directory: ${current}`,
        ...(mappings.length === 0
          ? ['No directory mappings (hermes-memory honcho map <name> adds one).']
          : mappings.map(([dir, name]) => `  ${dir} → ${name}`)),
      ],
    );
  },
};

function enableCommand(enabled: boolean): ProviderCommand {
  const name = enabled ? 'enable' : 'disable';
  return {
    name,
    summary: `${enabled ? 'enable' : 'disable'} Honcho for this profile`,
    usage: `Usage: hermes-memory honcho ${name}`,
    async run(ctx, argv) {
      ctx.parseArgs(argv, {});
      const file = openHonchoFile(ctx);
      const block = hostBlockOf(file);
      const already = block.enabled === enabled;
      if (!already) {
        block.enabled = enabled;
        // A fresh profile block gets its own AI peer and the shared workspace, as the reference's enable does.
        if (enabled && !block.aiPeer) {
          block.aiPeer = file.host;
          block.workspace ??= file.data.workspace ?? file.host;
        }
        saveHonchoFile(file);
      }
      return report(ctx, { enabled, changed: !already, host: file.host, path: file.writePath }, [
        `[${file.host}] Honcho ${already ? 'is already' : 'is now'} ${enabled ? 'enabled' : 'disabled'}.`,
        ...(already ? [] : [`Saved to ${file.writePath}`]),
      ]);
    },
  };
}

const SETUP_FLAGS = {
  cloud: { type: 'boolean' },
  local: { type: 'boolean' },
  'base-url': { type: 'string' },
  'api-key-stdin': { type: 'boolean' },
  'peer-name': { type: 'string' },
  'ai-peer': { type: 'string' },
  workspace: { type: 'string' },
  observation: { type: 'string' },
  'write-frequency': { type: 'string' },
  'recall-mode': { type: 'string' },
  'context-tokens': { type: 'string' },
  'dialectic-cadence': { type: 'string' },
  reasoning: { type: 'string' },
  strategy: { type: 'string' },
  'no-test': { type: 'boolean' },
} as const;

/** One of `choices`, or a usage error naming the flag. */
function oneOf(ctx: ProviderCliContext, flag: string, value: string, choices: readonly string[]): string {
  if (!choices.includes(value)) throw ctx.usageError(`--${flag} must be one of ${choices.join(', ')}.`);
  return value;
}

export const setupCommand: ProviderCommand = {
  name: 'setup',
  summary: 'write the Honcho settings (the reference wizard, as flags), then test the connection',
  usage: [
    'Usage: hermes-memory honcho setup [--cloud | --local [--base-url <url>]] [--api-key-stdin]',
    '         [--peer-name <name>] [--ai-peer <name>] [--workspace <id>] [--observation directional|unified]',
    '         [--write-frequency async|turn|session|<N>] [--recall-mode hybrid|context|tools]',
    '         [--context-tokens <N|uncapped>] [--dialectic-cadence <N>] [--reasoning <level>]',
    '         [--strategy per-directory|per-repo|per-session|global] [--no-test]',
    '',
    'Writes $HERMES_HOME/honcho.json (0600) in the reference format: a cloud key or a self-hosted',
    "baseUrl at the root, everything else in this profile's host block; other host blocks are kept.",
    'The API key is read from stdin (--api-key-stdin), never from the command line.',
    'For the interactive wizard run: hermes-memory setup honcho',
  ].join('\n'),
  async run(ctx, argv) {
    const { values, positionals } = ctx.parseArgs(argv, SETUP_FLAGS);
    if (positionals.length > 0) throw ctx.usageError(`Unexpected argument '${positionals[0]}'.`);
    if (values.cloud && values.local) throw ctx.usageError('Choose one of --cloud and --local.');
    const file = openHonchoFile(ctx);
    const block = hostBlockOf(file);
    // Canonical key for the pin (the resolver prefers it), as the reference's setup does.
    if ('pinPeerName' in block && !('pinUserPeer' in block)) block.pinUserPeer = block.pinPeerName;
    delete block.pinPeerName;
    delete file.data.base_url;
    if (values.local || values['base-url'] !== undefined) {
      const url = (
        values['base-url'] ??
        (file.data.baseUrl as string | undefined) ??
        'http://localhost:8000'
      ).trim();
      if (!/^https?:\/\/[^\s/]+/.test(url))
        throw ctx.usageError(`--base-url must be an http(s) URL (got '${url}').`);
      file.data.baseUrl = url;
    } else if (values.cloud) delete file.data.baseUrl;
    if (values['api-key-stdin']) {
      const key = readFileSync(0, 'utf8').trim();
      if (!key) throw ctx.usageError('--api-key-stdin read an empty key.');
      // A self-hosted server's JWT lives in the host block (an explicit local opt-in); a cloud key at the root.
      if (file.data.baseUrl) block.apiKey = key;
      else file.data.apiKey = key;
    }
    const idFlag = (flag: string, v: string | undefined): string | undefined => {
      if (v !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(v))
        throw ctx.usageError(`--${flag} must hold letters, digits, '_' and '-' (got '${v}').`);
      return v;
    };
    const set = (key: string, value: unknown) => {
      if (value !== undefined) block[key] = value;
    };
    set('peerName', idFlag('peer-name', values['peer-name']));
    set('aiPeer', idFlag('ai-peer', values['ai-peer']));
    set('workspace', idFlag('workspace', values.workspace));
    if (values.observation)
      set('observationMode', oneOf(ctx, 'observation', values.observation, OBSERVATION_MODES));
    const wf = values['write-frequency'];
    if (wf !== undefined)
      set(
        'writeFrequency',
        /^\d+$/.test(wf)
          ? positiveInt(ctx, '--write-frequency', wf)
          : oneOf(ctx, 'write-frequency', wf, ['async', 'turn', 'session']),
      );
    if (values['recall-mode'])
      set('recallMode', oneOf(ctx, 'recall-mode', values['recall-mode'], RECALL_MODES));
    const ct = values['context-tokens'];
    if (ct !== undefined) {
      if (['uncapped', 'none'].includes(ct.toLowerCase())) delete block.contextTokens;
      else set('contextTokens', positiveInt(ctx, '--context-tokens', ct));
    }
    if (values['dialectic-cadence'] !== undefined) {
      const n = positiveInt(ctx, '--dialectic-cadence', values['dialectic-cadence']);
      if (n < 1) throw ctx.usageError('--dialectic-cadence must be at least 1.');
      set('dialecticCadence', n);
    }
    if (values.reasoning)
      set('dialecticReasoningLevel', oneOf(ctx, 'reasoning', values.reasoning, REASONING_LEVELS));
    if (values.strategy) set('sessionStrategy', oneOf(ctx, 'strategy', values.strategy, SESSION_STRATEGIES));
    block.enabled = true;
    block.saveMessages ??= true;
    saveHonchoFile(file);
    const config = loadConfig(ctx);
    const summary = {
      path: file.writePath,
      host: file.host,
      workspace: config.workspaceId,
      user: config.peerName ?? null,
      ai: config.aiPeer,
      observation: config.observationMode,
      writeFrequency: config.writeFrequency,
      recallMode: config.recallMode,
      sessionStrategy: config.sessionStrategy,
    };
    const connection = values['no-test'] ? undefined : await testConnection(ctx, config);
    report(ctx, { ...summary, ...(connection ? { connection } : {}) }, [
      `Config written to ${file.writePath}`,
      `  Workspace: ${summary.workspace}`,
      `  User:      ${summary.user ?? '(derived from the chat)'}`,
      `  AI peer:   ${summary.ai}`,
      `  Observe:   ${summary.observation}`,
      `  Frequency: ${summary.writeFrequency}`,
      `  Recall:    ${summary.recallMode}`,
      `  Sessions:  ${summary.sessionStrategy}`,
      ...(connection
        ? [`Connection: ${connection.status === 'ok' ? 'OK' : 'FAILED'} — ${connection.message}`]
        : []),
      'Make Honcho the active memory with: hermes-memory setup honcho --yes',
    ]);
    return connection && connection.status !== 'ok' ? 1 : 0;
  },
};

/** After `setup`, `status` and `test` in `--help`: the reference's order. */
export const SETTINGS_COMMANDS: readonly ProviderCommand[] = [
  sessions,
  map,
  peer,
  choiceCommand('mode', 'recallMode', MODES, 'show or set the recall mode (hybrid/context/tools)'),
  choiceCommand(
    'strategy',
    'sessionStrategy',
    STRATEGIES,
    'show or set the session strategy (per-session/per-directory/per-repo/global)',
  ),
  tokens,
  enableCommand(true),
  enableCommand(false),
];
