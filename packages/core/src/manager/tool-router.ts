import type { Logger } from '../logging/logger';
import type { MemoryProvider } from '../provider/memory-provider';
import type { ToolSchema } from '../provider/types';
import { describeError } from '../tools/results';
import { BUILTIN_TOOL_NAMES, isReservedToolName } from './reserved-names';
import { normalizeToolSchema } from './schemas';

const BUILTIN = 'builtin';

/**
 * Tool name → provider. First registrant wins a name; reserved core names are refused (only the
 * builtin provider owns `memory` and `session_search`). Routes are rebuilt from what providers
 * list now (`refresh`), so a provider whose tools depend on its mode (context-only modes expose
 * none) loses the routes it no longer offers once it has initialised.
 */
export class ToolRouter {
  private readonly routes = new Map<string, MemoryProvider>();
  private readonly warned = new Set<string>();

  constructor(
    private readonly logger: Logger,
    private readonly extraReserved: ReadonlySet<string>,
  ) {}

  get(name: string): MemoryProvider | undefined {
    return this.routes.get(name);
  }

  names(): string[] {
    return [...this.routes.keys()];
  }

  /** The provider's schemas, normalised; throws when `getToolSchemas` throws or is not an array. */
  schemasOf(provider: MemoryProvider): ToolSchema[] {
    const raw: unknown = provider.getToolSchemas();
    if (!Array.isArray(raw)) throw new TypeError('getToolSchemas() must return an array');
    const out: ToolSchema[] = [];
    for (const entry of raw) {
      const schema = normalizeToolSchema(entry);
      if (!schema) {
        this.logger.warn(
          `Memory provider '${provider.name}' returned a tool schema with no resolvable name; skipped.`,
        );
        continue;
      }
      out.push(schema);
    }
    return out;
  }

  /** Names in `schemas` (of a provider not yet registered) that are routed already or reserved. */
  conflicts(schemas: readonly ToolSchema[]): string[] {
    const taken = schemas
      .map((s) => s.name)
      .filter((name) => this.routes.has(name) || isReservedToolName(name, this.extraReserved));
    return [...new Set(taken)];
  }

  /** Add routes for `schemas` (first registrant wins). Returns how many names route to `provider`. */
  add(provider: MemoryProvider, schemas: readonly ToolSchema[]): number {
    let routed = 0;
    for (const { name } of schemas) {
      const owner = this.routes.get(name);
      if (owner === provider) {
        routed++;
        continue;
      }
      const builtinOwn = provider.name === BUILTIN && BUILTIN_TOOL_NAMES.has(name);
      if (!builtinOwn && isReservedToolName(name, this.extraReserved)) {
        this.warnOnce(
          `${provider.name}:${name}`,
          `Memory provider '${provider.name}' tool '${name}' uses a reserved core tool name; refused.`,
        );
        continue;
      }
      if (owner) {
        this.warnOnce(
          `${provider.name}:${name}`,
          `Memory tool name conflict: '${name}' from '${provider.name}' is already handled by '${owner.name}'; keeping the first.`,
        );
        continue;
      }
      this.routes.set(name, provider);
      routed++;
    }
    return routed;
  }

  /**
   * Rebuild every route from what `providers` list now, in order, and return the schemas that
   * route (deduplicated by name). A provider whose listing throws keeps no routes this time.
   */
  refresh(providers: readonly MemoryProvider[]): ToolSchema[] {
    const before = new Map(this.routes);
    this.routes.clear();
    const out: ToolSchema[] = [];
    for (const provider of providers) {
      let schemas: ToolSchema[];
      try {
        schemas = this.schemasOf(provider);
      } catch (error) {
        this.logger.warn(
          `Memory provider '${provider.name}' failed to list its tools: ${describeError(error)}`,
        );
        continue;
      }
      this.add(provider, schemas);
      for (const schema of schemas) {
        if (this.routes.get(schema.name) !== provider || out.some((s) => s.name === schema.name)) continue;
        out.push(schema);
      }
    }
    for (const [name, owner] of before) {
      if (!this.routes.has(name)) {
        this.logger.info(`Memory tool '${name}' is no longer offered by '${owner.name}'; route removed.`);
      }
    }
    return out;
  }

  private warnOnce(key: string, message: string): void {
    if (this.warned.has(key)) return;
    this.warned.add(key);
    this.logger.warn(message);
  }
}
