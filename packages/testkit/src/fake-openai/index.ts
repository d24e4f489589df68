/**
 * @hermes-memory/testkit/fake-openai — a scripted OpenAI-compatible server (chat completions,
 * embeddings, models) for LLM and embedding calls in tests and offline demos. Loads neither
 * vitest nor the conformance suite.
 */
export { encodeEmbeddingBase64, hashEmbedding } from './embedding';
export { currentTurn, type FakeChatMessage, messageText } from './script-helpers';
export { startFakeOpenAI } from './server';
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
} from './types';
