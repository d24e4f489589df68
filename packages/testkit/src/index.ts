/**
 * @hermes-memory/testkit — what every memory provider's tests use:
 *
 * 1. the conformance suite (`describeMemoryProvider`, and the same checks as plain functions);
 * 2. a scripted OpenAI-compatible fake server (`startFakeOpenAI`) for LLM and embedding calls;
 * 3. small helpers (`tempHermesHome`, `collectLogs`, `requirePython` / `runPythonJson` for
 *    Python-compatibility tests).
 */

// Conformance suite: vitest registration, then the runner-independent API.
export { describeMemoryProvider } from './conformance/describe';
export {
  CONFORMANCE_CHECK_IDS,
  conformanceChecks,
  formatConformanceSummary,
  runConformanceCheck,
  runConformanceSuite,
  validateConformanceOptions,
} from './conformance/suite';
export { ConformanceFailure, DEFAULT_CAPABILITIES, snapshotFiles } from './conformance/runtime';
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
  CheckResult,
  CheckStatus,
  ConformanceCheck,
  ConformanceGroup,
  ConformanceOptions,
  HarnessContext,
  HarnessInitContext,
  ProviderCapabilities,
  ProviderHarness,
  WritesOn,
} from './conformance/types';

// Scripted OpenAI-compatible server.
export { startFakeOpenAI } from './fake-openai/server';
export { encodeEmbeddingBase64, hashEmbedding } from './fake-openai/embedding';
export { currentTurn, type FakeChatMessage, messageText } from './fake-openai/script-helpers';
export type {
  ChatResponder,
  FakeChatReply,
  FakeChatRequest,
  FakeEmbedder,
  FakeOpenAI,
  FakeOpenAIOptions,
  FakeToolCall,
  FaultSpec,
  RecordedRequest,
} from './fake-openai/types';

// Helpers.
export { type TempHermesHome, tempHermesHome } from './helpers/temp-home';
export { type CollectedLogs, collectLogs } from './helpers/logs';
export { requirePython, runPythonJson, spawnPython } from './helpers/python';
