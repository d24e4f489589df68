import { runProviderCliCommand } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import hindsightCli, { type Choice, createHindsightCli } from '../src/cli';
import { FAKE_TEMPLATES_PATH } from '../src/testing';
import { fake, home, KEY } from './helpers';

const IMPORT = 'POST /v1/default/banks/:bank/import';
const EXPORT = 'GET /v1/default/banks/:bank/export';

async function setting() {
  const server = await fake();
  const dir = home();
  const env = { HOME: dir, HINDSIGHT_TEMPLATES_URL: `${server.url}${FAKE_TEMPLATES_PATH}` };
  const base = ['setup', '--mode', 'local_external', '--api-url', server.url, '--api-key', KEY, '--no-test'];
  return { server, dir, env, base };
}

describe('hermes-memory hindsight setup: the starter bank template (reference templates.py)', () => {
  it('--template applies a Hermes template’s manifest (fetched relative to the catalog) through the import API', async () => {
    const { server, dir, env, base } = await setting();
    const run = await runProviderCliCommand(hindsightCli, [...base, '--template', 'personal-assistant'], {
      home: dir,
      env,
    });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain("✓ Applied 'Personal assistant' template to bank 'hermes'.");
    expect(server.requests.map((r) => r.path)).toContain('/catalog/templates/personal-assistant.json');
    const imported = server.requestsTo(IMPORT);
    expect(imported).toHaveLength(1);
    expect(imported[0]?.body).toMatchObject({ version: '1', directives: [{ name: 'no-secrets' }] });
    expect(server.dump().bankTemplates.hermes?.mentalModels).toEqual([
      { id: 'user-profile', name: 'User profile', source_query: 'Who is the user?' },
    ]);
  });

  it('a customised bank is kept unless --overwrite; a template for another integration, an unknown id or an unreachable catalog never fail setup', async () => {
    const { server, dir, env, base } = await setting();
    await runProviderCliCommand(hindsightCli, [...base, '--template', 'personal-assistant'], {
      home: dir,
      env,
    });
    const kept = await runProviderCliCommand(hindsightCli, [...base, '--template', 'coding-agent'], {
      home: dir,
      env,
    });
    expect(kept.code).toBe(0);
    expect(kept.stdout).toContain("Kept existing settings for bank 'hermes'.");
    expect(server.requestsTo(EXPORT)).toHaveLength(2); // a new bank is probed too (404: not customised)
    expect(server.requestsTo(IMPORT)).toHaveLength(1);
    const over = await runProviderCliCommand(
      hindsightCli,
      [...base, '--template', 'coding-agent', '--overwrite'],
      {
        home: dir,
        env,
      },
    );
    expect(over.stdout).toContain("✓ Applied 'Coding agent' template");
    expect(server.dump().bankTemplates.hermes?.directives.map((d) => d.name)).toEqual([
      'no-secrets',
      'cite-files',
    ]);

    const other = await runProviderCliCommand(hindsightCli, [...base, '--template', 'support-desk'], {
      home: dir,
      env,
    });
    expect(other.code).toBe(0);
    expect(other.stdout).toContain(
      "Unknown starter template 'support-desk' (available: personal-assistant, coding-agent).",
    );
    const gone = await runProviderCliCommand(hindsightCli, [...base, '--template', 'coding-agent'], {
      home: dir,
      env: { ...env, HINDSIGHT_TEMPLATES_URL: `${server.url}/no/such/templates.json` },
    });
    expect(gone.code).toBe(0);
    expect(gone.stdout).toContain('Starter templates unavailable: GET ');
    expect(server.requestsTo(IMPORT)).toHaveLength(2);
    expect(
      (
        await runProviderCliCommand(hindsightCli, [...base, '--template', 'x', '--no-template'], {
          home: dir,
          env,
        })
      ).code,
    ).toBe(2);
  });

  it('on a terminal it offers the Hermes templates and Blank, confirms before overwriting, and --json reports the step', async () => {
    const { server, dir, env, base } = await setting();
    const asked: { title: string; items: readonly Choice[]; initial: number }[] = [];
    const answers = [0, 1, 0];
    const cli = createHindsightCli({
      select: async (title, items, initial) => {
        asked.push({ title, items, initial });
        return answers.shift() ?? null;
      },
    });
    const first = await runProviderCliCommand(cli, base, { home: dir, env, interactive: true });
    expect(first.stdout).toContain("✓ Applied 'Personal assistant' template");
    expect(asked[0]?.title).toBe('Starter memory template');
    expect(asked[0]?.items.map((i) => i.label)).toEqual(['Personal assistant', 'Coding agent', 'Blank']);
    // Again on the now customised bank: pick Coding agent, then Apply when asked.
    const second = await runProviderCliCommand(cli, base, { home: dir, env, interactive: true, json: true });
    expect(asked).toHaveLength(1); // --json never asks
    expect(JSON.parse(second.stdout).template).toBeUndefined();
    const third = await runProviderCliCommand(cli, base, { home: dir, env, interactive: true });
    expect(asked[2]?.title).toBe("Bank 'hermes' already has memory settings — apply this template on top?");
    expect(asked[2]?.initial).toBe(1); // Keep existing is the default
    expect(third.stdout).toContain("✓ Applied 'Coding agent' template");
    const json = await runProviderCliCommand(hindsightCli, [...base, '--template', 'blank'], {
      home: dir,
      env,
      json: true,
    });
    expect(JSON.parse(json.stdout).template).toEqual({
      status: 'blank',
      message: "Bank 'hermes' starts blank.",
    });
    await runProviderCliCommand(cli, [...base, '--no-template'], { home: dir, env, interactive: true });
    expect(asked).toHaveLength(3);
    expect(server.requestsTo(IMPORT)).toHaveLength(2);
  });
});
