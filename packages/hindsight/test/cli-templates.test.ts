import { providerCliTestContext, runProviderCliCommand, scriptedPrompter } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import hindsightCli from '../src/cli';
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

  it('with a prompter it offers the Hermes templates and Blank, confirms before overwriting (default Keep); --json and --no-template never ask', async () => {
    const { server, dir, env, base } = await setting();
    const first = scriptedPrompter(['personal-assistant']);
    const applied = await runProviderCliCommand(hindsightCli, base, {
      home: dir,
      env,
      prompter: first.prompter,
    });
    expect(applied.stdout).toContain("✓ Applied 'Personal assistant' template");
    expect(first.asked[0]?.message).toBe('Starter memory template');
    expect(first.asked[0]?.options?.map((o) => o.label)).toEqual([
      'Personal assistant',
      'Coding agent',
      'Blank',
    ]);
    // Again on the now customised bank: pick Coding agent, then Apply when asked.
    const again = scriptedPrompter(['coding-agent', 'apply']);
    const over = await runProviderCliCommand(hindsightCli, base, {
      home: dir,
      env,
      prompter: again.prompter,
    });
    expect(again.asked[1]?.message).toBe(
      "Bank 'hermes' already has memory settings — apply this template on top?",
    );
    expect(again.asked[1]?.initial).toBe('keep');
    expect(over.stdout).toContain("✓ Applied 'Coding agent' template");
    const blank = scriptedPrompter(['']);
    expect(
      (await runProviderCliCommand(hindsightCli, base, { home: dir, env, prompter: blank.prompter })).stdout,
    ).toContain("Bank 'hermes' starts blank.");
    const silent = scriptedPrompter([]);
    const json = await runProviderCliCommand(hindsightCli, base, {
      home: dir,
      env,
      prompter: silent.prompter,
      json: true,
    });
    expect(JSON.parse(json.stdout).template).toBeUndefined();
    await runProviderCliCommand(hindsightCli, [...base, '--no-template'], {
      home: dir,
      env,
      prompter: silent.prompter,
    });
    expect(silent.asked).toHaveLength(0);
    const flagged = await runProviderCliCommand(hindsightCli, [...base, '--template', 'blank'], {
      home: dir,
      env,
      json: true,
    });
    expect(JSON.parse(flagged.stdout).template).toEqual({
      status: 'blank',
      message: "Bank 'hermes' starts blank.",
    });
    expect(server.requestsTo(IMPORT)).toHaveLength(2);
  });

  it('after `hermes-memory setup hindsight` saved the settings, postSetup tests them and offers a template', async () => {
    const { server, dir, env } = await setting();
    const script = scriptedPrompter(['coding-agent']);
    const harness = providerCliTestContext(hindsightCli, {
      home: dir,
      env: { ...env, HINDSIGHT_API_KEY: KEY, HINDSIGHT_API_URL: server.url },
      prompter: script.prompter,
    });
    await hindsightCli.postSetup?.(harness.ctx, { values: {}, envNames: ['HINDSIGHT_API_KEY'] });
    expect(harness.stdout()).toContain('✓ Connected · Hindsight 0.5.6 · bank: hermes');
    expect(harness.stdout()).toContain("✓ Applied 'Coding agent' template to bank 'hermes'.");
    expect(server.requestsTo(IMPORT)).toHaveLength(1);
  });
});
