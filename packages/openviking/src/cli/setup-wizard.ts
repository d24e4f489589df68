import fs from 'node:fs';
import {
  type Clock,
  PROMPT_CANCELLED,
  type ProviderCliContext,
  type ProviderPrompter,
  pollUntil,
  readJsonConfig,
  systemClock,
} from '@hermes-memory/core';
import { checkEndpoint, DEFAULT_ENDPOINT, HOSTED_ENDPOINT, loopbackTarget } from '../endpoint';
import { launchLocalServer } from '../local-server';
import { identityProblem } from '../openviking-settings';
import {
  type DiscoveredOvcliProfile,
  discoverOvcliProfiles,
  isValidProfileName,
  ovcliData,
  savedOvcliPath,
  writeOvcliProfile,
} from '../ovcli';
import { type ConnectionValues, linkOvcliProfile, saveHermesOnlyConnection } from '../setup-config';
import { cliSettings } from './connection';
import { checkReachable, validateSetupValues } from './setup-checks';

/** How long setup waits for a server it started, and how often it asks (the reference's). */
const START_WAIT_MS = 60_000;
const START_POLL_MS = 500;

const CANCEL: Choice = ['Cancel setup', 'no changes saved'];

type Choice = readonly [label: string, hint: string];

/** Thrown by any picker the person cancels: unwinds to `runSetupWizard`, which saves nothing. */
class Cancelled extends Error {}

export interface SetupWizardOptions {
  /** For the wait on a server setup started. Default: the system clock. */
  clock?: Clock;
  /** The hosted service's endpoint. Default the reference's; tests point it at a fake. */
  serviceEndpoint?: string;
}

/**
 * The reference's interactive `setup` (`_setup.py`): link an existing OpenViking CLI profile, or
 * create a connection — the hosted service, or a custom server (local or remote; user key, root
 * key with its tenant, or no key for a local development server) — validated over the wire, then
 * kept in Hermes' `.env` or mirrored to `~/.openviking/ovcli.conf.<name>` and linked. Nothing is
 * written until the end: a cancel at any question saves nothing. The key is asked without echo
 * and never printed. Returns the exit code.
 */
export async function runSetupWizard(
  ctx: ProviderCliContext,
  prompter: ProviderPrompter,
  options: SetupWizardOptions = {},
): Promise<number> {
  const wizard = new Wizard(
    ctx,
    prompter,
    options.clock ?? systemClock,
    options.serviceEndpoint ?? HOSTED_ENDPOINT,
  );
  prompter.intro('OpenViking memory setup');
  try {
    await wizard.run();
    return 0;
  } catch (error) {
    if (!(error instanceof Cancelled)) throw error;
    prompter.outro('Cancelled. No changes saved.');
    return 1;
  }
}

class Wizard {
  constructor(
    private readonly ctx: ProviderCliContext,
    private readonly prompter: ProviderPrompter,
    private readonly clock: Clock,
    private readonly serviceEndpoint: string,
  ) {}

  async run(): Promise<void> {
    const profiles = discoverOvcliProfiles(this.ctx.env, (file, reason) =>
      this.ctx.logger.warn(`Skipping invalid OpenViking CLI config ${file}: ${reason}`),
    );
    if (profiles.length === 0) {
      this.say('No existing OpenViking CLI profiles found. Creating a new config.');
      return this.createProfile();
    }
    const source = await this.pick('OpenViking config source', [
      ['Use existing OpenViking profile', 'choose from detected ovcli.conf profiles'],
      ['Create new OpenViking profile', 'enter a new URL/API key'],
    ]);
    return source === 0 ? this.existingProfile(profiles) : this.createProfile();
  }

  // --- existing profile ----------------------------------------------------------------

  private async existingProfile(profiles: DiscoveredOvcliProfile[]): Promise<void> {
    for (;;) {
      const index = await this.pick(
        'OpenViking profile',
        profiles.map((p) => [`${p.name}${p.active ? ' (active)' : ''}`, `${endpointOf(p)} (${p.path})`]),
      );
      const chosen = profiles[index]!;
      const values = profileValues(chosen);
      for (let attempt = 0; attempt < 2; attempt++) {
        this.say('Validating OpenViking profile...');
        const result = await validateSetupValues(values, {
          requireApiKey: !isLocal(values.endpoint),
          signal: this.ctx.signal,
        });
        if (result.ok) {
          this.link(chosen.path);
          return this.ready(`Linked profile: ${chosen.name}`, chosen.path);
        }
        this.say(result.message);
        if (attempt === 1) break; // a second failure goes back to the picker
        const next = await this.pick('OpenViking profile validation failed', [
          ['Choose another profile', 'select a different OpenViking profile'],
          ['Retry validation', 'try this profile again'],
        ]);
        if (next === 0) break;
      }
    }
  }

  // --- new connection --------------------------------------------------------------------

  private async createProfile(): Promise<void> {
    const kind = await this.pick('OpenViking connection', [
      ['OpenViking Service (VolcEngine Cloud)', 'use the managed OpenViking endpoint'],
      ['Custom', 'use a local, VPS, or self-hosted OpenViking server'],
    ]);
    const values = await this.connectionValues(kind === 0);
    const save = await this.pick(
      'Save OpenViking config',
      [
        ['Keep in Hermes only', 'write values only to Hermes .env'],
        ['Mirror to OpenViking store', 'write ~/.openviking/ovcli.conf.<name> and link it'],
      ],
      1,
    );
    if (save === 1) {
      const file = await this.mirror(values);
      this.link(file);
      return this.ready('Created and linked OpenViking profile.', file);
    }
    saveHermesOnlyConnection(this.ctx.home, values, this.ctx.logger);
    this.ready('Connection saved to Hermes .env.');
  }

  /** Ask until a validated connection is built (the reference's manual-connection loop). */
  private async connectionValues(service: boolean): Promise<ConnectionValues> {
    let endpoint: string;
    if (service) {
      endpoint = this.serviceEndpoint;
      this.say(`OpenViking Service endpoint: ${endpoint}`);
    } else endpoint = await this.askEndpoint();
    const local = isLocal(endpoint);
    // The hosted service only takes user keys; a detected other role reroutes the flow.
    let keyType: 'user' | 'root' | '' = service ? 'user' : '';
    let prefilled = '';
    for (;;) {
      const values: ConnectionValues = {
        endpoint,
        apiKey: '',
        rootApiKey: '',
        account: '',
        user: '',
        agent: '',
      };
      if (!keyType) {
        const options: Choice[] = [
          [
            'User API key',
            local
              ? 'recommended; server derives account/user automatically'
              : 'server derives account/user automatically',
          ],
          ['Root API key', 'requires account and user IDs'],
        ];
        if (local) options.push(['No API key', 'only for explicitly unauthenticated local development']);
        const credential = await this.pick(
          local ? 'OpenViking credential' : 'OpenViking API key type',
          options,
        );
        if (credential === 2) {
          this.say('Validating OpenViking local dev access...');
          const result = await this.validate(values, false);
          if (result.ok) {
            this.say('OpenViking local dev access validated.');
            return values;
          }
          await this.retryOrCancel('OpenViking credential failed', result.message);
          continue;
        }
        keyType = credential === 1 ? 'root' : 'user';
      }
      const label = service ? 'OpenViking API key' : `OpenViking ${keyType} API key`;
      if (prefilled) {
        values.apiKey = prefilled;
        prefilled = '';
      } else values.apiKey = await this.secret(label);
      if (!values.apiKey) {
        await this.retryOrCancel('OpenViking API key required', `${label} is required.`);
        continue;
      }

      if (keyType === 'root') {
        this.say('Validating OpenViking root API key...');
        const result = await this.validate(values, true);
        if (result.ok && result.role === 'user') {
          ({ keyType, prefilled } = await this.reroute('root', values.apiKey));
          continue;
        }
        if (!result.ok || result.role !== 'root') {
          await this.retryOrCancel(
            'OpenViking root API key failed',
            result.ok ? 'The supplied key was not accepted as a root API key.' : result.message,
          );
          continue;
        }
        this.say('OpenViking root API key validated.');
        values.rootApiKey = values.apiKey;
        const problems: string[] = [];
        for (const field of ['account', 'user'] as const) {
          const answer = await this.text(`OpenViking ${field}`);
          const problem = tenantProblem(field, answer);
          if (problem) problems.push(problem);
          else values[field] = answer;
        }
        if (problems.length > 0) {
          await this.retryOrCancel('OpenViking tenant identity required', problems[0]!);
          prefilled = values.apiKey;
          continue;
        }
      }

      this.say('Validating OpenViking API access...');
      const result = await this.validate(values, service || !local);
      if (!result.ok) {
        await this.retryOrCancel('OpenViking API access failed', result.message);
        continue;
      }
      if (keyType === 'user' && result.role === 'root') {
        ({ keyType, prefilled } = await this.reroute('user', values.apiKey));
        continue;
      }
      if (keyType === 'root' && result.role !== 'root') {
        await this.retryOrCancel(
          'OpenViking root API key failed',
          'The supplied key was not accepted as a root API key.',
        );
        continue;
      }
      this.say('OpenViking API access validated.');
      return values;
    }
  }

  /** The key has the other role: use it as such, enter another, or cancel. */
  private async reroute(
    entered: 'user' | 'root',
    key: string,
  ): Promise<{ keyType: 'user' | 'root'; prefilled: string }> {
    const [note, title, switchTo, label] =
      entered === 'root'
        ? ([
            'That key is valid, but it is a user API key.',
            'OpenViking key is a user key',
            ['Use as User API key', 'server derives account/user automatically'],
            'Root API key',
          ] as const)
        : ([
            'That key is valid, but it has root access.',
            'OpenViking user API key is root key',
            ['Configure as Root API key', 'provide account and user IDs'],
            'User API key',
          ] as const);
    this.say(note);
    const choice = await this.pick(title, [switchTo, [`Re-enter ${label}`, `try another ${entered} key`]]);
    if (choice === 0) return { keyType: entered === 'root' ? 'user' : 'root', prefilled: key };
    return { keyType: entered, prefilled: '' };
  }

  /** A server URL that normalises and answers `/health` (offering to start a local one). */
  private async askEndpoint(): Promise<string> {
    let initial = DEFAULT_ENDPOINT;
    for (;;) {
      const raw = await this.text('OpenViking server URL', initial);
      const checked = checkEndpoint(raw.trim() === '' ? DEFAULT_ENDPOINT : raw);
      if (!checked.ok) {
        await this.retryOrCancel(
          'Invalid OpenViking endpoint',
          `Invalid OpenViking endpoint: ${checked.reason}.`,
        );
        continue;
      }
      const endpoint = checked.endpoint;
      initial = endpoint;
      this.say('Checking OpenViking server...');
      const reach = await checkReachable(endpoint, this.ctx.signal);
      if (reach.state === 'ok') {
        this.say('OpenViking server is reachable.');
        return endpoint;
      }
      // Something that answered unhealthy is never started over; a remote one is not ours to start.
      if (reach.state === 'responded' || !isLocal(endpoint)) {
        await this.retryOrCancel(
          isLocal(endpoint) ? 'OpenViking server unhealthy' : 'OpenViking server unreachable',
          reach.message,
        );
        continue;
      }
      this.say(reach.message);
      const choice = await this.pick('Local OpenViking server is down', [
        ['Start local OpenViking', 'run openviking-server and retry'],
        ['Retry URL', 'enter the server URL again'],
      ]);
      if (choice === 0 && (await this.startLocal(endpoint))) return endpoint;
    }
  }

  private async startLocal(endpoint: string): Promise<boolean> {
    const target = loopbackTarget(endpoint)!;
    const launched = await launchLocalServer({
      command: cliSettings(this.ctx).serverCommand,
      host: target.host,
      port: target.port,
      hermesHome: this.ctx.home,
      env: this.ctx.env,
    });
    if (launched.status !== 'spawned') {
      this.say(launched.message);
      return false;
    }
    this.say(
      `Started openviking-server on ${target.host}:${target.port} in the background. Logs: ${launched.logFile}`,
    );
    this.say('Waiting for OpenViking server to become reachable...');
    const polled = await pollUntil(() => checkReachable(endpoint, this.ctx.signal), {
      intervalMs: START_POLL_MS,
      timeoutMs: START_WAIT_MS,
      isDone: (reach) => reach.state === 'ok',
      isTransient: () => true,
      clock: this.clock,
      signal: this.ctx.signal,
    });
    if (polled.status === 'done') {
      this.say('OpenViking server is reachable.');
      return true;
    }
    this.say('OpenViking server did not become reachable.');
    return false;
  }

  // --- saving -------------------------------------------------------------------------------

  /** Write `~/.openviking/ovcli.conf.<name>` (0600), asking before replacing a different one. */
  private async mirror(values: ConnectionValues): Promise<string> {
    const data = ovcliData(values);
    for (;;) {
      const name = await this.text('OpenViking profile name');
      if (!isValidProfileName(name)) {
        await this.retryOrCancel(
          'Invalid OpenViking profile name',
          "Profile names can only contain letters, numbers, '-' and '_'.",
        );
        continue;
      }
      const file = savedOvcliPath(this.ctx.env, name);
      if (fs.existsSync(file) && !sameData(readJsonConfig(file).data, data)) {
        const choice = await this.pick('OpenViking profile already exists', [
          ['Choose another name', 'leave the existing profile unchanged'],
          ['Replace profile', 'overwrite this saved OpenViking profile'],
        ]);
        if (choice === 0) continue;
      }
      writeOvcliProfile(file, data);
      return file;
    }
  }

  private link(file: string): void {
    linkOvcliProfile(this.ctx.home, this.ctx.env, file, this.ctx.logger);
  }

  private ready(message: string, file?: string): void {
    this.say(message);
    if (file) this.say(`Config file: ${file}`);
    this.prompter.outro('OpenViking memory is ready. Start a new session to activate.');
  }

  // --- questions ------------------------------------------------------------------------------

  private say(message: string): void {
    this.ctx.out(`  ${message}`);
  }

  private validate(values: ConnectionValues, requireApiKey: boolean) {
    return validateSetupValues(values, { requireApiKey, signal: this.ctx.signal });
  }

  /** A picker ending with "Cancel setup" (which unwinds, as a cancelled prompt does). Returns the index. */
  private async pick(title: string, options: readonly Choice[], initial = 0): Promise<number> {
    const all = [...options, CANCEL];
    const answer = await this.prompter.select(
      title,
      all.map(([label, hint], i) => ({ value: String(i), label, hint })),
      String(initial),
    );
    if (answer === PROMPT_CANCELLED || Number(answer) === all.length - 1) throw new Cancelled();
    return Number(answer);
  }

  private async text(message: string, initial?: string): Promise<string> {
    const answer = await this.prompter.text(message, initial !== undefined ? { initial } : {});
    if (answer === PROMPT_CANCELLED) throw new Cancelled();
    return answer;
  }

  private async secret(message: string): Promise<string> {
    const answer = await this.prompter.password(message, {});
    if (answer === PROMPT_CANCELLED) throw new Cancelled();
    return answer.trim();
  }

  /** Say what went wrong, then "Retry" (returns) or "Cancel setup" (unwinds). */
  private async retryOrCancel(title: string, message: string): Promise<void> {
    this.say(message);
    await this.pick(title, [['Retry', 'try this step again']]);
  }
}

function isLocal(endpoint: string): boolean {
  return loopbackTarget(endpoint) !== null;
}

function endpointOf(p: DiscoveredOvcliProfile): string {
  const checked = p.profile.url ? checkEndpoint(p.profile.url) : null;
  return checked?.ok ? checked.endpoint : (p.profile.url ?? DEFAULT_ENDPOINT);
}

function profileValues(p: DiscoveredOvcliProfile): ConnectionValues {
  return {
    endpoint: endpointOf(p),
    apiKey: p.profile.apiKey ?? '',
    rootApiKey: p.profile.rootApiKey ?? '',
    account: p.profile.account ?? '',
    user: p.profile.user ?? '',
    agent: p.profile.agent ?? '',
  };
}

/** A root key's tenant: required, no surrounding whitespace, the server's identity rules. */
function tenantProblem(field: 'account' | 'user', value: string): string | null {
  const label = field === 'account' ? 'Account ID' : 'User ID';
  if (value.trim() === '') return `${label} cannot be empty.`;
  if (value.trim() !== value) return `${label} cannot start or end with whitespace.`;
  return identityProblem(field, value);
}

function sameData(a: Record<string, unknown>, b: Record<string, string>): boolean {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)]);
  for (const key of keys) if (a[key] !== b[key]) return false;
  return true;
}
