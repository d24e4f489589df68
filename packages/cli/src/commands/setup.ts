import {
  ensureDir,
  loadHermesConfig,
  type MemoryProvider,
  providerConfigPaths,
  readProviderConfig,
  resolveEnv,
  saveConfigValues,
  writeEnvValues,
} from '@hermes-memory/core';
import type { Command } from '../command';
import { parseCommandArgs } from '../context';
import type { CommandContext } from '../context';
import { CliError, oneLine } from '../errors';
import { providerCliContext, requireProviderCli } from '../provider-seam';
import { type DiscoveredProvider, discoverProviders, findProviderPackages, loadProvider } from '../providers';
import { CANCELLED, type Prompter, clackPrompter } from '../setup/prompter';
import { type SetupAnswers, answersFromFlags, parseSetFlags, providerHint } from '../setup/schema';
import { runSchemaWizard } from '../setup/wizard';

const USAGE = `Usage: hermes-memory setup [provider] [--set key=value ...] [--yes] [--json]
       hermes-memory setup --off

Choose the external memory provider and configure it. Without arguments, an interactive picker
lists every installed provider plus "Built-in only" (MEMORY.md / USER.md, the default).
Secrets go to <home>/.env (mode 0600); other settings to the provider's config in config.yaml.
Then the provider's own post-setup step runs, when it has one (e.g. a connection check).

  hermes-memory setup                                  interactive
  hermes-memory setup holographic                      interactive, provider chosen
  hermes-memory setup holographic --set auto_extract=true --yes     for scripts
  hermes-memory setup builtin --yes                    built-in only (memory.provider: "")
  hermes-memory setup --off                            the same: turn the external provider off

Options:
  --set key=value   a provider setting (repeatable); unknown keys are an error
  --yes, -y         don't ask: use --set values, then defaults
  --off             disable the external provider (memory.provider: ""); changes nothing else`;

const BUILTIN_LABEL = 'Built-in only — MEMORY.md / USER.md (default)';
const CANCELLED_MESSAGE = 'Cancelled. No changes saved.';

const BUILTIN_NAMES = new Set(['builtin', 'built-in', 'none', 'off']);

export const setupCommand: Command = {
  name: 'setup',
  usage: USAGE,
  async run(ctx, argv) {
    const { values, positionals } = parseCommandArgs(
      argv,
      {
        set: { type: 'string', multiple: true },
        yes: { type: 'boolean', short: 'y' },
        off: { type: 'boolean' },
      },
      'setup',
    );
    if (positionals.length > 1)
      throw new CliError(`setup takes one provider name, got ${positionals.length}.`, { exitCode: 2 });
    if (values.off && (positionals.length > 0 || values.set))
      throw new CliError('setup --off takes no provider and no --set.', { exitCode: 2 });
    // A corrupt config.yaml must stop setup before anything is written.
    loadHermesConfig(ctx.home);
    const sets = parseSetFlags(values.set ?? []);
    const env = resolveEnv(ctx.home, ctx.io.env);
    // An injected prompter (tests, other front ends) counts as a terminal; --off and --yes never ask.
    const prompter: Prompter | undefined =
      values.yes || values.off
        ? undefined
        : (ctx.io.prompter ?? (ctx.interactive ? clackPrompter() : undefined));

    if (values.off) {
      ensureHome(ctx.home);
      saveConfigValues(ctx.home, { 'memory.provider': '' });
      return report(ctx, undefined, { provider: '', values: {}, env: {} }, []);
    }

    let name = positionals[0];
    if (name === undefined) {
      if (!prompter) {
        throw new CliError(
          "setup needs a terminal to ask questions; name the provider instead: 'hermes-memory setup <provider> --yes'.",
          { exitCode: 2 },
        );
      }
      prompter.intro('hermes-memory setup');
      const { loaded } = await discoverProviders(ctx.io.cwd, ctx.home);
      const picked = await pickProvider(prompter, loaded);
      if (picked === CANCELLED) {
        prompter.outro(CANCELLED_MESSAGE);
        return 1;
      }
      name = picked;
    }

    if (BUILTIN_NAMES.has(name)) {
      if (Object.keys(sets).length > 0)
        throw new CliError('Built-in memory has no --set options.', { exitCode: 2 });
      ensureHome(ctx.home);
      saveConfigValues(ctx.home, { 'memory.provider': '' });
      return report(ctx, prompter, { provider: '', values: {}, env: {} }, []);
    }

    const { provider } = await loadProvider(name, ctx.io.cwd, ctx.home);
    // A provider with a wizard of its own asks its questions and saves its choices itself.
    const wizard = prompter && Object.keys(sets).length === 0 ? await setupWizardOf(ctx, name) : undefined;
    if (wizard && prompter) {
      ensureHome(ctx.home);
      const context = providerCliContext(ctx, wizard, { command: 'setup' });
      return wizard.module.setupWizard!(context, prompter);
    }
    const fields = provider.getConfigSchema();
    let answers: SetupAnswers;
    // Settings already saved (in any place the provider reads) are kept unless changed here.
    // A provider's own file (mem0.json) wins over config.yaml, as the provider itself reads them.
    const saved = {
      ...readProviderConfig(loadHermesConfig(ctx.home), providerConfigPaths(provider)).values,
      ...nativeSettings(provider, ctx.home),
    };
    if (prompter) {
      if (positionals[0] !== undefined) prompter.intro(`hermes-memory setup ${name}`);
      const existing = { ...saved, ...sets };
      const result = await runSchemaWizard(fields, prompter, { env, existing });
      if (result === CANCELLED) {
        prompter.outro(CANCELLED_MESSAGE);
        return 1;
      }
      answers = result;
    } else {
      answers = answersFromFlags(fields, sets, env, name, saved);
    }

    ensureHome(ctx.home);
    saveConfigValues(ctx.home, { 'memory.provider': name });
    await provider.saveConfig(answers.values, ctx.home);
    const written =
      Object.keys(answers.env).length > 0
        ? writeEnvValues(ctx.home, answers.env)
        : { written: [], skipped: [] };
    for (const bad of written.skipped)
      ctx.err(`hermes-memory: skipped invalid environment variable name '${bad}'.`);
    await runPostSetup(ctx, name, { values: answers.values, envNames: written.written });
    return report(
      ctx,
      prompter,
      { provider: name, values: answers.values, env: answers.env },
      written.written,
    );
  },
};

/**
 * The provider's post-setup step (its CLI module's `postSetup`, decision 0603), after everything
 * is saved. A failure is one line and exit 1; the saved settings stay.
 */
async function runPostSetup(
  ctx: CommandContext,
  id: string,
  saved: { values: SetupAnswers['values']; envNames: readonly string[] },
): Promise<void> {
  const pkg = findProviderPackages(ctx.io.cwd, ctx.home).packages.find((p) => p.name === id);
  if (!pkg?.cli) return;
  const { module } = await requireProviderCli(ctx, id);
  if (!module.postSetup) return;
  try {
    await module.postSetup(providerCliContext(ctx, { id, module }, { command: 'setup' }), saved);
  } catch (error) {
    throw new CliError(`Settings saved, but the post-setup step of '${id}' failed: ${oneLine(error)}`, {
      ...(CliError.isInstance(error) && error.hint ? { hint: error.hint } : {}),
    });
  }
}

/** The provider's CLI module when it has its own setup wizard (decision 0603). */
async function setupWizardOf(ctx: CommandContext, id: string) {
  const pkg = findProviderPackages(ctx.io.cwd, ctx.home).packages.find((p) => p.name === id);
  if (!pkg?.cli) return undefined;
  const loaded = await requireProviderCli(ctx, id);
  return loaded.module.setupWizard ? loaded : undefined;
}

async function pickProvider(prompter: Prompter, providers: readonly DiscoveredProvider[]) {
  const options = [
    ...providers.map((p) => ({
      value: p.name,
      label: p.name,
      hint: providerHint(p.provider.getConfigSchema()),
    })),
    { value: 'builtin', label: BUILTIN_LABEL },
  ];
  // The reference pre-selects "Built-in only", whatever is configured now.
  return prompter.select('Which memory provider?', options, 'builtin');
}

function ensureHome(home: string): void {
  ensureDir(home);
}

function report(
  ctx: Parameters<Command['run']>[0],
  prompter: Prompter | undefined,
  saved: { provider: string; values: Record<string, unknown>; env: Record<string, string> },
  envNames: readonly string[],
): number {
  if (ctx.json) {
    // Secret values never leave .env: only the variable names are reported.
    ctx.printJson({ provider: saved.provider, config: saved.values, env: envNames, home: ctx.home });
    return 0;
  }
  const s = ctx.style;
  const lines = [
    `${s.green('✓')} memory.provider: ${saved.provider ? s.bold(saved.provider) : `"" ${s.gray('(built-in only)')}`}`,
    ...Object.entries(saved.values).map(([k, v]) => `  ${k}: ${String(v)}`),
    ...envNames.map((n) => `  ${n} → .env`),
    'Start a new session to activate.',
  ];
  if (prompter) prompter.outro(lines.join('\n'));
  else for (const line of lines) ctx.out(line);
  return 0;
}

/** What the provider saved in its own file; a plain-object plugin may lack the hook. */
function nativeSettings(provider: MemoryProvider, home: string): Record<string, unknown> {
  if (typeof provider.savedConfig !== 'function') return {};
  try {
    return provider.savedConfig(home) ?? {};
  } catch (error) {
    throw new CliError(`Cannot read the saved settings of '${provider.name}': ${oneLine(error)}`);
  }
}
