/** Small Markdown builders; every number in the report goes through `num` so formatting is uniform. */

export function table(
  headers: readonly string[],
  rows: ReadonlyArray<ReadonlyArray<string | number>>,
): string {
  const cell = (v: string | number) => String(typeof v === 'number' ? num(v) : v).replace(/\|/g, '\\|');
  return [
    `| ${headers.map(cell).join(' | ')} |`,
    `|${headers.map(() => '---').join('|')}|`,
    ...rows.map((r) => `| ${r.map(cell).join(' | ')} |`),
  ].join('\n');
}

export function num(v: number, digits = 3): string {
  if (Number.isNaN(v)) return '–';
  if (!Number.isFinite(v)) return v > 0 ? '∞' : '-∞';
  if (Number.isInteger(v)) return v.toLocaleString('en-US');
  const a = Math.abs(v);
  if (a >= 1000) return Math.round(v).toLocaleString('en-US');
  if (a >= 100) return v.toFixed(1);
  if (a >= 1) return v.toFixed(2);
  return v.toFixed(digits);
}

export function ms(v: number): string {
  if (!Number.isFinite(v)) return '–';
  if (v < 0.01) return `${(v * 1000).toFixed(1)} µs`;
  if (v < 1) return `${v.toFixed(3)} ms`;
  if (v < 100) return `${v.toFixed(2)} ms`;
  return `${Math.round(v).toLocaleString('en-US')} ms`;
}

export function bytes(v: number | null): string {
  if (v === null || !Number.isFinite(v)) return '–';
  if (v < 1024) return `${v} B`;
  if (v < 1024 ** 2) return `${(v / 1024).toFixed(1)} KiB`;
  if (v < 1024 ** 3) return `${(v / 1024 ** 2).toFixed(1)} MiB`;
  return `${(v / 1024 ** 3).toFixed(2)} GiB`;
}

/** ✅ / ❌ against a budget (lower is better). */
export function verdict(value: number, budget: number): string {
  if (!Number.isFinite(value)) return '–';
  return value <= budget ? '✅' : '❌';
}
