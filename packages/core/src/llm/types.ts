import type { ToolSchema } from '../provider/types';

/** One message of an OpenAI-style chat transcript, including tool calls and tool results. */
export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string | null | ChatContentPart[];
  name?: string;
  tool_calls?: ChatToolCall[];
  tool_call_id?: string;
}

export type ChatContentPart =
  | { type: 'text'; text: string }
  | { type: 'image_url'; image_url: { url: string } }
  | { type: string; [key: string]: unknown };

export interface ChatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

export interface ChatRequest {
  messages: ChatMessage[];
  /** Tools offered to the model, in the bare `{name, description, parameters}` form. */
  tools?: ToolSchema[];
  toolChoice?: 'auto' | 'none' | 'required' | { name: string };
  temperature?: number;
  maxTokens?: number;
  /** Ask for a JSON object answer (`response_format: {type: "json_object"}`). */
  json?: boolean;
  model?: string;
  signal?: AbortSignal;
  timeoutMs?: number;
}

export interface ChatResponse {
  content: string;
  toolCalls: ChatToolCall[];
  finishReason: string | null;
  model: string;
  usage?: { promptTokens: number; completionTokens: number };
}

/**
 * The model-calling service injected into providers (session summaries, fact extraction, flush,
 * background review). The real implementation speaks the OpenAI-compatible chat API.
 */
export interface LlmClient {
  readonly model: string;
  chat(request: ChatRequest): Promise<ChatResponse>;
}
