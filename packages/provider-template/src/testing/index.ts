/**
 * @hermes-memory/provider-template/testing — the fake backend this package's tests run against,
 * published so that code built on the provider can be tested offline too. Needs
 * `@hermes-memory/testkit` (an optional peer dependency: install it as a dev dependency).
 */
export {
  FAKE_TEMPLATE_KEY,
  type FakeTemplateMemory,
  type FakeTemplateOptions,
  type FakeTemplateState,
  startFakeTemplate,
} from './fake-template';
