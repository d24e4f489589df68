import * as clack from '@clack/prompts';
import {
  PROMPT_CANCELLED,
  type PromptCancelled,
  type PromptOption,
  type ProviderPrompter,
} from '@hermes-memory/core';

/** The core seam's cancel marker, so a provider's wizard and the CLI's agree on it. */
export const CANCELLED: typeof PROMPT_CANCELLED = PROMPT_CANCELLED;
export type Cancelled = PromptCancelled;
export type SelectOption = PromptOption;

/**
 * The questions a wizard can ask (core's `ProviderPrompter`, also handed to provider CLI modules).
 * The terminal implementation uses @clack/prompts; tests and other front ends can supply their own.
 */
export type Prompter = ProviderPrompter;

export function clackPrompter(): Prompter {
  const unwrap = (value: unknown): string | Cancelled => (clack.isCancel(value) ? CANCELLED : String(value));
  return {
    intro: (title) => clack.intro(title),
    outro: (message) => clack.outro(message),
    note: (message) => clack.log.info(message),
    async select(message, options, initial) {
      const value = await clack.select<string>({
        message,
        options: options.map((o) => ({
          value: o.value,
          label: o.label,
          ...(o.hint ? { hint: o.hint } : {}),
        })),
        ...(initial !== undefined ? { initialValue: initial } : {}),
      });
      return unwrap(value);
    },
    async text(message, options) {
      const value = await clack.text({
        message,
        ...(options.initial !== undefined ? { initialValue: options.initial } : {}),
        ...(options.placeholder !== undefined ? { placeholder: options.placeholder } : {}),
        ...(options.validate ? { validate: (v: string | undefined) => options.validate?.(v ?? '') } : {}),
      });
      return unwrap(value);
    },
    async password(message, options) {
      const value = await clack.password({
        message,
        ...(options.validate ? { validate: (v: string | undefined) => options.validate?.(v ?? '') } : {}),
      });
      return unwrap(value);
    },
  };
}
