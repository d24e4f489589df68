import { visibleLength } from './style';

/** 1536 → "1.5 KB". Sizes use powers of 1024, as `ls -h` does. */
export function formatBytes(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  const units = ['KB', 'MB', 'GB', 'TB'];
  let value = bytes / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value >= 10 ? value.toFixed(0) : value.toFixed(1)} ${units[unit]}`;
}

/** Thousands separators, as the reference's usage lines print them ("1,474"). */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** Left-aligned columns, padded to the widest cell; ANSI codes don't count towards the width. */
export function table(
  rows: readonly (readonly string[])[],
  options: { indent?: string; gap?: number } = {},
): string {
  const indent = options.indent ?? '';
  const gap = ' '.repeat(options.gap ?? 2);
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, visibleLength(cell));
    });
  }
  return rows
    .map((row) =>
      row
        .map((cell, i) =>
          i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - visibleLength(cell)),
        )
        .join(gap),
    )
    .map((line) => `${indent}${line}`.trimEnd())
    .join('\n');
}

/** Cut a one-line preview: newlines folded, ellipsis past `max` characters. */
export function preview(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

/** A local date-time for listings: "2026-05-01 14:03". */
export function formatTimestamp(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '-';
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
