import * as path from 'node:path';
import { runUnderWriteLimit, type WriteLimitKind } from '@hermes-memory/testkit';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../../test/helpers/temp';

const script = path.join(PACKAGE_ROOT, 'test', 'fixtures', 'limited-memory-write.mjs');

// §12 (red team, critical): on a nearly full disk `memory add` answered success and MEMORY.md lost
// two of six entries (cut at 4,096 bytes); under a file-size limit `replace` answered success and
// cut an entry from 300 to 86 chars. A write that cannot complete must fail and keep the file.
describe.each<WriteLimitKind>(['full-disk', 'file-size'])('MEMORY.md under %s', (kind) => {
  it('add and replace fail with a clear error; all six entries survive untouched', {
    timeout: 60_000,
  }, async () => {
    // The tmpfs keeps one 4 KiB page free after filling (part of the temp file: the flock sidecar
    // is empty and takes none); the file-size limit is 4 KiB. The file holds ~1.9 KB; each write
    // needs ~5-6 KB.
    const bytes = kind === 'full-disk' ? 64 * 1024 : 4 * 1024;
    const run = await runUnderWriteLimit(kind, { script, bytes, slackBytes: 4096 });
    if (run.fellBackFrom) console.warn(`no tmpfs here: ${kind} ran under a ${run.kind} limit instead`);
    const { act, check } = run.phases;
    expect(act, run.stderr).toBeDefined();
    const why = run.kind === 'full-disk' ? /ENOSPC|SHORT_WRITE/ : /EFBIG|SHORT_WRITE/;
    for (const result of [act!.add, act!.replace] as Array<{ success: boolean; error?: string }>) {
      expect(result.success).toBe(false);
      expect(result.error).toMatch(why);
      expect(result.error).toMatch(
        /^Memory write failed: Could not write .*MEMORY\.md: .*the file on disk is unchanged\.$/,
      );
    }
    // No temp file left behind; only the persistent (empty) flock sidecar besides MEMORY.md.
    expect(check).toMatchObject({ intact: true, entries: 6, others: ['MEMORY.md.lock'] });
  });
});
