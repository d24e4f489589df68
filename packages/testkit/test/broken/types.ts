import type { ProviderHarness } from '../../src';

/** A provider that breaks exactly one rule, the check that must catch it, and the message it must give. */
export interface BrokenCase {
  check: string;
  message: RegExp;
  // biome-ignore lint/suspicious/noExplicitAny: harnesses for different provider subclasses
  harness: ProviderHarness<any>;
}
