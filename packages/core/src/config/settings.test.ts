import { describe, expect, it } from 'vitest';
import { SettingsError } from '../errors/memory-error';
import {
  booleanSetting,
  hasApiKey,
  loadApiKey,
  loadOptionalSetting,
  loadSetting,
  parseBoolean,
} from './settings';

describe('settings loader', () => {
  it('parseBoolean: one parser for YAML, JSON, .env and tool arguments', () => {
    for (const v of [true, 1, 2, '1', 'true', 'TRUE', ' yes ', 'on', 'y', 't'])
      expect(parseBoolean(v)).toBe(true);
    for (const v of [false, 0, '0', 'false', 'No', 'off', 'n', 'f', '']) expect(parseBoolean(v)).toBe(false);
    for (const v of ['banana', null, undefined, {}, Number.NaN]) expect(parseBoolean(v)).toBeUndefined();
    expect(booleanSetting('banana', true)).toBe(true);
    expect(booleanSetting('off', true)).toBe(false);
  });

  it('loadApiKey: explicit value, then the environment, else one uniform message', () => {
    const env = { HONCHO_API_KEY: ' hk-env ' };
    expect(
      loadApiKey({
        apiKey: 'hk-explicit',
        environmentVariableName: 'HONCHO_API_KEY',
        env,
        description: 'Honcho',
      }),
    ).toBe('hk-explicit');
    expect(loadApiKey({ environmentVariableName: 'HONCHO_API_KEY', env, description: 'Honcho' })).toBe(
      'hk-env',
    );
    expect(
      loadApiKey({ apiKey: '  ', environmentVariableName: 'HONCHO_API_KEY', env, description: 'Honcho' }),
    ).toBe('hk-env');
    const error = (() => {
      try {
        return loadApiKey({ environmentVariableName: 'MEM0_API_KEY', env: {}, description: 'Mem0' });
      } catch (e) {
        return e;
      }
    })();
    expect(SettingsError.isInstance(error)).toBe(true);
    expect((error as SettingsError).message).toBe(
      "Mem0 API key is missing. Pass it as the 'apiKey' option or set the MEM0_API_KEY environment variable.",
    );
    expect(hasApiKey({ environmentVariableName: 'MEM0_API_KEY', env: {} })).toBe(false);
    expect(hasApiKey({ environmentVariableName: 'MEM0_API_KEY', env: { MEM0_API_KEY: 'x' } })).toBe(true);
    expect(() =>
      loadApiKey({ apiKey: 42 as unknown as string, environmentVariableName: 'X', description: 'X' }),
    ).toThrow(/must be a string/);
  });

  it('loadSetting / loadOptionalSetting fall back to the default', () => {
    expect(
      loadOptionalSetting({
        environmentVariableName: 'HONCHO_URL',
        env: {},
        defaultValue: 'https://api.honcho.dev',
      }),
    ).toBe('https://api.honcho.dev');
    expect(loadOptionalSetting({ environmentVariableName: 'HONCHO_URL', env: {} })).toBeUndefined();
    expect(() => loadSetting({ settingName: 'baseURL', description: 'Hindsight API URL', env: {} })).toThrow(
      "Hindsight API URL is missing. Pass it as the 'baseURL' option.",
    );
  });
});
