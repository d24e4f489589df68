import fs from 'node:fs';
import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Checks a credentials file on every isAvailable() call: file I/O where none is allowed. */
class IoInIsAvailable extends GoodProvider {
  override isAvailable(): boolean {
    return fs.existsSync('/etc/hermes-credentials') || true;
  }
}

export const ioInIsAvailable: BrokenCase = {
  check: 'availability.no-io',
  message: /isAvailable\(\) did I\/O: fs\.existsSync\(\/etc\/hermes-credentials\)/,
  harness: harnessFor(() => new IoInIsAvailable()),
};
