import path from 'node:path';
import { describe, expect, it } from 'vitest';
// testkit depends on core, so core's tests take the helper from its source instead of the package.
import { runUnderWriteLimit, type WriteLimitKind } from '../../../testkit/src/helpers/write-limits';

const script = path.resolve(__dirname, '../../test/fixtures/limited-writes.mjs');

// §12 (red team): a full disk or a file-size limit must fail the write, keep the old file, and say
// why. These drive the built package from a child process that is really out of space.
describe.each<WriteLimitKind>(['full-disk', 'file-size'])('writers under %s', (kind) => {
  it('every core writer fails with a clear error and leaves the previous file intact', {
    timeout: 60_000,
  }, async () => {
    // The tmpfs is filled up to 4 KiB before the write; the file-size limit is 16 KiB. Either way the
    // 40 KB write gets part of its data in and then fails.
    const bytes = kind === 'full-disk' ? 64 * 1024 : 16 * 1024;
    const run = await runUnderWriteLimit(kind, { script, bytes, slackBytes: 4096 });
    if (run.fellBackFrom) console.warn(`no tmpfs here: ${kind} ran under a ${run.kind} limit instead`);
    const act = run.phases.act as { results: Record<string, Record<string, unknown>> } | undefined;
    const check = run.phases.check;
    expect(act, run.stderr).toBeDefined();
    expect(check, run.stderr).toBeDefined();
    const expected = run.kind === 'full-disk' ? /ENOSPC|SHORT_WRITE/ : /EFBIG|SHORT_WRITE/;
    for (const writer of ['data', 'config', 'env'] as const) {
      const result = act!.results[writer]!;
      expect(result.ok, writer).toBe(false);
      expect(result.name, writer).toBe('FileWriteError');
      expect(String(result.code), writer).toMatch(expected);
      expect(String(result.message), writer).toMatch(/unchanged/);
    }
    // A spill that cannot be written still answers with a preview, says why, and leaves no partial file.
    const spill = act!.results.spill!.value as { file?: string; error?: string; preview: string };
    expect(spill.file).toBeUndefined();
    expect(spill.error).toMatch(expected);
    expect(spill.preview).toContain('could not be saved');
    expect(check).toMatchObject({ dataIntact: true, leftovers: [], spillFiles: [] });
    expect(check!.config).toBe('memory:\n  provider: holographic\n');
    expect(check!.env).toBe('OPENAI_API_KEY=sk-old\n');
  });
});
