import { createMemoryHooks, memoryMiddleware, memoryTools, toChatMessages } from '@hermes-memory/ai-sdk';
import type { MemoryManager } from '@hermes-memory/core';
import {
  generateText,
  type LanguageModel,
  type ModelMessage,
  type StepResult,
  stepCountIs,
  type ToolSet,
  wrapLanguageModel,
} from 'ai';

type BaseModel = Parameters<typeof wrapLanguageModel>[0]['model'];

export interface AgentEvents {
  /** The fenced recall the middleware appended to this turn's user message ("" when none). */
  recall?(block: string): void;
  /** One finished step of the tool loop (tool calls and their JSON results). */
  step?(step: StepResult<ToolSet>): void;
}

/**
 * A chat agent on the AI SDK with Hermes memory — the part to copy. The whole integration is:
 * `memoryMiddleware` (memory system prompt, per-turn recall, echo scrubbing) wrapped around the
 * model, `memoryTools` in the tool set, and `createMemoryHooks` as `onFinish` to record the turn.
 */
export class MemoryAgent {
  /** The clean conversation (no recall in it): what the caller owns and sends each turn. */
  readonly history: ModelMessage[] = [];
  private readonly model: LanguageModel;
  private readonly tools: ToolSet;

  constructor(
    private readonly manager: MemoryManager,
    model: BaseModel,
    private readonly instructions: string,
    private readonly events: AgentEvents = {},
  ) {
    this.model = wrapLanguageModel({
      model,
      middleware: memoryMiddleware(manager, { onRecall: ({ block }) => events.recall?.(block) }),
    });
    // Your own tools go next to the memory tools: { ...memoryTools(manager), weather }.
    this.tools = memoryTools(manager);
  }

  async send(userText: string): Promise<string> {
    const result = await generateText({
      model: this.model,
      system: this.instructions,
      messages: [...this.history, { role: 'user', content: userText }],
      tools: this.tools,
      stopWhen: stepCountIs(6),
      onStepFinish: (step) => this.events.step?.(step),
      // syncAll + queuePrefetchAll once the turn is complete (both return at once).
      ...createMemoryHooks(this.manager, { userText }),
    });
    this.history.push({ role: 'user', content: userText }, ...result.response.messages);
    return result.text;
  }

  /** End of the conversation: session-end hooks, then drain background writes and close stores. */
  async end(): Promise<void> {
    await this.manager.onSessionEnd(toChatMessages(this.history));
    await this.manager.shutdownAll();
  }
}
