import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordingLogger } from '../logging/logger';
import { createProviderFactoryContext } from '../provider/factory-context';
import { resolveMemoryProvider } from './index';

let root: string;
let home: string;
let project: string;

/**
 * A provider like Honcho's: its key lives in `<home>/.env` and its switch in `memory.keyed` of
 * config.yaml. `isAvailable()` answers from what the factory received, with no I/O.
 */
const KEYED_SOURCE = `
export function createKeyedProvider(settings, context) {
  return {
    name: 'keyed',
    settings,
    context,
    isAvailable() {
      return Boolean(context && context.env.KEYED_API_KEY) && context.providerConfig.enabled === true;
    },
    initialize() {},
    getToolSchemas() { return []; },
  };
}
export class KeyedClass {
  constructor(settings, context) { this.name = 'keyed-class'; this.context = context; }
  isAvailable() { return Boolean(this.context?.env.KEYED_API_KEY); }
  initialize() {}
  getToolSchemas() { return []; }
}
`;

beforeAll(() => {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-factory-context-'));
  home = path.join(root, 'home');
  project = path.join(root, 'project');
  fs.mkdirSync(home, { recursive: true });
  fs.writeFileSync(path.join(home, '.env'), 'KEYED_API_KEY=kk-from-dotenv\n');
  fs.writeFileSync(
    path.join(home, 'config.yaml'),
    'memory:\n  provider: keyed\n  keyed:\n    enabled: true\n',
  );
  for (const [dir, main] of [
    ['keyed-memory', 'index.js'],
    ['keyed-class-memory', 'class.js'],
  ] as const) {
    const pkgDir = path.join(project, 'node_modules', dir);
    fs.mkdirSync(pkgDir, { recursive: true });
    const provider = dir === 'keyed-memory' ? 'keyed' : 'keyed-class';
    fs.writeFileSync(
      path.join(pkgDir, 'package.json'),
      JSON.stringify({ name: dir, type: 'module', main, hermesMemory: { provider } }),
    );
    fs.writeFileSync(
      path.join(pkgDir, main),
      main === 'index.js' ? KEYED_SOURCE : `${KEYED_SOURCE}\nexport default KeyedClass;`,
    );
  }
});

afterAll(() => fs.rmSync(root, { recursive: true, force: true }));

describe('provider factory context (issue 13: isAvailable() cannot see the profile)', () => {
  it('a factory receives the home, env overlaid with <home>/.env, and its config block', async () => {
    // Before the fix the factory got only `{}` settings: no key, no config, isAvailable() false.
    const result = await resolveMemoryProvider('keyed', {
      cwd: project,
      hermesHome: home,
      env: { PATH: '/bin' },
    });
    expect(result.status).toBe('loaded');
    if (result.status !== 'loaded') return;
    const provider = result.provider as unknown as {
      isAvailable(): boolean;
      context: { hermesHome: string; env: Record<string, string>; providerConfig: unknown; provider: string };
    };
    expect(provider.isAvailable()).toBe(true);
    expect(provider.context.hermesHome).toBe(home);
    expect(provider.context.provider).toBe('keyed');
    expect(provider.context.env).toMatchObject({ PATH: '/bin', KEYED_API_KEY: 'kk-from-dotenv' });
    expect(provider.context.providerConfig).toEqual({ enabled: true });
    // The context is frozen: a provider cannot leak changes into the next one.
    expect(Object.isFrozen(provider.context.env)).toBe(true);
  });

  it('classes are constructed with (settings, context) too; explicit providerConfig wins', async () => {
    const result = await resolveMemoryProvider('keyed-class', {
      cwd: project,
      hermesHome: home,
      env: {},
      providerConfig: { custom: 1 },
    });
    expect(result.status).toBe('loaded');
    if (result.status !== 'loaded') return;
    expect(result.provider.isAvailable()).toBe(true);
    expect(
      (result.provider as unknown as { context: { providerConfig: unknown } }).context.providerConfig,
    ).toEqual({
      custom: 1,
    });
  });

  it('.env wins over the base env; a corrupt config.yaml is logged and read as empty', () => {
    const broken = path.join(root, 'broken-home');
    fs.mkdirSync(broken);
    fs.writeFileSync(path.join(broken, '.env'), 'KEYED_API_KEY=file\n');
    fs.writeFileSync(path.join(broken, 'config.yaml'), 'memory: [unclosed\n');
    const logger = createRecordingLogger();
    const context = createProviderFactoryContext('keyed', {
      hermesHome: broken,
      env: { KEYED_API_KEY: 'shell', HERMES_HOME: '/elsewhere' },
      logger,
    });
    expect(context.env.KEYED_API_KEY).toBe('file');
    expect(context.providerConfig).toEqual({});
    expect(logger.records.some((r) => r.level === 'warn' && r.message.includes('config'))).toBe(true);
    // Without an explicit home, HERMES_HOME from the base env decides.
    expect(createProviderFactoryContext('keyed', { env: { HERMES_HOME: home } }).hermesHome).toBe(home);
  });
});
