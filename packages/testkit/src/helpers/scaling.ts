/**
 * Time bounds that hold on a loaded machine, for tests that keep regexes and parsers linear on
 * adversarial input (issue #12). Never a wall-clock threshold: each measure compares timings taken
 * side by side in the same test.
 *
 * - `timeExponent`: the exponent of time against size over n, 2n, 4n, 8n (linear ≈ 1, quadratic ≈ 2);
 * - `timeRatio`: time(b) / time(a), e.g. an adversarial shape against ordinary text of the same size.
 *
 * Timings are CPU time of this process (a loaded machine preempts long runs more than short ones,
 * which skews wall-clock ratios), the minimum of interleaved runs; each measure gets three attempts
 * and keeps the best, so a linear function gets under its bound even when garbage collection hits
 * one attempt, while a quadratic one never does.
 */

/** CPU milliseconds one call takes. */
function cpu(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

/** Minimum time of `runs` calls of each function, interleaved so both see the same conditions. */
function timePair(a: () => unknown, b: () => unknown, runs = 7): [number, number] {
  let ta = Number.POSITIVE_INFINITY;
  let tb = Number.POSITIVE_INFINITY;
  for (let i = 0; i < runs; i++) {
    ta = Math.min(ta, cpu(a));
    tb = Math.min(tb, cpu(b));
  }
  return [Math.max(ta, 0.01), Math.max(tb, 0.01)];
}

/** The smallest of up to three measured ratios time(b) / time(a); stops early once under `bound`. */
export function timeRatio(a: () => unknown, b: () => unknown, bound: number): number {
  a();
  b(); // warm up (JIT, regex compilation)
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3 && best >= bound; attempt++) {
    const [ta, tb] = timePair(a, b);
    best = Math.min(best, tb / ta);
  }
  return best;
}

/** Least-squares slope of log(time) against log(size). */
function slope(sizes: readonly number[], times: readonly number[]): number {
  const xs = sizes.map(Math.log);
  const ys = times.map((t) => Math.log(Math.max(t, 0.005)));
  const mx = xs.reduce((a, b) => a + b, 0) / xs.length;
  const my = ys.reduce((a, b) => a + b, 0) / ys.length;
  let num = 0;
  let den = 0;
  for (let i = 0; i < xs.length; i++) {
    num += (xs[i]! - mx) * (ys[i]! - my);
    den += (xs[i]! - mx) ** 2;
  }
  return num / den;
}

/**
 * The exponent of time against size over n, 2n, 4n, 8n (best of three attempts; stops early once
 * under `bound`).
 */
export function timeExponent(
  fn: (input: string) => unknown,
  shape: (size: number) => string,
  n: number,
  bound = 1.4,
): number {
  const sizes = [n, 2 * n, 4 * n, 8 * n];
  const inputs = sizes.map((size) => shape(size));
  for (const input of inputs) fn(input);
  let best = Number.POSITIVE_INFINITY;
  for (let attempt = 0; attempt < 3 && best >= bound; attempt++) {
    const times = inputs.map(() => Number.POSITIVE_INFINITY);
    for (let run = 0; run < 5; run++) {
      inputs.forEach((input, i) => {
        times[i] = Math.min(
          times[i]!,
          cpu(() => fn(input)),
        );
      });
    }
    best = Math.min(best, slope(sizes, times));
  }
  return best;
}
