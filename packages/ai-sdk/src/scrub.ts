import { StreamingContextScrubber } from '@hermes-memory/core';
import type { ContentPart, StreamPart } from './spec-types';

/**
 * Removes `<memory-context>` spans the model echoes from its streamed text and reasoning. Each
 * text/reasoning block (by id) gets its own `StreamingContextScrubber`, so a fence split across
 * deltas is still caught; what a scrubber holds back is emitted just before its block ends.
 */
export function createContextScrubStream(): TransformStream<StreamPart, StreamPart> {
  const scrubbers = new Map<string, { scrubber: StreamingContextScrubber; id: string; kind: Kind }>();
  const key = (kind: Kind, id: string) => `${kind}\u0000${id}`;
  const scrubberFor = (kind: Kind, id: string) => {
    let entry = scrubbers.get(key(kind, id));
    if (!entry) {
      entry = { scrubber: new StreamingContextScrubber(), id, kind };
      scrubbers.set(key(kind, id), entry);
    }
    return entry.scrubber;
  };
  const flushOne = (
    controller: TransformStreamDefaultController<StreamPart>,
    kind: Kind,
    id: string,
  ): void => {
    const entry = scrubbers.get(key(kind, id));
    if (!entry) return;
    scrubbers.delete(key(kind, id));
    const tail = entry.scrubber.flush();
    if (tail) controller.enqueue({ type: `${kind}-delta`, id, delta: tail });
  };
  const flushAll = (controller: TransformStreamDefaultController<StreamPart>): void => {
    for (const entry of [...scrubbers.values()]) flushOne(controller, entry.kind, entry.id);
  };

  return new TransformStream<StreamPart, StreamPart>({
    transform(part, controller) {
      switch (part.type) {
        case 'text-delta':
        case 'reasoning-delta': {
          const kind: Kind = part.type === 'text-delta' ? 'text' : 'reasoning';
          const visible = scrubberFor(kind, part.id).feed(part.delta);
          if (visible) controller.enqueue({ ...part, delta: visible });
          return;
        }
        case 'text-end':
          flushOne(controller, 'text', part.id);
          break;
        case 'reasoning-end':
          flushOne(controller, 'reasoning', part.id);
          break;
        case 'finish':
          flushAll(controller);
          break;
      }
      controller.enqueue(part);
    },
    flush(controller) {
      flushAll(controller);
    },
  });
}

type Kind = 'text' | 'reasoning';

/** The same scrubbing for a non-streamed result: each text/reasoning part, whole. */
export function scrubContent(content: readonly ContentPart[]): ContentPart[] {
  return content.map((part) => {
    if (part.type !== 'text' && part.type !== 'reasoning') return part;
    const text = scrubText(part.text);
    return text === part.text ? part : { ...part, text };
  });
}

/** Remove echoed `<memory-context>` blocks from a finished text. */
export function scrubText(text: string): string {
  if (!text) return text;
  const scrubber = new StreamingContextScrubber();
  return scrubber.feed(text) + scrubber.flush();
}
