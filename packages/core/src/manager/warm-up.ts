import { stripRecallBlocks } from '../fencing';
import { redactSecretsDeep } from '../logging/redact';
import { scannerWarmUpSteps } from '../scanner/warm';

/**
 * What a synced turn passes through before a provider commits it — the recall-block strip, the
 * egress redaction, the write scanner — compiled ahead of the first turn. Cold, that costs ~60 ms
 * on the provider's queue (`packages/retaindb/scripts/crash-window.ts`), during which a kill -9
 * loses the turn. Shared by every manager of the process: the work is V8's, done once.
 */
let steps: Array<() => void> | undefined;
let next = 0;

function warmUpSteps(): Array<() => void> {
  steps ??= allSteps();
  return steps;
}

function allSteps(): Array<() => void> {
  const sample = { user: 'export API_KEY=warm-up-not-a-secret', assistant: 'noted <b>ok</b>' };
  return [
    () => {
      stripRecallBlocks(sample.assistant);
      redactSecretsDeep(sample);
    },
    ...scannerWarmUpSteps(),
    () => redactSecretsDeep(sample),
  ];
}

/** How far the warm-up got in this process. */
export function textPathsWarmUp(): { done: number; total: number } {
  return { done: next, total: warmUpSteps().length };
}

/**
 * Run the remaining warm-up steps, one per macrotask (each a few ms), so they only ever use the
 * gaps between the host's work. Resolves true once every step ran (in this chain or a concurrent
 * one), false when `signal` aborted first. The immediates are not unref'd: an unref'd immediate
 * lets the loop sleep until the next timer or I/O, which spread the ~60 ms over seconds.
 */
export function warmTextPaths(signal?: AbortSignal): Promise<boolean> {
  const list = warmUpSteps();
  return new Promise((resolve) => {
    const step = () => {
      if (next >= list.length) return resolve(true);
      if (signal?.aborted) return resolve(false);
      const run = list[next++];
      try {
        run?.();
      } catch {
        // A warm-up failure only means the first real call pays the cost.
      }
      setImmediate(step);
    };
    setImmediate(step);
  });
}
