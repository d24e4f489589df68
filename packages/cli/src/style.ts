import type { CliStyle } from '@hermes-memory/core';

/**
 * Terminal styling. Colour only when the stream is a TTY and NO_COLOR is unset (https://no-color.org),
 * or when FORCE_COLOR asks for it; otherwise every helper returns the text unchanged.
 */
export interface Style extends CliStyle {
  blue(text: string): string;
  magenta(text: string): string;
}

export function colorEnabled(isTTY: boolean, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR !== undefined && env.NO_COLOR !== '') return false;
  if (env.FORCE_COLOR !== undefined && env.FORCE_COLOR !== '' && env.FORCE_COLOR !== '0') return true;
  if (env.TERM === 'dumb') return false;
  return isTTY;
}

export function createStyle(enabled: boolean): Style {
  const wrap = (open: number, close: number) => (text: string) =>
    enabled ? `\u001b[${open}m${text}\u001b[${close}m` : text;
  return {
    enabled,
    bold: wrap(1, 22),
    dim: wrap(2, 22),
    red: wrap(31, 39),
    green: wrap(32, 39),
    yellow: wrap(33, 39),
    blue: wrap(34, 39),
    magenta: wrap(35, 39),
    cyan: wrap(36, 39),
    gray: wrap(90, 39),
  };
}
