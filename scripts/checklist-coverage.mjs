#!/usr/bin/env node
/**
 * Which items of a spec's acceptance checklist have a test (decision 0204). `pnpm checklist …`.
 *
 *   node scripts/checklist-coverage.mjs <provider-id>                 e.g. honcho, holographic
 *   node scripts/checklist-coverage.mjs <file>§<section> [--package <id> ...]
 *                                                                     e.g. hermes-core§14 --package core
 *   node scripts/checklist-coverage.mjs --all                         every package with a checklist
 *   node scripts/checklist-coverage.mjs --list                        every checklist in the spec
 *   options: --json, --strict (exit 1 when an item is neither tested nor waived),
 *            --spec-dir <dir> (default ../shared/spec), --root <repo> (default this repository)
 *
 * Each spec section ends in a numbered checklist; tests name the items they cover in their titles,
 * as `§2.7.12` (section 2.7, item 12; also `§2.7.3, 5, 9–11`) or, for a package's own section,
 * `checklist 12` (also `checklist 16, 17, 30` and `checklist 7–10`). Waivers are one line each in a
 * fenced ```checklist-waivers block of any docs/decisions/*.md: `<file>§<section>.<items>: <reason>`.
 *
 * The spec lives outside the repository (../shared): published packages and `npm test` never read
 * it. This script runs by hand, and in CI where ../shared exists.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));

// ── Spec ────────────────────────────────────────────────────────────────────────────────────────

/** Every acceptance checklist of every spec file: `{file, section, title, level, items}`. */
export function readChecklists(specDir) {
  const out = [];
  for (const file of fs
    .readdirSync(specDir)
    .filter((f) => f.endsWith('.md'))
    .sort()) {
    const lines = fs.readFileSync(path.join(specDir, file), 'utf8').split('\n');
    let current;
    for (const line of lines) {
      const heading = /^(#{1,6})\s+(.*)$/.exec(line);
      if (heading) {
        const level = heading[1].length;
        if (current && level <= current.level) current = undefined;
        const title = heading[2].trim();
        const number = /^(\d+(?:\.\d+)*)\.?\s/.exec(title);
        if (number && /acceptance checklist/i.test(title)) {
          current = { file, section: number[1], title, level, items: [] };
          out.push(current);
        }
        continue;
      }
      if (!current) continue;
      const item = /^(\d+)\.\s+(.*)$/.exec(line);
      if (item) current.items.push({ n: Number(item[1]), text: item[2].trim() });
      else if (/^\s+\S/.test(line) && current.items.length > 0)
        current.items[current.items.length - 1].text += ` ${line.trim()}`;
    }
  }
  return out;
}

/** `hermes-core§14`, `hermes-plugins-a.md§2.7` or `§2.7` (must then be unique across files). */
export function findSection(checklists, target) {
  const m = /^([\w.-]*)§(\d+(?:\.\d+)*)$/.exec(target);
  if (!m) return undefined;
  const file = m[1] ? (m[1].endsWith('.md') ? m[1] : `${m[1]}.md`) : undefined;
  const found = checklists.filter((c) => c.section === m[2] && (!file || c.file === file));
  if (found.length > 1)
    throw new Error(`'${target}' is ambiguous: ${found.map((c) => `${c.file}§${c.section}`).join(', ')}`);
  if (found.length === 0) throw new Error(`no acceptance checklist at ${target}`);
  return found[0];
}

/** The checklist whose heading names a provider id ("— honcho", "(Hindsight)"). */
export function sectionForProvider(checklists, id) {
  const word = new RegExp(`(^|[^a-z0-9-])${id.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}([^a-z0-9-]|$)`, 'i');
  return checklists.find((c) => word.test(c.title.replace(/^(\d+(?:\.\d+)*)\.?\s/, '')));
}

// ── Tests ───────────────────────────────────────────────────────────────────────────────────────

// `it('…')`, `describe.skip("…")`, `it.each([…])(`…`)`: the first string argument is the title.
const TITLE = /\b(?:describe|it|test)(?:\.\w+)*(?:\([^()]*\))?\(\s*(['"`])((?:\\.|(?!\1)[^\\])*)\1/g;

/** Test and suite titles of every *.test.* file under a package (node_modules and dist skipped). */
export function testTitles(packageDir) {
  const out = [];
  const walk = (dir) => {
    let entries = [];
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (['node_modules', 'dist', '.turbo', 'coverage'].includes(e.name)) continue;
      const full = path.join(dir, e.name);
      if (e.isDirectory()) walk(full);
      else if (/\.test\.[cm]?[jt]sx?$/.test(e.name)) {
        const text = fs.readFileSync(full, 'utf8');
        for (const m of text.matchAll(TITLE)) out.push({ file: full, title: m[2] });
      }
    }
  };
  walk(packageDir);
  return out;
}

/** "3, 5, 9–11" → [3, 5, 9, 10, 11]. */
function expandItems(list) {
  const out = [];
  for (const part of list.split(/\s*,\s*/)) {
    const range = /^(\d+)\s*[–-]\s*(\d+)$/.exec(part);
    if (range) for (let n = Number(range[1]); n <= Number(range[2]); n++) out.push(n);
    else if (/^\d+$/.test(part)) out.push(Number(part));
  }
  return out;
}

const ITEMS = String.raw`\d+(?:\s*[–-]\s*\d+)?(?:\s*,\s*\d+(?:\s*[–-]\s*\d+)?)*`;

/**
 * The checklist items a title names for `section`: `§<section>.<items>` always; bare `checklist
 * <items>` only when the title's package owns the section (`own`).
 */
export function itemsInTitle(title, section, own) {
  const out = new Set();
  const escaped = section.replace(/\./g, '\\.');
  for (const m of title.matchAll(new RegExp(`§${escaped}\\.(${ITEMS})`, 'g')))
    for (const n of expandItems(m[1])) out.add(n);
  if (own)
    for (const m of title.matchAll(new RegExp(`\\bchecklist (${ITEMS})`, 'gi')))
      for (const n of expandItems(m[1])) out.add(n);
  return [...out];
}

// ── Waivers ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The bodies (as lines) of top-level ```checklist-waivers fences, read as CommonMark does: a fence
 * closes only on a run of the same character at least as long, so an example block shown inside a
 * longer fence (as decision 0204 does) is text, not a waiver.
 */
function waiverBlocks(text) {
  const blocks = [];
  let open = null;
  for (const line of text.split('\n')) {
    const fence = /^ {0,3}(`{3,}|~{3,})\s*([^`\s]*)/.exec(line);
    if (!open) {
      if (fence) open = { run: fence[1], body: fence[2] === 'checklist-waivers' ? [] : null };
      continue;
    }
    if (fence && fence[1][0] === open.run[0] && fence[1].length >= open.run.length && !fence[2]) {
      if (open.body) blocks.push(open.body);
      open = null;
    } else open.body?.push(line);
  }
  return blocks;
}

/**
 * Waivers from every ```checklist-waivers block in docs/decisions: one per line,
 * `<file>§<section>.<items>: <reason>`. A line that does not parse, or has no reason, is an error.
 */
export function readWaivers(decisionsDir) {
  const out = [];
  let files = [];
  try {
    files = fs.readdirSync(decisionsDir).filter((f) => f.endsWith('.md'));
  } catch {
    return out;
  }
  for (const name of files.sort()) {
    const text = fs.readFileSync(path.join(decisionsDir, name), 'utf8');
    for (const body of waiverBlocks(text)) {
      for (const raw of body) {
        const line = raw.trim();
        if (!line || line.startsWith('#')) continue;
        const m = new RegExp(`^([\\w.-]+?)(?:\\.md)?§(\\d+(?:\\.\\d+)*?)\\.(${ITEMS}):\\s*(.*)$`).exec(line);
        if (!m?.[4].trim())
          throw new Error(
            `${name}: bad waiver line '${line}' (expected "<file>§<section>.<items>: <reason>")`,
          );
        for (const n of expandItems(m[3]))
          out.push({
            file: `${m[1]}.md`,
            section: m[2],
            n,
            reason: m[4].trim(),
            source: `docs/decisions/${name}`,
          });
      }
    }
  }
  return out;
}

// ── Report ──────────────────────────────────────────────────────────────────────────────────────

export function coverage({ checklist, packageDirs, ownPackages, waivers }) {
  const tests = new Map();
  for (const dir of packageDirs) {
    const own = ownPackages.includes(dir);
    for (const t of testTitles(dir))
      for (const n of itemsInTitle(t.title, checklist.section, own)) {
        if (!tests.has(n)) tests.set(n, []);
        tests.get(n).push(t);
      }
  }
  const mine = waivers.filter((w) => w.file === checklist.file && w.section === checklist.section);
  const known = new Set(checklist.items.map((i) => i.n));
  const items = checklist.items.map((item) => {
    const tested = tests.get(item.n) ?? [];
    const waiver = mine.find((w) => w.n === item.n);
    const status = tested.length > 0 ? 'tested' : waiver ? 'waived' : 'missing';
    return { ...item, status, tests: tested, ...(waiver ? { waiver } : {}) };
  });
  return {
    file: checklist.file,
    section: checklist.section,
    title: checklist.title,
    items,
    /** Names of items the checklist does not have (typos, renumbered spec). */
    unknownReferences: [...tests.keys()].filter((n) => !known.has(n)).sort((a, b) => a - b),
    staleWaivers: mine.filter((w) => !known.has(w.n) || tests.has(w.n)),
    counts: {
      total: items.length,
      tested: items.filter((i) => i.status === 'tested').length,
      waived: items.filter((i) => i.status === 'waived').length,
      missing: items.filter((i) => i.status === 'missing').length,
    },
  };
}

function formatReport(report) {
  const mark = { tested: '✓', waived: '~', missing: '✗' };
  const lines = [`${report.file} §${report.section} ${report.title.replace(/^[\d.]+\.?\s*/, '')}`];
  for (const item of report.items) {
    const text = item.text.length > 70 ? `${item.text.slice(0, 69)}…` : item.text;
    let where = '';
    if (item.status === 'tested') where = `  ${item.tests[0].file}: ${JSON.stringify(item.tests[0].title)}`;
    if (item.status === 'waived') where = `  waived (${item.waiver.source}): ${item.waiver.reason}`;
    lines.push(`  ${mark[item.status]} ${String(item.n).padStart(3)}  ${text}${where}`);
  }
  const c = report.counts;
  lines.push(`  ${c.tested}/${c.total} tested, ${c.waived} waived, ${c.missing} missing`);
  if (report.unknownReferences.length > 0)
    lines.push(`  tests name items the checklist does not have: ${report.unknownReferences.join(', ')}`);
  for (const w of report.staleWaivers)
    lines.push(
      `  stale waiver ${w.file}§${w.section}.${w.n} (${w.source}): the item is tested or does not exist`,
    );
  return lines.join('\n');
}

function parseArgs(argv) {
  const args = { target: undefined, packages: [], json: false, strict: false, all: false, list: false };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--json') args.json = true;
    else if (a === '--strict') args.strict = true;
    else if (a === '--all') args.all = true;
    else if (a === '--list') args.list = true;
    else if (a === '--package') args.packages.push(argv[++i]);
    else if (a === '--spec-dir') args.specDir = argv[++i];
    else if (a === '--root') args.root = argv[++i];
    else if (a === '--help' || a === '-h') args.help = true;
    else if (args.target === undefined && !a.startsWith('--')) args.target = a;
    else throw new Error(`unexpected argument '${a}'`);
  }
  return args;
}

const USAGE = `usage: node scripts/checklist-coverage.mjs <provider-id | file§section> [--package <id> ...]
       node scripts/checklist-coverage.mjs --all | --list
options: --json  --strict  --spec-dir <dir>  --root <repo>`;

export function main(argv, out = (t) => process.stdout.write(t)) {
  const args = parseArgs(argv);
  if (args.help || (!args.target && !args.all && !args.list)) {
    out(`${USAGE}\n`);
    return args.help ? 0 : 2;
  }
  const root = path.resolve(args.root ?? path.join(here, '..'));
  const specDir = path.resolve(args.specDir ?? path.join(root, '..', 'shared', 'spec'));
  if (!fs.existsSync(specDir))
    throw new Error(
      `no spec at ${specDir}: this script needs ../shared (run it by hand or in CI), or pass --spec-dir`,
    );
  const checklists = readChecklists(specDir);
  if (args.list) {
    const rows = checklists.map((c) => ({
      id: `${c.file.replace(/\.md$/, '')}§${c.section}`,
      title: c.title,
      items: c.items.length,
    }));
    out(
      args.json
        ? `${JSON.stringify(rows, null, 2)}\n`
        : `${rows.map((r) => `${r.id.padEnd(24)} ${String(r.items).padStart(3)} items  ${r.title}`).join('\n')}\n`,
    );
    return 0;
  }
  const waivers = readWaivers(path.join(root, 'docs', 'decisions'));
  const packagesDir = path.join(root, 'packages');
  const jobs = [];
  if (args.all) {
    for (const id of fs.readdirSync(packagesDir).sort()) {
      const checklist = sectionForProvider(checklists, id);
      if (checklist) jobs.push({ checklist, packages: [id] });
    }
  } else {
    const bySection = args.target.includes('§');
    const checklist = bySection
      ? findSection(checklists, args.target)
      : sectionForProvider(checklists, args.target);
    if (!checklist)
      throw new Error(
        `no acceptance checklist names '${args.target}' (see --list; or pass <file>§<section> --package <id>)`,
      );
    const packages = args.packages.length > 0 ? args.packages : bySection ? [] : [args.target];
    if (packages.length === 0) throw new Error(`pass --package <id> to say whose tests cover ${args.target}`);
    jobs.push({ checklist, packages });
  }
  const reports = jobs.map(({ checklist, packages }) => {
    const dirs = packages.map((id) => path.join(packagesDir, id));
    for (const d of dirs) if (!fs.existsSync(d)) throw new Error(`no package at ${path.relative(root, d)}`);
    const report = coverage({ checklist, packageDirs: dirs, ownPackages: dirs, waivers });
    for (const item of report.items)
      item.tests = item.tests.map((t) => ({ ...t, file: path.relative(root, t.file) }));
    return { packages, ...report };
  });
  out(
    args.json
      ? `${JSON.stringify(reports.length === 1 && !args.all ? reports[0] : reports, null, 2)}\n`
      : `${reports.map((r) => `${formatReport(r)}\n  (tests of ${r.packages.map((p) => `packages/${p}`).join(', ')})`).join('\n\n')}\n`,
  );
  const missing = reports.some((r) => r.counts.missing > 0 || r.staleWaivers.length > 0);
  return args.strict && missing ? 1 : 0;
}

const invokedDirectly = process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
if (invokedDirectly) {
  try {
    process.exitCode = main(process.argv.slice(2));
  } catch (error) {
    process.stderr.write(`checklist-coverage: ${error.message}\n`);
    process.exitCode = 2;
  }
}
