import { PROMPT_CANCELLED, type PromptCancelled, type ProviderPrompter } from '@hermes-memory/core';

/** One question a scripted prompter was asked. */
export interface AskedQuestion {
  kind: 'select' | 'text' | 'password';
  message: string;
  /** A select's choices. */
  options?: ReadonlyArray<{ value: string; label: string; hint?: string }>;
  initial?: string;
  /** A text or password prompt's own check, so a test can probe what it accepts. */
  validate?: (value: string) => string | undefined;
}

/**
 * A scripted answer: the value (a select's option value, or the typed text), `PROMPT_CANCELLED`,
 * or a function of the question (to pick by label or keep the offered default).
 */
export type ScriptedAnswer = string | PromptCancelled | ((asked: AskedQuestion) => string | PromptCancelled);

export interface ScriptedPrompter {
  prompter: ProviderPrompter;
  /** Every question, in order. */
  asked: AskedQuestion[];
  /** intro / outro / note messages, prefixed with their kind (`note:…`). */
  shown: string[];
  /** Answers not asked for yet (a finished run should leave none). */
  remaining: ScriptedAnswer[];
}

/**
 * A `ProviderPrompter` that answers from a script, in order, for driving a wizard in tests. It
 * fails loudly where a person would be stuck: a question beyond the script, a select answer that
 * is not one of its options, or an answer the prompt's own validation rejects.
 */
export function scriptedPrompter(script: readonly ScriptedAnswer[]): ScriptedPrompter {
  const remaining = [...script];
  const asked: AskedQuestion[] = [];
  const shown: string[] = [];
  const answer = (question: AskedQuestion): Promise<string | PromptCancelled> => {
    asked.push(question);
    if (remaining.length === 0) return Promise.reject(new Error(`Unscripted question: ${question.message}`));
    const next = remaining.shift()!;
    const value = typeof next === 'function' ? next(question) : next;
    if (value !== PROMPT_CANCELLED) {
      if (question.options && !question.options.some((o) => o.value === value))
        return Promise.reject(
          new Error(
            `Scripted answer '${value}' is not an option of '${question.message}': ${question.options.map((o) => o.value).join(', ')}`,
          ),
        );
      const problem = question.validate?.(value);
      if (problem) return Promise.reject(new Error(`Scripted answer '${value}' rejected: ${problem}`));
    }
    return Promise.resolve(value);
  };
  const prompter: ProviderPrompter = {
    intro: (title) => void shown.push(`intro:${title}`),
    outro: (message) => void shown.push(`outro:${message}`),
    note: (message) => void shown.push(`note:${message}`),
    select: (message, options, initial) =>
      answer({ kind: 'select', message, options, ...(initial !== undefined ? { initial } : {}) }),
    text: (message, options) =>
      answer({
        kind: 'text',
        message,
        ...(options.initial !== undefined ? { initial: options.initial } : {}),
        ...(options.validate ? { validate: options.validate } : {}),
      }),
    password: (message, options) =>
      answer({ kind: 'password', message, ...(options.validate ? { validate: options.validate } : {}) }),
  };
  return { prompter, asked, shown, remaining };
}
