import { parseToolArgs, toolResult } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

type Bag = Record<string, unknown>;

/** Merges arguments into its defaults with a naive deep merge: `__proto__` reaches Object.prototype. */
function naiveMerge(target: Bag, source: Bag): Bag {
  for (const key of Object.keys(source)) {
    const value = source[key];
    if (typeof value === 'object' && value !== null) {
      if (typeof target[key] !== 'object' || target[key] === null) target[key] = {};
      naiveMerge(target[key] as Bag, value as Bag);
    } else target[key] = value;
  }
  return target;
}

class PrototypePollution extends GoodProvider {
  override async handleToolCall(name: string, args: unknown): Promise<string> {
    try {
      const options = naiveMerge({ limit: 5 }, parseToolArgs(args) as Bag);
      return toolResult({ success: true, tool: name, options: Object.keys(options).length });
    } catch (error) {
      return JSON.stringify({ error: String(error) });
    }
  }
}

export const prototypePollution: BrokenCase = {
  check: 'tools.hostile-args',
  message: /Object\.prototype (was polluted|gained properties)/,
  harness: harnessFor(() => new PrototypePollution()),
};

/** Undo what the broken provider did to Object.prototype so later tests run in a clean realm. */
export function cleanPrototype(): void {
  for (const key of Object.getOwnPropertyNames(Object.prototype)) {
    if (!ORIGINAL_KEYS.has(key)) delete (Object.prototype as Bag)[key];
  }
}
const ORIGINAL_KEYS = new Set(Object.getOwnPropertyNames(Object.prototype));
