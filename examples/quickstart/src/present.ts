/**
 * What the quickstart prints. Sections for each session; the model's view (system prompt, the
 * fenced recall appended to the user message, tool results) is set apart from what it says; every
 * memory step shows its time. Colour only on a TTY with NO_COLOR unset.
 */
export interface Presenter {
  banner(info: {
    mode: 'scripted' | 'live';
    model: string;
    baseURL: string;
    home: string;
    homeIsTemp: boolean;
  }): void;
  section(title: string, subtitle?: string): void;
  step(label: string, ms: number, detail?: string): void;
  /** A block of text the model sees (system prompt, recall), boxed and dimmed. */
  modelSees(title: string, text: string): void;
  user(text: string): void;
  toolCall(name: string, args: string, result: string, ms: number): void;
  assistant(text: string): void;
  note(text: string): void;
  /** What this run did, each line ✓ or ✗ as it happened (a live model may skip a step). */
  summary(lines: readonly SummaryLine[]): void;
}

export interface SummaryLine {
  ok: boolean;
  text: string;
}

export function createPresenter(write: (text: string) => void, color: boolean): Presenter {
  const c = (open: number, close: number) => (t: string) =>
    color ? `\u001b[${open}m${t}\u001b[${close}m` : t;
  const bold = c(1, 22);
  const dim = c(2, 22);
  const cyan = c(36, 39);
  const green = c(32, 39);
  const yellow = c(33, 39);
  const magenta = c(35, 39);
  const blue = c(34, 39);
  const line = (t = '') => write(`${t}\n`);
  const ms = (n: number) => (n < 10 ? `${n.toFixed(2)} ms` : `${n.toFixed(0)} ms`);

  return {
    banner(info) {
      line(bold('Hermes Memory — quickstart'));
      line(
        dim(
          'Two sessions of a small agent with builtin (MEMORY.md / USER.md, state.db) + holographic memory.',
        ),
      );
      line();
      if (info.mode === 'scripted') {
        line(
          `${yellow('Model:')} a deterministic ${bold('scripted model')} (no OPENAI_API_KEY set). It plays the model's part`,
        );
        line(
          dim(
            '       over a local OpenAI-compatible server; everything else — stores, tools, scanner, fencing,',
          ),
        );
        line(
          dim(
            '       recall, session search — is the real code path. Set OPENAI_API_KEY to use a real model.',
          ),
        );
      } else {
        line(`${green('Model:')} ${bold(info.model)} at ${info.baseURL}`);
      }
      line(
        `${cyan('Home:')}  ${info.home}${info.homeIsTemp ? dim('  (temporary; pass --home <dir> to keep it)') : ''}`,
      );
    },
    section(title, subtitle) {
      line();
      line(bold(magenta(`━━ ${title} ${'━'.repeat(Math.max(3, 70 - title.length))}`)));
      if (subtitle) line(dim(subtitle));
    },
    step(label, n, detail) {
      line(`${dim('⏱')}  ${label.padEnd(34)} ${cyan(ms(n).padStart(9))}${detail ? `  ${dim(detail)}` : ''}`);
    },
    modelSees(title, text) {
      line();
      line(dim(`┌─ the model sees: ${title}`));
      for (const l of text.split('\n')) line(`${dim('│')} ${dim(l)}`);
      line(dim('└─'));
    },
    user(text) {
      line();
      line(`${bold(green('user ›'))} ${text}`);
    },
    toolCall(name, args, result, n) {
      line(`  ${yellow('⚙')}  ${bold(name)}(${dim(truncate(args, 150))}) ${dim(`· ${ms(n)}`)}`);
      line(`     ${dim('→')} ${dim(truncate(result, 220))}`);
    },
    assistant(text) {
      line(`${bold(blue('agent ›'))} ${text}`);
    },
    note(text) {
      line(dim(text));
    },
    summary(lines) {
      line();
      line(bold('What happened'));
      for (const l of lines) line(`  ${l.ok ? green('✓') : yellow('✗')} ${l.text}`);
    },
  };
}

function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ');
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}
