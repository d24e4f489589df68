import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

/** Pings its backend from isAvailable() (fire and forget): network I/O where none is allowed. */
class FetchInIsAvailable extends GoodProvider {
  override isAvailable(): boolean {
    fetch('http://127.0.0.1:9/health').catch(() => undefined);
    return true;
  }
}

export const fetchInIsAvailable: BrokenCase = {
  check: 'availability.no-io',
  message: /isAvailable\(\) did I\/O: fetch\(http:\/\/127\.0\.0\.1:9\/health\)/,
  harness: harnessFor(() => new FetchInIsAvailable()),
};
