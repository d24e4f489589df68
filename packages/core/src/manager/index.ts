export { type Budgets, DEFAULT_BUDGETS, writeDrainBudget } from './budgets';
export type { HealthChangeEvent, ProviderHealthReport } from './health-tracker';
export { checkpointEvidence, MemoryManager } from './memory-manager';
export { type MirrorOperation, mirrorOperations } from './notify';
export {
  BUILTIN_TOOL_NAMES,
  isReservedToolName,
  RESERVED_TOOL_NAMES,
  RESERVED_TOOL_PREFIXES,
} from './reserved-names';
export { normalizeToolSchema } from './schemas';
export { buildSkillInvocationMessage, extractUserInstruction } from './skill-scaffolding';
export { DEFAULT_SPILL_CHARS, type SpillResult, spillDir, spillText } from './spill';
export {
  type FunctionToolEntry,
  type InjectMemoryToolsOptions,
  injectMemoryProviderTools,
  MEMORY_TOOLSET,
  type MemoryToolsGateOptions,
  memoryProviderToolsEnabled,
  type ToolsetResolver,
} from './toolsets';
export { composeRecall, type RecallSection, sectionLabel } from './recall-compose';
export type {
  AddProviderOptions,
  DrainState,
  ManagerInitInput,
  MemoryManagerOptions,
  MetadataSource,
  ProviderRole,
  SessionBoundaryOptions,
  SyncAllOptions,
} from './types';
