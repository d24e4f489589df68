/**
 * Development-only: measures the write scanner on the third-party corpus in ../shared/bench/scanner.
 * Not part of the published package (package.json `files` ships dist only).
 *
 *   pnpm tsx scripts/scanner-eval.ts [--half=a|b|all] [--show=kind] [--fp] [--rules]
 *
 * Halves are a fixed hash split of dev.jsonl (sha256(text) parity), for a tune/hold-out check.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { scanAll, scanWrite } from '../src/scanner';

interface Item {
  text: string;
  label: 'attack' | 'benign';
  kind: string;
  source: string;
  category?: string;
}

const here = path.dirname(fileURLToPath(import.meta.url));
const corpus = path.resolve(here, '../../../../shared/bench/scanner/dev.jsonl');
const args = new Map(
  process.argv.slice(2).map((a) => {
    const [k, v] = a.replace(/^--/, '').split('=');
    return [k ?? '', v ?? 'true'] as const;
  }),
);
const half = args.get('half') ?? 'all';

const items: Item[] = readFileSync(corpus, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Item)
  .filter((it) => {
    if (half === 'all') return true;
    const h = createHash('sha256').update(`half:${it.text}`).digest()[0]! & 1;
    return half === 'a' ? h === 0 : h === 1;
  });

const byKind = new Map<string, { n: number; hit: number }>();
const bySource = new Map<string, { n: number; hit: number }>();
const ruleHits = new Map<string, { tp: number; fp: number }>();
const show = args.get('show');
for (const it of items) {
  const r = scanWrite(it.text);
  const blocked = !r.ok;
  const k = byKind.get(it.kind) ?? { n: 0, hit: 0 };
  k.n++;
  if (blocked) k.hit++;
  byKind.set(it.kind, k);
  const src = `${it.label}:${it.source.split('@')[0]}`;
  const s = bySource.get(src) ?? { n: 0, hit: 0 };
  s.n++;
  if (blocked) s.hit++;
  bySource.set(src, s);
  if (args.has('rules')) {
    for (const id of scanAll(it.text)) {
      const e = ruleHits.get(id.replace(/_U\+.*/, '')) ?? { tp: 0, fp: 0 };
      if (it.label === 'attack') e.tp++;
      else e.fp++;
      ruleHits.set(id.replace(/_U\+.*/, ''), e);
    }
  }
  if (args.has('fp') && it.label === 'benign' && !r.ok) {
    console.log(`FP [${r.patternId}] ${JSON.stringify(it.text.slice(0, 300))}`);
  }
  if (show && it.kind === show && r.ok) {
    console.log(
      `MISS [${it.source.split('@')[0]} ${it.category ?? ''}] ${JSON.stringify(it.text.slice(0, 400))}`,
    );
  }
}

const pct = (a: number, b: number) => `${((100 * a) / Math.max(1, b)).toFixed(1)}%`;
console.log(`half=${half} items=${items.length}`);
let atk = 0;
let atkHit = 0;
for (const [kind, { n, hit }] of [...byKind].sort()) {
  console.log(`${kind.padEnd(14)} ${String(hit).padStart(5)}/${String(n).padEnd(5)} ${pct(hit, n)}`);
  if (kind !== 'benign') {
    atk += n;
    atkHit += hit;
  }
}
console.log(
  `${'attacks'.padEnd(14)} ${String(atkHit).padStart(5)}/${String(atk).padEnd(5)} ${pct(atkHit, atk)}`,
);
if (args.has('sources')) {
  for (const [src, { n, hit }] of [...bySource].sort())
    console.log(`  ${src.padEnd(50)} ${hit}/${n} ${pct(hit, n)}`);
}
if (args.has('rules')) {
  for (const [id, { tp, fp }] of [...ruleHits].sort()) console.log(`  ${id.padEnd(28)} tp=${tp} fp=${fp}`);
}
