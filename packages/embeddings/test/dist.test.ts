import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot, referenceHelloWorld } from './paths';

const dist = path.join(packageRoot, 'dist');
const reference = JSON.parse(readFileSync(referenceHelloWorld, 'utf8')) as { embedding: number[] };

function cosine(a: number[], b: number[]): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  a.forEach((x, i) => {
    dot += x * b[i]!;
    na += x * x;
    nb += b[i]! * b[i]!;
  });
  return dot / Math.sqrt(na * nb);
}

const script = (load: string) => `
${load}
m.createDefaultEmbedder().embed(['hello world']).then(([v]) => {
  process.stdout.write(JSON.stringify({ dir: m.bundledModelDir(), v: Array.from(v) }));
});`;

describe('built package (run `pnpm build` first; turbo does it before tests)', () => {
  it('has been built', () => {
    expect(existsSync(path.join(dist, 'index.js')) && existsSync(path.join(dist, 'index.cjs'))).toBe(true);
  });

  it.each([
    [
      'ESM',
      [
        '--input-type=module',
        '-e',
        script(`import * as m from ${JSON.stringify(path.join(dist, 'index.js'))};`),
      ],
    ],
    [
      'CJS',
      [
        '--input-type=commonjs',
        '-e',
        script(`const m = require(${JSON.stringify(path.join(dist, 'index.cjs'))});`),
      ],
    ],
  ])('finds the bundled model from the %s build', (_kind, args) => {
    const out = JSON.parse(execFileSync(process.execPath, args, { cwd: packageRoot, encoding: 'utf8' })) as {
      dir: string;
      v: number[];
    };
    expect(out.dir).toBe(path.join(packageRoot, 'assets', 'potion-base-2M-int8'));
    expect(cosine(out.v, reference.embedding)).toBeGreaterThanOrEqual(0.9999);
  });

  it('publishes the assets folder with the weights, tokenizer and NOTICE', () => {
    const manifest = JSON.parse(readFileSync(path.join(packageRoot, 'package.json'), 'utf8')) as {
      files: string[];
      dependencies?: Record<string, string>;
    };
    expect(manifest.files).toContain('assets');
    expect(manifest.dependencies ?? {}).toEqual({});
    for (const f of [
      'potion-base-2M.bin',
      'tokenizer.json',
      'tokenizer_config.json',
      'special_tokens_map.json',
      'config.json',
      'NOTICE',
    ]) {
      expect(existsSync(path.join(packageRoot, 'assets', 'potion-base-2M-int8', f))).toBe(true);
    }
  });
});
