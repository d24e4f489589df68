/**
 * Text helpers shared by the `hermes-memory` CLI and providers' CLI modules, so every command's
 * tables and sizes look the same.
 */

/** Visible width of a string that may hold ANSI colour codes. */
export function visibleLength(text: string): number {
  return text.replace(/\u001b\[[0-9;]*m/g, '').length;
}

/** Left-aligned columns, padded to the widest cell; ANSI codes don't count towards the width. */
export function formatTable(
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

/** A one-line preview: whitespace folded, ellipsis past `max` characters. */
export function preview(text: string, max = 80): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

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
