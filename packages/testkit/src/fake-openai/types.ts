import type { FakeFault, RecordedRequest } from '../http/types';

export type { RecordedRequest };

/** A tool call the scripted model makes. `arguments` may be an object (serialised for you) or a raw string. */
export interface FakeToolCall {
  name: string;
  arguments: string | Readonly<Record<string, unknown>>;
  id?: string;
}

/**
 * One scripted chat completion. A plain string is shorthand for `{ content }`.
 */
export type FakeChatReply =
  | string
  | {
      content?: string | null;
      /** Serialised with JSON.stringify as the content (for `response_format: json_object` callers). */
      json?: unknown;
      toolCalls?: readonly FakeToolCall[];
      /** Default: `tool_calls` when there are tool calls, else `stop`. */
      finishReason?: string;
      model?: string;
      usage?: { promptTokens: number; completionTokens: number };
      /** Streaming only: characters per content delta (default 8). */
      chunkSize?: number;
      /** Answer with this HTTP status and an OpenAI-shaped error instead (e.g. 400 for a bad request). */
      status?: number;
      error?: string;
    };

/** The parsed body of a chat request, as the fake hands it to a responder. */
export interface FakeChatRequest {
  model?: string;
  messages: Array<{
    role: string;
    content: unknown;
    tool_calls?: unknown;
    tool_call_id?: string;
    name?: string;
  }>;
  tools?: Array<{ type: string; function: { name: string; description?: string; parameters?: unknown } }>;
  tool_choice?: unknown;
  response_format?: { type: string; [key: string]: unknown };
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  temperature?: number;
  max_tokens?: number;
  [key: string]: unknown;
}

/** Computes a reply from the request (the "model" of a scripted test). */
export type ChatResponder = (
  request: FakeChatRequest,
  recorded: RecordedRequest,
) => FakeChatReply | Promise<FakeChatReply>;

/** Turns texts into vectors for `/v1/embeddings`. */
export type FakeEmbedder = (texts: readonly string[], model: string) => number[][] | Promise<number[][]>;

/** A fault for the next matching request(s); see the fake-server base's `FakeFault`. */
export type FaultSpec = FakeFault;

export interface FakeOpenAIOptions {
  /** When set, every request must carry `Authorization: Bearer <apiKey>`; others get 401. */
  apiKey?: string;
  /** Initial chat script (consumed first to last), or a responder used for every chat request. */
  script?: readonly (FakeChatReply | ChatResponder)[] | ChatResponder;
  /** Used when the script queue is empty. Default: a 500 error saying the script is exhausted. */
  fallback?: ChatResponder;
  /** Embedding function. Default: {@link hashEmbedding} with `dimensions`. */
  embedder?: FakeEmbedder;
  /** Dimensions of the default embedder (default 64); a request's `dimensions` field overrides it. */
  dimensions?: number;
  /** Model ids listed by `GET /v1/models` (default `['fake-chat', 'fake-embedding']`). */
  models?: readonly string[];
  /** The model name echoed in responses when the request names none (default `fake-chat`). */
  model?: string;
}

export interface FakeOpenAI {
  /** Base URL including `/v1`, e.g. `http://127.0.0.1:41234/v1` — pass it as `baseURL`. */
  readonly url: string;
  readonly port: number;
  /** Every request received so far, oldest first. */
  readonly requests: RecordedRequest[];
  /** Requests whose path ends with `suffix` (e.g. `/chat/completions`). */
  requestsTo(suffix: string): RecordedRequest[];
  /** Append replies (or per-request responders) to the chat script. Returns the server for chaining. */
  script(...replies: readonly (FakeChatReply | ChatResponder)[]): FakeOpenAI;
  /** Set or clear the responder used once the script is exhausted. */
  respondWith(responder: ChatResponder | null): FakeOpenAI;
  /** Scripted replies not consumed yet. */
  readonly pendingReplies: number;
  /** Inject a fault (or a bare status code) for the next matching request(s). */
  fail(fault: FaultSpec | number): FakeOpenAI;
  /** Faults not triggered yet (summed counts). */
  readonly pendingFaults: number;
  /** Drop the script, faults and recorded requests. */
  reset(): void;
  /** Stop listening and drop every open connection (hanging requests included). */
  close(): Promise<void>;
}
