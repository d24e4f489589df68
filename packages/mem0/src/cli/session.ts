import { createProviderFactoryContext, describeError, type ProviderCliContext } from '@hermes-memory/core';
import { Mem0Provider } from '../provider';

/** How long a CLI command waits for the last write when it closes the provider. */
const CLOSE_TIMEOUT_MS = 5000;

/**
 * The provider as the agent would build it for this home (HERMES_HOME, `.env`, `memory.mem0`,
 * mem0.json), not initialised: for the connection probe.
 */
export function mem0ForHome(ctx: ProviderCliContext): Mem0Provider {
  return new Mem0Provider(
    {},
    createProviderFactoryContext('mem0', {
      hermesHome: ctx.home,
      env: ctx.env,
      providerConfig: ctx.providerConfig,
      logger: ctx.logger,
    }),
  );
}

/** A provider initialised for one command as the primary agent; shut down by `close`. */
export async function openMem0(
  ctx: ProviderCliContext,
): Promise<{ provider: Mem0Provider; close: () => Promise<void> }> {
  const provider = mem0ForHome(ctx);
  if (!provider.isAvailable())
    throw ctx.fail(
      `Mem0 is not configured: ${provider.unavailableReason()}`,
      "Run 'hermes-memory setup mem0'.",
    );
  try {
    await provider.initialize('hermes-memory-cli', {
      hermesHome: ctx.home,
      platform: 'cli',
      agentContext: 'primary',
      env: ctx.env,
      providerConfig: ctx.providerConfig,
      logger: ctx.logger,
    });
  } catch (error) {
    throw ctx.fail(`Mem0 could not start: ${describeError(error)}`);
  }
  return { provider, close: () => provider.shutdown({ timeoutMs: CLOSE_TIMEOUT_MS }) };
}

/** Run `work` with a provider opened for the command, closing it afterwards. */
export async function withMem0<T>(
  ctx: ProviderCliContext,
  work: (provider: Mem0Provider) => Promise<T>,
): Promise<T> {
  const { provider, close } = await openMem0(ctx);
  try {
    return await work(provider);
  } finally {
    await close();
  }
}

/** A tool's JSON answer; its error becomes the command's one-line failure. */
export async function callTool(
  ctx: ProviderCliContext,
  provider: Mem0Provider,
  name: string,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const answer = JSON.parse(await provider.handleToolCall(name, args, { signal: ctx.signal })) as Record<
    string,
    unknown
  >;
  if (typeof answer.error === 'string') throw ctx.fail(answer.error);
  return answer;
}
