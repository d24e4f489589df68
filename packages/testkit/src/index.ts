/**
 * @hermes-memory/testkit — what every memory provider's tests use. Entries:
 *
 * - `.` (this one): the conformance checks as plain functions, the fake servers and helpers; it
 *   loads vitest only inside a vitest run (for `describeMemoryProvider`, kept here for existing
 *   test files);
 * - `./vitest`: `describeMemoryProvider`, the suite registered as vitest tests (preferred);
 * - `./http`: the loopback fake-server base backend fakes build on;
 * - `./fake-openai`: the scripted OpenAI-compatible server alone (the lightest import).
 *
 * Helpers include `tempHermesHome`, `collectLogs`, `requirePython` / `runPythonJson` for
 * Python-compatibility tests, `runUnderWriteLimit` for full-disk and file-size-limit tests, and a
 * harness for providers' CLI modules (`runProviderCliCommand`, `providerCliTestContext`,
 * `exportProviderRecords`).
 */

// Conformance suite, runner-independent; `describeMemoryProvider` is also here for the test files
// written before `./vitest` existed (it loads vitest only inside a vitest run).
export { describeMemoryProvider } from './conformance/describe';
export {
  CONFORMANCE_CHECK_IDS,
  conformanceChecks,
  formatConformanceSummary,
  runConformanceCheck,
  runConformanceSuite,
  validateConformanceOptions,
} from './conformance/suite';
export {
  ConformanceFailure,
  DEFAULT_CAPABILITIES,
  mirroredActions,
  resolveCapabilities,
  snapshotFiles,
} from './conformance/runtime';
export {
  TOOL_NAME_PATTERN,
  isReservedForProvider,
  toolSchemaProblems,
} from './conformance/tool-schema';
export {
  type IoTouch,
  type IoTrap,
  type IoTrapMode,
  IoTrapError,
  formatTouches,
  primeIoTrap,
  startIoTrap,
} from './conformance/io-trap';
export type {
  CapabilityClaims,
  CheckResult,
  CheckStatus,
  ConformanceCheck,
  ConformanceFault,
  ConformanceGroup,
  ConformanceOptions,
  DurabilityWorker,
  HarnessContext,
  HarnessInitContext,
  MirrorCapability,
  PrefetchCapability,
  ProviderCapabilities,
  ProviderHarness,
  SyncCapability,
  WritesOn,
} from './conformance/types';
export { type DurabilityWorkerOptions, runDurabilityWorker } from './conformance/durability-worker';

// The fake-server base and the scripted OpenAI-compatible server (also `./http`, `./fake-openai`).
export * from './http/index';
export * from './fake-openai/index';

// Helpers: process-backed providers and kill -9 tests, temp homes, logs, Python compatibility.
export {
  createFakeExecutable,
  type FakeExecReply,
  type FakeExecResponder,
  type FakeExecutable,
  type FakeInvocation,
} from './helpers/fake-executable';
export {
  type ChildExit,
  type ChildWorker,
  type ChildWorkerOptions,
  startChildWorker,
} from './helpers/child-worker';
export { type TempHermesHome, tempHermesHome } from './helpers/temp-home';
export { timeExponent, timeRatio } from './helpers/scaling';
export { type CollectedLogs, collectLogs } from './helpers/logs';
export { requirePython, runPythonJson, spawnPython, stdoutLines } from './helpers/python';
export {
  type ProviderCliRun,
  type ProviderCliTestContext,
  type ProviderCliTestOptions,
  exportProviderRecords,
  providerCliTestContext,
  runProviderCliCommand,
} from './helpers/provider-cli';
export {
  type AskedQuestion,
  type ScriptedAnswer,
  type ScriptedPrompter,
  scriptedPrompter,
} from './helpers/scripted-prompter';
export {
  runUnderWriteLimit,
  tmpfsMountPrefix,
  type WriteLimitKind,
  type WriteLimitOptions,
  type WriteLimitRun,
} from './helpers/write-limits';
