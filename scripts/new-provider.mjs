#!/usr/bin/env node
/**
 * pnpm new:provider <id> [--remote | --local] [--root <repo>] [--description "<text>"]
 *
 * Copies a template to packages/<id> and renames every identifier: npm name, provider name, class
 * and factory (`TemplateProvider` → `<Pascal>Provider`), client and fake (`TemplateClient`,
 * `startFakeTemplate`), tool prefix (`template_` → `<snake>_`), env prefix (`TEMPLATE_` →
 * `<UPPER>_`) and file names. The template is packages/provider-template — a remote provider (an
 * HTTP client, its fake backend under ./testing, conformance with `remote: true`) — by default or
 * with --remote, and packages/provider-template-local (a JSON-lines file in HERMES_HOME) with --local.
 * The new package is public at 0.1.0 with the links, LICENSE and CHANGELOG.md every published package
 * carries (packages/repo-checks holds it to the packaging rules), and a README skeleton with the
 * required sections; its peer range on core is the template's (decision 0003).
 * Refuses invalid ids and existing folders. Prints one line per step and the next steps.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { packageLinks } from './workspace.mjs';

const RESERVED = new Set([
  'core',
  'testkit',
  'template',
  'provider-template',
  'provider-template-local',
  'builtin',
  'cli',
  'mcp',
  'bench',
  'embeddings',
  'ai-sdk',
  'quickstart',
  'hermes',
  'memory',
  // The CLI's own commands win over `hermes-memory <provider> …` (decision 0603).
  'status',
  'setup',
  'doctor',
  'sessions',
  'export',
  'import',
  'help',
  'facts',
]);
const ID_PATTERN = /^[a-z][a-z0-9]*(?:-[a-z0-9]+)*$/;
// The generator's own test stays behind: it is about the template, not the new provider.
const SKIP = new Set(['node_modules', 'dist', '.turbo', 'coverage', 'CHANGELOG.md', 'new-provider.test.ts']);

export function validateId(id) {
  if (typeof id !== 'string' || id === '') return 'an id is required: pnpm new:provider <id>';
  if (!ID_PATTERN.test(id))
    return `invalid id '${id}': use lowercase letters, digits and single dashes, starting with a letter (e.g. "acme" or "acme-notes")`;
  if (id.length > 40) return `invalid id '${id}': at most 40 characters`;
  if (RESERVED.has(id) || id.includes('template')) return `invalid id '${id}': the name is reserved`;
  return null;
}

export function namesFor(id) {
  const parts = id.split('-');
  return {
    id,
    snake: parts.join('_'),
    upper: parts.join('_').toUpperCase(),
    pascal: parts.map((p) => p[0].toUpperCase() + p.slice(1)).join(''),
  };
}

/** Ordered replacements: most specific first, so a later rule never re-matches an earlier result. */
export function renameText(text, names) {
  return text
    .replaceAll('@hermes-memory/provider-template-local', `@hermes-memory/${names.id}`)
    .replaceAll('provider-template-local', names.id)
    .replaceAll('@hermes-memory/provider-template', `@hermes-memory/${names.id}`)
    .replaceAll('provider-template', names.id)
    .replaceAll('template-', `${names.id}-`)
    .replaceAll('template_', `${names.snake}_`)
    .replaceAll('TEMPLATE_', `${names.upper}_`)
    .replaceAll('Template', names.pascal)
    .replaceAll('template', names.id);
}

/** The configuration rows and the "how it works" stub of each variant's README skeleton. */
const VARIANT_README = {
  remote: ({ id, upper }) => ({
    install: `npm install @hermes-memory/${id} @hermes-memory/core`,
    quickStart: `const provider = create__PASCAL__Provider({ baseURL: 'https://memory.example.com', apiKey: process.env.${upper}_API_KEY });`,
    options: [
      ['apiKey', `\`${upper}_API_KEY\` / \`memory.${id}.api_key\``, '—', 'Sent as Bearer; required'],
      [
        'baseURL',
        `\`${upper}_BASE_URL\` / \`memory.${id}.base_url\``,
        '`http://127.0.0.1:8765`',
        'The service',
      ],
      [
        'maxResults',
        `\`${upper}_MAX_RESULTS\` / \`memory.${id}.max_results\``,
        '`5`',
        'Entries per search and prefetch',
      ],
      ['timeoutMs', `\`memory.${id}.timeout_ms\``, '`10000`', 'Per request attempt'],
      ['maxRetries', `\`memory.${id}.max_retries\``, '`2`', 'Retries of requests safe to repeat'],
      ['maxEntryChars', `\`memory.${id}.max_entry_chars\``, '`4000`', 'Longest entry accepted'],
      [
        'enabled',
        `\`${upper}_ENABLED\` / \`memory.${id}.enabled\``,
        '`true`',
        '`false` makes `isAvailable()` return false',
      ],
    ],
    how: `Describe your backend here: which service each hook calls, what runs in the background, and how failures show (\`health()\`, \`probe()\`). The fake backend is \`@hermes-memory/${id}/testing\`.`,
  }),
  local: ({ id, upper }) => ({
    install: `npm install @hermes-memory/${id} @hermes-memory/core`,
    quickStart: 'const provider = create__PASCAL__Provider();',
    options: [
      [
        'fileName',
        `\`${upper}_FILE\` / \`memory.${id}.file_name\``,
        `\`${id}-memory.jsonl\``,
        'Memory file inside HERMES_HOME',
      ],
      [
        'maxResults',
        `\`${upper}_MAX_RESULTS\` / \`memory.${id}.max_results\``,
        '`5`',
        'Entries per search and prefetch',
      ],
      ['maxEntryChars', `\`memory.${id}.max_entry_chars\``, '`4000`', 'Longest entry accepted'],
      ['enabled', '—', '`true`', '`false` makes `isAvailable()` return false'],
    ],
    how: 'Describe your store here: what each hook does, what is stored where, and what runs in the background.',
  }),
};

function readme(names, description, variant) {
  const { id, pascal, snake } = names;
  const parts = VARIANT_README[variant](names);
  const rows = parts.options.map(
    ([option, where, value, what]) => `| \`${option}\` | ${where} | ${value} | ${what} |`,
  );
  return `# @hermes-memory/${id}

${description}

## Install

\`\`\`sh
${parts.install}
\`\`\`

\`@hermes-memory/core\` is a peer dependency: install it next to this package.

## Quick start

\`\`\`ts
import { create${pascal}Provider } from '@hermes-memory/${id}';

${parts.quickStart.replace('__PASCAL__', pascal)}
\`\`\`

Or select it from \`config.yaml\` (discovery finds the \`hermesMemory.provider\` field in package.json):

\`\`\`yaml
memory:
  provider: ${id}
\`\`\`

## Configuration

| Option | Env var / config key | Default | Description |
| --- | --- | --- | --- |
${rows.join('\n')}

## Tools

| Tool | Description |
| --- | --- |
| \`${snake}_search\` | Search stored entries |
| \`${snake}_remember\` | Store one durable fact |

## How it works

${parts.how}

## Compatibility with the Python reference

Describe how this provider maps to its Hermes Agent counterpart, if there is one.

## Benchmarks

No numbers yet: they will come from \`packages/bench\` (\`pnpm bench\`).

## License

MIT
`;
}

function copyTree(from, to, names, written) {
  fs.mkdirSync(to, { recursive: true });
  for (const entry of fs.readdirSync(from, { withFileTypes: true })) {
    if (SKIP.has(entry.name)) continue;
    const source = path.join(from, entry.name);
    const target = path.join(to, renameText(entry.name, names));
    if (entry.isDirectory()) copyTree(source, target, names, written);
    else if (entry.isFile()) {
      fs.writeFileSync(target, renameText(fs.readFileSync(source, 'utf8'), names));
      written.push(target);
    }
  }
}

/** Lines of generated files that still mention the template (should be none). */
export function leftovers(dir) {
  const found = [];
  const walk = (current) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      if (SKIP.has(entry.name)) continue;
      const full = path.join(current, entry.name);
      if (/template/i.test(entry.name)) found.push(`${full}: file name`);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile()) {
        fs.readFileSync(full, 'utf8')
          .split('\n')
          .forEach((line, i) => {
            if (/template/i.test(line)) found.push(`${full}:${i + 1}: ${line.trim()}`);
          });
      }
    }
  };
  walk(dir);
  return found;
}

/** Which template each variant copies. */
export const TEMPLATES = { remote: 'provider-template', local: 'provider-template-local' };

export function generateProvider(id, { root, description, variant = 'remote' } = {}) {
  const problem = validateId(id);
  if (problem) throw new Error(problem);
  if (!(variant in TEMPLATES)) throw new Error(`unknown variant '${variant}': use --remote or --local`);
  const repo = root ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
  const source = path.join(repo, 'packages', TEMPLATES[variant]);
  const target = path.join(repo, 'packages', id);
  if (!fs.existsSync(source)) throw new Error(`template not found at ${source}`);
  if (fs.existsSync(target))
    throw new Error(`packages/${id} already exists; pick another id or remove the folder`);
  const names = namesFor(id);
  const written = [];
  copyTree(source, target, names, written);

  const pkgPath = path.join(target, 'package.json');
  const pkg = JSON.parse(fs.readFileSync(pkgPath, 'utf8'));
  const text = description ?? `A Hermes memory provider: ${id}.`;
  const out = {
    name: `@hermes-memory/${id}`,
    version: '0.1.0',
    description: text,
    license: pkg.license,
    ...packageLinks(`packages/${id}`, repo),
    ...Object.fromEntries(
      Object.entries(pkg).filter(
        ([k]) =>
          ![
            'name',
            'version',
            'private',
            'description',
            'license',
            'repository',
            'homepage',
            'bugs',
          ].includes(k),
      ),
    ),
  };
  // The template's manifest stays (its `cli` module, `localData`), under the new id.
  out.hermesMemory = { ...pkg.hermesMemory, provider: id };
  out.publishConfig = { access: 'public' };
  fs.writeFileSync(pkgPath, `${JSON.stringify(out, null, 2)}\n`);
  fs.writeFileSync(path.join(target, 'README.md'), readme(names, text, variant));
  // What npm shows and ships: the license text, and the changelog changesets will prepend to.
  fs.copyFileSync(path.join(repo, 'LICENSE'), path.join(target, 'LICENSE'));
  fs.writeFileSync(path.join(target, 'CHANGELOG.md'), `# @hermes-memory/${id}\n`);

  const remaining = leftovers(target);
  if (remaining.length > 0) {
    throw new Error(`rename incomplete, template names remain:\n  ${remaining.join('\n  ')}`);
  }
  return { target, names, files: written.length, variant };
}

function parseArgs(argv) {
  const args = { id: undefined, root: undefined, description: undefined, variant: 'remote' };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    if (arg === '--local' || arg === '--remote') args.variant = arg.slice(2);
    else if (arg === '--root') args.root = argv[++i];
    else if (arg === '--description') args.description = argv[++i];
    else if (arg === '--help' || arg === '-h') args.help = true;
    else if (args.id === undefined) args.id = arg;
    else throw new Error(`unexpected argument '${arg}'`);
  }
  return args;
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  try {
    const args = parseArgs(process.argv.slice(2));
    if (args.help) {
      console.log(
        'usage: pnpm new:provider <id> [--remote (default: an HTTP service, its fake under ./testing) | --local (a file in HERMES_HOME)] [--description "<text>"] [--root <repo>]',
      );
      process.exit(0);
    }
    const { target, names, files, variant } = generateProvider(args.id, args);
    console.log(
      `created ${path.relative(process.cwd(), target) || target} (${files} files, ${variant}): @hermes-memory/${names.id}, ${names.pascal}Provider, tools ${names.snake}_*, env ${names.upper}_*`,
    );
    console.log(
      'next: pnpm install && pnpm turbo run build --filter=@hermes-memory/' +
        names.id +
        '... && pnpm --filter @hermes-memory/' +
        names.id +
        ' test',
    );
  } catch (error) {
    console.error(`new-provider: ${error.message}`);
    process.exit(1);
  }
}
