export {
  enumArg,
  integerArg,
  optionalNumber,
  optionalString,
  parseToolArgs,
  requiredString,
  type ToolArgs,
} from './args';
export { describeError, guardToolCall, toolError, toolResult } from './results';
