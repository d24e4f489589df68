import type { ProviderHarness } from '../../src';

/** A provider that breaks exactly one rule, the check that must catch it, and the message it must give. */
export interface BrokenCase {
  check: string;
  message: RegExp;
  /** The harness, or a function that builds it (remote cases start their fake backend first). */
  // biome-ignore lint/suspicious/noExplicitAny: harnesses for different provider subclasses
  harness: ProviderHarness<any> | (() => Promise<ProviderHarness<any>>);
}
