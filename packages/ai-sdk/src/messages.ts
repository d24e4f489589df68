import type { ChatMessage, ChatToolCall } from '@hermes-memory/core';
import type { ModelMessage } from 'ai';
import { scrubText } from './scrub';

type ToolResultOutput = Extract<
  Extract<ModelMessage, { role: 'tool' }>['content'][number],
  { type: 'tool-result' }
>['output'];

/**
 * Convert AI SDK model messages (what `result.response.messages` holds: assistant and tool
 * messages) to the OpenAI-style `ChatMessage` transcript the memory providers record. Reasoning
 * and files are left out; echoed `<memory-context>` spans are removed from assistant text.
 */
export function toChatMessages(messages: readonly ModelMessage[]): ChatMessage[] {
  const out: ChatMessage[] = [];
  for (const message of messages) {
    switch (message.role) {
      case 'system':
        break;
      case 'user':
        out.push({ role: 'user', content: textOf(message.content) });
        break;
      case 'assistant': {
        if (typeof message.content === 'string') {
          out.push({ role: 'assistant', content: scrubText(message.content) });
          break;
        }
        const text: string[] = [];
        const toolCalls: ChatToolCall[] = [];
        for (const part of message.content) {
          if (part.type === 'text') text.push(part.text);
          else if (part.type === 'tool-call')
            toolCalls.push({
              id: part.toolCallId,
              type: 'function',
              function: { name: part.toolName, arguments: jsonText(part.input) },
            });
        }
        const content = scrubText(text.join(''));
        out.push({
          role: 'assistant',
          content: content || (toolCalls.length > 0 ? null : ''),
          ...(toolCalls.length > 0 ? { tool_calls: toolCalls } : {}),
        });
        break;
      }
      case 'tool':
        for (const part of message.content) {
          if (part.type !== 'tool-result') continue;
          out.push({
            role: 'tool',
            tool_call_id: part.toolCallId,
            name: part.toolName,
            content: outputText(part.output),
          });
        }
        break;
    }
  }
  return out;
}

function textOf(content: Extract<ModelMessage, { role: 'user' }>['content']): string {
  if (typeof content === 'string') return content;
  return content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('\n');
}

function jsonText(value: unknown): string {
  if (typeof value === 'string') return value;
  try {
    return JSON.stringify(value ?? {});
  } catch {
    return '{}';
  }
}

/** Tool results as the model saw them: JSON text for JSON outputs, the text for text outputs. */
function outputText(output: ToolResultOutput): string {
  switch (output.type) {
    case 'text':
    case 'error-text':
      return output.value;
    case 'json':
    case 'error-json':
      return jsonText(output.value);
    case 'execution-denied':
      return JSON.stringify({
        success: false,
        error: `Tool execution denied${output.reason ? `: ${output.reason}` : ''}`,
      });
    case 'content':
      return output.value.flatMap((item) => (item.type === 'text' ? [item.text] : [])).join('\n');
  }
}
