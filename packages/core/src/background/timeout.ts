import { TimeoutError } from '../errors/memory-error';

/**
 * Settle with `promise`, or reject with a TimeoutError after `ms`, or with the abort reason when
 * `signal` fires — whichever comes first. The underlying work is not cancelled (promises cannot
 * be); pass the same signal to it when it supports one.
 */
export function withTimeout<T>(
  promise: PromiseLike<T>,
  ms: number,
  signal?: AbortSignal,
  label = 'operation',
): Promise<T> {
  if (signal?.aborted) return Promise.reject(abortReason(signal));
  return new Promise<T>((resolve, reject) => {
    let timer: NodeJS.Timeout | undefined;
    const cleanup = () => {
      if (timer) clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
    };
    const onAbort = () => {
      cleanup();
      reject(abortReason(signal!));
    };
    if (Number.isFinite(ms)) {
      timer = setTimeout(
        () => {
          cleanup();
          reject(new TimeoutError(`${label} timed out after ${ms} ms`, ms));
        },
        Math.max(0, ms),
      );
      timer.unref?.();
    }
    signal?.addEventListener('abort', onAbort, { once: true });
    Promise.resolve(promise).then(
      (value) => {
        cleanup();
        resolve(value);
      },
      (error: unknown) => {
        cleanup();
        reject(error);
      },
    );
  });
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
}
