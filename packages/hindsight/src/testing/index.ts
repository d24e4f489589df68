/**
 * @hermes-memory/hindsight/testing — the fake Hindsight API this package's tests run against,
 * published so that code built on the provider can be tested offline too. Needs
 * `@hermes-memory/testkit` (an optional peer dependency: install it as a dev dependency).
 */
export {
  FAKE_HINDSIGHT_KEY,
  FAKE_HINDSIGHT_TEMPLATES,
  FAKE_TEMPLATES_PATH,
  type FakeHindsightBank,
  type FakeHindsightBankTemplate,
  type FakeHindsightDocument,
  type FakeHindsightMemory,
  type FakeHindsightOperation,
  type FakeHindsightOptions,
  type FakeHindsightState,
  type FakeHindsightTemplate,
  startFakeHindsight,
} from './fake-hindsight';
