import {
  type ChatResponder,
  type FakeChatReply,
  currentTurn,
  messageText as text,
} from '@hermes-memory/testkit/fake-openai';

/**
 * The deterministic stand-in for a model when no OPENAI_API_KEY is set. It is served by the
 * testkit's OpenAI-compatible fake server, so the agent talks to it over real HTTP with real tool
 * calls. It decides from what it is sent, like a model would: which user message it is answering,
 * whether its tool calls already have results, and — for the final answer — only what the recall
 * block and the session_search result actually contain. If memory failed, its answer says so.
 */
export const CONVERSATION = {
  session1: [
    "Hi! I'm Maya, a backend engineer in Lisbon. Please keep answers short — and I always use pnpm, never npm.",
    'Note for later: our billing service runs on Postgres 16 and deploys to Fly.io every Tuesday at 14:00 UTC.',
  ],
  session2: ['When does the billing service deploy? And what did we talk about last time?'],
} as const;

function recalledLines(user: string, needle: RegExp): string[] {
  const block = /<memory-context>([\s\S]*?)<\/memory-context>/.exec(user)?.[1] ?? '';
  return block.split('\n').filter((l) => needle.test(l));
}

export const scriptedModel: ChatResponder = (request): FakeChatReply => {
  const { user, tools } = currentTurn(request.messages);

  if (user.startsWith(CONVERSATION.session1[0].slice(0, 20))) {
    if (tools.length === 0) {
      return {
        toolCalls: [
          {
            name: 'memory',
            arguments: {
              action: 'add',
              target: 'user',
              content:
                'Maya — backend engineer in Lisbon. Prefers short answers. Always uses pnpm, never npm.',
            },
          },
        ],
      };
    }
    return 'Nice to meet you, Maya. Noted: short answers, and pnpm only.';
  }

  if (user.startsWith(CONVERSATION.session1[1].slice(0, 20))) {
    if (tools.length === 0) {
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
    return 'Saved: billing → Postgres 16, Fly.io deploys on Tuesdays at 14:00 UTC.';
  }

  if (user.startsWith(CONVERSATION.session2[0].slice(0, 20))) {
    if (tools.length === 0) {
      return { toolCalls: [{ name: 'session_search', arguments: { query: 'billing service' } }] };
    }
    // Compose the answer only from what memory actually returned.
    const fact = recalledLines(user, /deploy/i)[0]
      ?.replace(/^\s*-\s*(\[[^\]]*\]\s*)*/, '')
      .trim();
    let past = 'I found no earlier session about it.';
    try {
      const found = JSON.parse(text(tools[tools.length - 1]!.content)) as {
        results?: Array<{ session_id?: string; when?: string }>;
      };
      const hit = found.results?.[0];
      if (hit?.session_id) {
        past = `Last time (session ${hit.session_id}, ${hit.when ?? 'earlier'}) you introduced yourself and told me about the billing service's stack and deploy schedule.`;
      }
    } catch {}
    return fact
      ? `From memory: ${fact} ${past}`
      : `I have nothing in memory about the billing deploy. ${past}`;
  }

  return "I'm the quickstart's scripted model; I only know this demo's lines. Set OPENAI_API_KEY to talk to a real model.";
};
