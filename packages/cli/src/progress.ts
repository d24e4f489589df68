/**
 * A progress bar on stderr, drawn only when stderr is a TTY, so piped and scripted runs (and
 * `--json` output on stdout) stay clean. Redraws at most every 50 ms.
 */
export interface Progress {
  tick(delta?: number): void;
  done(): void;
}

const NOOP: Progress = { tick: () => {}, done: () => {} };

export function createProgress(options: {
  label: string;
  total: number;
  enabled: boolean;
  write: (text: string) => void;
  width?: number;
}): Progress {
  if (!options.enabled || options.total <= 0) return NOOP;
  const width = options.width ?? 28;
  let current = 0;
  let lastDraw = 0;
  const draw = (force: boolean) => {
    const now = Date.now();
    if (!force && now - lastDraw < 50) return;
    lastDraw = now;
    const ratio = Math.min(1, current / options.total);
    const filled = Math.round(ratio * width);
    const bar = `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
    options.write(`\r${options.label} ${bar} ${current}/${options.total} (${Math.floor(ratio * 100)}%)`);
  };
  draw(true);
  return {
    tick(delta = 1) {
      current += delta;
      draw(current >= options.total);
    },
    done() {
      current = Math.max(current, options.total);
      draw(true);
      options.write('\n');
    },
  };
}
