/**
 * The one question setup asks on a terminal: pick an item from a numbered list. A seam, so tests
 * (and other front ends) answer it; the terminal version reads a number from stdin.
 */
import { createInterface } from 'node:readline/promises';

export interface Choice {
  label: string;
  hint?: string;
}

/** The index chosen, or null when cancelled (end of input, `q`). */
export type Select = (
  title: string,
  items: readonly Choice[],
  defaultIndex: number,
) => Promise<number | null>;

/** A numbered list on stderr, the answer from stdin; blank takes the default, a bad answer asks again. */
export const terminalSelect: Select = async (title, items, defaultIndex) => {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    process.stderr.write(`${title}\n`);
    for (const [i, item] of items.entries())
      process.stderr.write(`  ${i + 1}. ${item.label}${item.hint ? ` — ${item.hint}` : ''}\n`);
    for (;;) {
      const answer = (await rl.question(`Choose 1-${items.length} [${defaultIndex + 1}]: `)).trim();
      if (answer === '') return defaultIndex;
      if (answer.toLowerCase() === 'q') return null;
      const n = Number(answer);
      if (Number.isInteger(n) && n >= 1 && n <= items.length) return n - 1;
    }
  } catch {
    return null; // stdin closed: cancelled
  } finally {
    rl.close();
  }
};
