import type { MemoryTarget, MemoryWriteAction, MemoryWriteMetadata } from '@hermes-memory/core';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** The reference's old bridge: mirrors add and replace, forgets remove. */
class MirrorIgnoresRemove extends GoodProvider {
  override onMemoryWrite(
    action: MemoryWriteAction,
    target: MemoryTarget,
    content: string,
    metadata?: MemoryWriteMetadata,
  ): void {
    if (action !== 'remove') super.onMemoryWrite(action, target, content, metadata);
  }
}

export const mirrorIgnoresRemove: BrokenCase = {
  check: 'mirror.add-replace-remove',
  message: /after onMemoryWrite\('remove'\), the removed entry \('zq[0-9a-f]+'\) is still found/,
  harness: harnessFor(() => new MirrorIgnoresRemove()),
};
