import {
  type ChatResponder,
  type FakeChatReply,
  currentTurn,
  messageText as text,
} from '@hermes-memory/testkit/fake-openai';

/**
 * The stand-in for a model when neither OPENAI_API_KEY nor OPENAI_BASE_URL is set. The testkit's
 * OpenAI-compatible fake serves it over real HTTP, so `@ai-sdk/openai-compatible`, the AI SDK's
 * tool loop, the memory tools and the middleware all run for real. It decides from what it is
 * sent, like a model: which user message it answers, whether its tool calls already have
 * results, and — for the final answer — only what the system prompt, the recall block and the
 * session_search result actually contain. If memory failed, its answer says so.
 */
export const CONVERSATION = {
  session1: [
    "Hi, I'm Maya, a backend engineer in Lisbon. Keep answers short, please: I use pnpm, never npm.",
    'Note for later: the billing service runs on Postgres 16 and deploys to Fly.io every Tuesday at 14:00 UTC.',
  ],
  session2: ['Who am I, and when does the billing service deploy? Did we talk about it before?'],
} as const;

const startsLike = (user: string, line: string) => user.startsWith(line.slice(0, 24));

export const scriptedModel: ChatResponder = (request): FakeChatReply => {
  const { user, tools } = currentTurn(request.messages);
  const system = request.messages
    .filter((m) => m.role === 'system')
    .map((m) => text(m.content))
    .join('\n');

  if (startsLike(user, CONVERSATION.session1[0])) {
    if (tools.length > 0) return 'Nice to meet you, Maya. Short answers, pnpm only: noted.';
    return {
      toolCalls: [
        {
          name: 'memory',
          arguments: {
            action: 'add',
            target: 'user',
            content: 'Maya, backend engineer in Lisbon. Prefers short answers. Uses pnpm, never npm.',
          },
        },
      ],
    };
  }

  if (startsLike(user, CONVERSATION.session1[1])) {
    if (tools.length > 0)
      return 'Saved: billing runs on Postgres 16 and deploys to Fly.io on Tuesdays, 14:00 UTC.';
    return {
      toolCalls: [
        {
          name: 'fact_store',
          arguments: {
            action: 'add',
            content:
              'The billing service runs on Postgres 16 and deploys to Fly.io every Tuesday at 14:00 UTC.',
            category: 'project',
            tags: 'billing,deploy',
          },
        },
      ],
    };
  }

  if (startsLike(user, CONVERSATION.session2[0])) {
    if (tools.length === 0) {
      return { toolCalls: [{ name: 'session_search', arguments: { query: 'billing service' } }] };
    }
    // Answer only from what memory delivered.
    const who = /Maya[^\n§]*/.exec(system)?.[0]?.trim();
    const recall = /<memory-context>([\s\S]*?)<\/memory-context>/.exec(user)?.[1] ?? '';
    const fact = recall
      .split('\n')
      .find((line) => /deploy/i.test(line))
      ?.replace(/^\s*-\s*(\[[^\]]*\]\s*)*/, '')
      .trim();
    let past = 'I found no earlier conversation about it.';
    try {
      const found = JSON.parse(text(tools[tools.length - 1]!.content)) as {
        results?: Array<{ session_id?: string }>;
      };
      const id = found.results?.[0]?.session_id;
      if (id) past = `Yes: we talked about it in session ${id}.`;
    } catch {}
    return [
      who ? `You are ${who}` : 'I have no profile of you in memory.',
      fact ? `From memory: ${fact}` : 'I have nothing in memory about the billing deploy.',
      past,
    ].join(' ');
  }

  return "I'm the example's scripted model and only know its demo lines. Set OPENAI_API_KEY to use a real model.";
};
