import { type ChatResponder, type FakeChatReply, currentTurn, messageText } from '@hermes-memory/testkit';

/**
 * The deterministic stand-in for a model (no OPENAI_API_KEY): served by the testkit's
 * OpenAI-compatible fake, so tool calls travel over real HTTP. Its answers use only what memory
 * returned — the recall block and tool results — so a memory failure shows in the answer.
 */
export const CONVERSATION = {
  session1: [
    'I am Maya. I like short answers with the code first, please remember that.',
    'We decided today: the public API is versioned in the URL path (/v2/...), never in request headers.',
    'Lesson learned: run the database migration before the new pods take traffic, or the health check fails.',
  ],
  session2: [
    'Should the new invoices endpoint take its API version from a request header?',
    'What is a good name for a cat?',
  ],
} as const;

function recalled(user: string): string[] {
  const block = /<memory-context>([\s\S]*?)<\/memory-context>/.exec(user)?.[1] ?? '';
  return block.split('\n').filter((l) => l.startsWith('- ['));
}

const starts = (user: string, line: string) => user.startsWith(line.slice(0, 24));

export const scriptedModel: ChatResponder = (request): FakeChatReply => {
  const { user, tools } = currentTurn(request.messages);
  const [pref, decision, lesson] = CONVERSATION.session1;
  if (starts(user, pref)) {
    if (tools.length > 0) return 'Noted, Maya: code first, short answers.';
    return {
      toolCalls: [
        {
          name: 'continuity_add',
          arguments: {
            kind: 'user_preference',
            title: 'Answer style',
            summary: 'Maya wants short answers with the code first.',
            entities: ['Maya'],
            importance: 0.9,
            trust_level: 'high',
          },
        },
      ],
    };
  }
  if (starts(user, decision)) {
    if (tools.length > 0) return 'Recorded: API versions live in the URL path.';
    return {
      toolCalls: [
        {
          name: 'continuity_add',
          arguments: {
            kind: 'decision',
            title: 'API versioning',
            summary: 'The public API is versioned in the URL path (/v2/...), never in request headers.',
            tags: ['api', 'versioning'],
            importance: 0.8,
          },
        },
      ],
    };
  }
  if (starts(user, lesson)) return 'Good lesson; I will keep it.';
  if (starts(user, CONVERSATION.session2[0])) {
    const lines = recalled(user);
    if (tools.length === 0 && lines.length > 0) {
      const id = /· (ctx_[0-9a-f]+)\]/.exec(lines[0]!)?.[1];
      return { toolCalls: [{ name: 'continuity_hydrate', arguments: { record_id: id } }] };
    }
    const source =
      tools.length > 0
        ? (JSON.parse(messageText(tools[0]!.content)) as { sources?: Array<{ type: string }> })
        : {};
    return lines.length > 0
      ? `No. From memory (${lines.length} record, source: ${source.sources?.[0]?.type ?? 'unknown'}): ${lines[0]!.replace(/^- \[[^\]]*\]\s*/, '')}`
      : 'I have no record about API versioning.';
  }
  if (starts(user, CONVERSATION.session2[1]))
    return recalled(user).length === 0
      ? 'Nothing in memory is about cats, so: Miso.'
      : 'Memory recalled something unrelated!';
  return "I'm the example's scripted model; set OPENAI_API_KEY to talk to a real model.";
};
