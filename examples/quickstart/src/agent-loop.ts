import type { ChatMessage, LlmClient, MemoryManager } from '@hermes-memory/core';

/** What the loop reports as it runs, so a UI can show each memory step and its time. */
export interface AgentEvents {
  step?(label: string, ms: number, detail?: string): void;
  recall?(block: string, ms: number): void;
  toolCall?(name: string, args: string, result: string, ms: number): void;
  assistant?(text: string): void;
}

const now = () => performance.now();

/**
 * A minimal agent loop wired to Hermes memory — the part to copy into your own agent.
 *
 * Per turn: onTurnStart → prefetchAll (the fenced recall goes into the API copy of the user message
 * only, never into the stored transcript) → chat with the memory tools → route tool calls through
 * the manager until the model answers → syncAll + queuePrefetchAll (both return at once).
 */
export class AgentSession {
  /** The clean transcript (what gets recorded); the system prompt is kept apart. */
  readonly messages: ChatMessage[] = [];
  private turn = 0;

  constructor(
    private readonly manager: MemoryManager,
    private readonly llm: LlmClient,
    readonly sessionId: string,
    /** Built once per session: frozen memory snapshot + provider guidance (prefix-cache friendly). */
    readonly systemPrompt: string,
    private readonly events: AgentEvents = {},
    private readonly maxToolRounds = 8,
  ) {}

  async send(userText: string): Promise<string> {
    const { manager, events, sessionId } = this;
    this.turn++;
    let t = now();
    await manager.onTurnStart(this.turn, userText);
    events.step?.('onTurnStart', now() - t);

    t = now();
    const recall = await manager.prefetchAll(userText, { sessionId });
    events.recall?.(recall, now() - t);

    const start = this.messages.length;
    this.messages.push({ role: 'user', content: userText });
    // The model sees the recall appended to this turn's user message; the transcript keeps it clean.
    const apiCopy = (): ChatMessage[] => [
      { role: 'system', content: this.systemPrompt },
      ...this.messages.map((m, i) =>
        i === start && recall ? { ...m, content: `${userText}\n\n${recall}` } : m,
      ),
    ];

    let answer = '';
    for (let round = 0; round <= this.maxToolRounds; round++) {
      const response = await this.llm.chat({ messages: apiCopy(), tools: manager.getAllToolSchemas() });
      if (response.toolCalls.length === 0 || round === this.maxToolRounds) {
        answer = response.content;
        this.messages.push({ role: 'assistant', content: answer });
        break;
      }
      this.messages.push({
        role: 'assistant',
        content: response.content || null,
        tool_calls: response.toolCalls,
      });
      for (const call of response.toolCalls) {
        const t0 = now();
        // Every tool answers with a JSON string, even for malformed arguments: never throws.
        const result = await manager.handleToolCall(call.function.name, call.function.arguments, {
          sessionId,
        });
        events.toolCall?.(call.function.name, call.function.arguments, result, now() - t0);
        this.messages.push({ role: 'tool', tool_call_id: call.id, content: result });
      }
    }
    events.assistant?.(answer);

    t = now();
    manager.syncAll(userText, answer, { sessionId, messages: this.messages.slice(start) });
    manager.queuePrefetchAll(userText, { sessionId });
    events.step?.('syncAll + queuePrefetchAll', now() - t, 'returned at once; runs in the background');
    return answer;
  }

  /** A real session boundary: end-of-session hooks, then drain background work and close stores. */
  async end(): Promise<void> {
    let t = now();
    await this.manager.onSessionEnd(this.messages);
    this.events.step?.('onSessionEnd', now() - t);
    t = now();
    const drain = await this.manager.shutdownAll();
    this.events.step?.('shutdownAll', now() - t, `background queue ${drain.status}`);
  }
}
