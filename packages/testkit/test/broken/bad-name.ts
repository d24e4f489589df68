import { GoodProvider, harnessFor } from '../fixtures/good-provider';
import type { BrokenCase } from './types';

class BadName extends GoodProvider {
  override readonly name = 'My Memory';
}

export const badName: BrokenCase = {
  check: 'lifecycle.name',
  message: /name must match .*got "My Memory"/,
  harness: harnessFor(() => new BadName()),
};
