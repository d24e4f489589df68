import type { ToolCallOptions } from '@hermes-memory/core';
import { GoodRemoteProvider, notesBackend, remoteHarnessFor } from '../fixtures/good-remote-provider';
import type { BrokenCase } from './types';

/** Lets the HTTP client's APICallError escape from handleToolCall when the backend fails. */
class ToolThrowsOnBackendError extends GoodRemoteProvider {
  override async handleToolCall(name: string, args: unknown, options?: ToolCallOptions): Promise<string> {
    const query = String(
      (args as { query?: unknown; content?: unknown })?.query ??
        (args as { content?: unknown })?.content ??
        '',
    );
    if (name === 'goodremote_search')
      return JSON.stringify({ result: await this.search(query, options?.signal) });
    await this.add(query, options?.signal);
    return JSON.stringify({ success: true });
  }
}

export const toolThrowsOnBackendError: BrokenCase = {
  check: 'faults.tools-answer-json',
  message:
    /handleToolCall\('goodremote_search', .*\) threw instead of returning a JSON error: APICallError: Notes: GET \/v1\/notes failed with HTTP 500/,
  harness: async () => remoteHarnessFor(await notesBackend(), (url) => new ToolThrowsOnBackendError(url)),
};
