export {
  appendMemoryContext,
  buildMemoryContextBlock,
  MEMORY_CONTEXT_CLOSE,
  MEMORY_CONTEXT_NOTE,
  MEMORY_CONTEXT_OPEN,
} from './context-block';
export {
  findFenceMarkup,
  findToolResultMarkup,
  neutralizeDeep,
  neutralizeMemoryText,
  neutralizeToolResult,
} from './neutralize';
export {
  type ContextContent,
  dedupeRepeatedBullets,
  flattenContent,
  MAX_TAG_PADDING,
  SYSTEM_NOTE_PATTERN,
  sanitizeContext,
  stripRecallBlocks,
} from './sanitize';
export { StreamingContextScrubber } from './streaming-scrubber';
