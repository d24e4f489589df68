import fs from 'node:fs';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import {
  type BlockDiagnostic,
  type ReadmeBlock,
  extractBlocks,
  readmeFiles,
  typecheckBlocks,
} from './readme-blocks';
import { repoRoot } from './workspace';

const readmes = readmeFiles();
const blocks = readmes.flatMap((readme) =>
  extractBlocks(fs.readFileSync(path.join(repoRoot, readme), 'utf8'), readme),
);

// Compiled in the same program as the READMEs, so the check is seen to fail where it should.
const broken: ReadmeBlock = {
  readme: '(broken example)',
  line: 10,
  context: 'declare const sessionId: string;',
  code: [
    "import { MemoryManager, noSuchExport } from '@hermes-memory/core';",
    'const memory = new MemoryManager();',
    'await memory.initializeAll(sessionId, { platform: 42 });',
  ].join('\n'),
  skip: null,
};

let diagnostics: BlockDiagnostic[] = [];
beforeAll(() => {
  diagnostics = typecheckBlocks([...blocks, broken]);
});

describe('README TypeScript blocks compile against the built packages', () => {
  it('finds the blocks', () => {
    expect(readmes).toContain('README.md');
    expect(readmes).toContain('docs/authoring-a-provider.md');
    expect(blocks.filter((b) => b.skip === null).length).toBeGreaterThan(10);
  });

  it.each(readmes.filter((r) => blocks.some((b) => b.readme === r && b.skip === null)))('%s', (readme) => {
    expect(
      diagnostics.filter((d) => d.readme === readme).map((d) => `${d.readme}:${d.line}: ${d.message}`),
    ).toEqual([]);
  });

  it.each(blocks.filter((b) => b.skip !== null).map((b) => [`${b.readme}:${b.line}`, b.skip] as const))(
    '%s is not typechecked, on purpose: %s',
    (_at, reason) => {
      expect(reason).not.toBe('');
    },
  );

  it('reports a broken block at its README line', () => {
    const lines = diagnostics.filter((d) => d.readme === broken.readme).map((d) => d.line);
    expect(lines).toEqual([10, 12]); // the missing export; the number where a platform name belongs
  });

  it('has nothing outside the blocks', () => {
    expect(diagnostics.filter((d) => d.line === 0)).toEqual([]);
  });
});

describe('extracting blocks', () => {
  it('reads ts fences with their markers, indented fences, and skips other fences', () => {
    const md = [
      '# x', //                                    1
      '```sh', //                                  2
      '```ts', //                                  3: inside a sh block, not a fence of ours
      '```', //                                    4
      '<!-- typecheck context:', //                5
      'declare const a: string;', //               6
      '-->', //                                    7
      '```ts', //                                  8
      'a.length;', //                              9
      '```', //                                    10
      '1. step', //                                11
      '   ```typescript', //                       12
      '   const b = 1;', //                        13
      '   ```', //                                 14
      '<!-- typecheck: skip (needs ./mine) -->', // 15
      '', //                                       16
      '```ts', //                                  17
      "import x from './mine';", //                18
      '```', //                                    19
    ].join('\n');
    expect(extractBlocks(md, 'R.md')).toEqual([
      { readme: 'R.md', line: 9, code: 'a.length;', context: 'declare const a: string;', skip: null },
      { readme: 'R.md', line: 13, code: 'const b = 1;', context: '', skip: null },
      { readme: 'R.md', line: 18, code: "import x from './mine';", context: '', skip: 'needs ./mine' },
    ]);
  });

  it('refuses a skip without a reason and // comments in a context', () => {
    expect(() => extractBlocks('<!-- typecheck: skip () -->\n```ts\nx\n```', 'R.md')).toThrow(
      /without a reason/,
    );
    expect(() => extractBlocks('<!-- typecheck context: // a -->\n```ts\nx\n```', 'R.md')).toThrow(
      /comments/,
    );
  });
});
