export { formatBytes, formatTable as table, preview } from '@hermes-memory/core';

/** Thousands separators, as the reference's usage lines print them ("1,474"). */
export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** A local date-time for listings: "2026-05-01 14:03". */
export function formatTimestamp(seconds: number | null | undefined): string {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return '-';
  const d = new Date(seconds * 1000);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())} ${pad(d.getHours())}:${pad(d.getMinutes())}`;
}
