import * as clack from '@clack/prompts';

export const CANCELLED: unique symbol = Symbol('cancelled');
export type Cancelled = typeof CANCELLED;

export interface SelectOption {
  value: string;
  label: string;
  hint?: string;
}

/**
 * The questions a wizard can ask. The terminal implementation uses @clack/prompts; tests and other
 * front ends can supply their own.
 */
export interface Prompter {
  intro(title: string): void;
  outro(message: string): void;
  note(message: string): void;
  select(message: string, options: readonly SelectOption[], initial?: string): Promise<string | Cancelled>;
  text(
    message: string,
    options: { initial?: string; placeholder?: string; validate?: (value: string) => string | undefined },
  ): Promise<string | Cancelled>;
  password(
    message: string,
    options: { validate?: (value: string) => string | undefined },
  ): Promise<string | Cancelled>;
}

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
