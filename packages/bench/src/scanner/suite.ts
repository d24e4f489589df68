import fs from 'node:fs';
import { loadPackage } from '../packages';
import { SCANNER_CORPUS_REL, sharedPath } from '../paths';
import { table } from '../report/markdown';
import type { SuiteContext, SuiteResult } from '../report/suite';
import { barChart } from '../report/svg';
import { nowMs, round } from '../stats';

interface CorpusRecord {
  text: string;
  label: 'attack' | 'benign';
  kind: string;
}

export interface ScannerKindResult {
  kind: string;
  label: 'attack' | 'benign';
  n: number;
  blocked: number;
  /** attack: block rate; benign: false-positive rate. */
  rate: number;
  byBlockKind: Record<string, number>;
}

export interface ScannerSuiteData {
  corpus: string;
  present: boolean;
  kinds: ScannerKindResult[];
  attackBlockRate: number | null;
  benignFalsePositiveRate: number | null;
  usPerText: number | null;
  topFalsePositivePatterns: Array<{ patternId: string; count: number }>;
}

type ScanFn = (content: string) => { ok: true } | { ok: false; kind: string; patternId: string };

export async function runScannerSuite(ctx: SuiteContext): Promise<SuiteResult> {
  const started = Date.now();
  const file = sharedPath(...SCANNER_CORPUS_REL);
  const data: ScannerSuiteData = {
    corpus: 'shared/bench/scanner/dev.jsonl',
    present: fs.existsSync(file),
    kinds: [],
    attackBlockRate: null,
    benignFalsePositiveRate: null,
    usPerText: null,
    topFalsePositivePatterns: [],
  };
  if (data.present) {
    const core = await loadPackage('@hermes-memory/core');
    if (typeof core['scanWrite'] !== 'function')
      throw new Error('@hermes-memory/core does not export scanWrite');
    const scan = core['scanWrite'] as ScanFn;
    const records = fs
      .readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as CorpusRecord);
    const byKind = new Map<string, ScannerKindResult>();
    const fp = new Map<string, number>();
    const t0 = nowMs();
    for (const r of records) {
      const res = scan(r.text);
      const k = byKind.get(r.kind) ?? {
        kind: r.kind,
        label: r.label,
        n: 0,
        blocked: 0,
        rate: 0,
        byBlockKind: {},
      };
      k.n++;
      if (!res.ok) {
        k.blocked++;
        k.byBlockKind[res.kind] = (k.byBlockKind[res.kind] ?? 0) + 1;
        if (r.label === 'benign') fp.set(res.patternId, (fp.get(res.patternId) ?? 0) + 1);
      }
      byKind.set(r.kind, k);
    }
    data.usPerText = round(((nowMs() - t0) * 1000) / Math.max(1, records.length), 2);
    for (const k of byKind.values()) k.rate = round(k.blocked / k.n, 4);
    data.kinds = [...byKind.values()].sort((a, b) =>
      a.label === b.label ? a.kind.localeCompare(b.kind) : a.label === 'attack' ? -1 : 1,
    );
    const attacks = data.kinds.filter((k) => k.label === 'attack');
    const benign = data.kinds.filter((k) => k.label === 'benign');
    const sum = (l: ScannerKindResult[], f: (k: ScannerKindResult) => number) =>
      l.reduce((a, k) => a + f(k), 0);
    data.attackBlockRate = round(
      sum(attacks, (k) => k.blocked) /
        Math.max(
          1,
          sum(attacks, (k) => k.n),
        ),
      4,
    );
    data.benignFalsePositiveRate = round(
      sum(benign, (k) => k.blocked) /
        Math.max(
          1,
          sum(benign, (k) => k.n),
        ),
      4,
    );
    data.topFalsePositivePatterns = [...fp.entries()]
      .sort((a, b) => b[1] - a[1])
      .slice(0, 10)
      .map(([patternId, count]) => ({ patternId, count }));
    ctx.log(`scanner: block rate ${data.attackBlockRate}, false positives ${data.benignFalsePositiveRate}`);
  }
  const lines = ['## Write-scanner quality', ''];
  const svgs: Record<string, string> = {};
  if (!data.present) {
    lines.push('Corpus not present (`shared/bench/scanner/dev.jsonl`); nothing measured.');
  } else {
    lines.push(
      `\`scanWrite\` from \`@hermes-memory/core\` (default scope, as used for memory writes) over \`${data.corpus}\` ` +
        '(third-party attacks and benign memory-like texts; development split — the held-out split is kept elsewhere). ' +
        `Overall: **block rate ${(100 * data.attackBlockRate!).toFixed(1)}%** on attacks, ` +
        `**false-positive rate ${(100 * data.benignFalsePositiveRate!).toFixed(2)}%** on benign texts; ${data.usPerText} µs per text.`,
      '',
      table(
        ['kind', 'label', 'n', 'blocked', 'rate', 'blocked as'],
        data.kinds.map((k) => [
          k.kind,
          k.label,
          k.n,
          k.blocked,
          `${(100 * k.rate).toFixed(1)}%${k.label === 'benign' ? ' (false positives)' : ''}`,
          Object.entries(k.byBlockKind)
            .map(([b, n]) => `${b} ${n}`)
            .join(', ') || '–',
        ]),
      ),
      '',
      '![block rate per kind](scanner-kinds.svg)',
      '',
    );
    if (data.topFalsePositivePatterns.length > 0) {
      lines.push(
        'Patterns behind false positives: ' +
          data.topFalsePositivePatterns.map((p) => `\`${p.patternId}\` ${p.count}`).join(', ') +
          '.',
        '',
      );
    }
    svgs['scanner-kinds.svg'] = barChart(
      data.kinds.map((k) => k.kind),
      [{ name: 'blocked fraction (benign = false positives)', values: data.kinds.map((k) => k.rate) }],
      { title: 'Write scanner: blocked fraction per kind', yMin: 0, yMax: 1 },
    );
  }
  return {
    suite: 'scanner',
    title: 'Write-scanner quality',
    provenance: ctx.provenance,
    seconds: (Date.now() - started) / 1000,
    data,
    markdown: lines.join('\n'),
    headline: data.present
      ? [
          `Write scanner: block rate ${(100 * data.attackBlockRate!).toFixed(1)}% on ${data.kinds
            .filter((k) => k.label === 'attack')
            .reduce(
              (a, k) => a + k.n,
              0,
            )} attacks, false positives ${(100 * data.benignFalsePositiveRate!).toFixed(2)}% on benign texts.`,
        ]
      : [],
    svgs,
  };
}
