export { findInvisibleCodePoint, formatCodePoint, isInvisibleCodePoint } from './invisible';
export { type ScanScope, THREAT_RULES, type ThreatRule } from './patterns';
export {
  invisibleMessage,
  MAX_SCAN_CHARS,
  type ScanOptions,
  type ScanResult,
  scanAll,
  scanWrite,
  scanWriteInContext,
  threatMessage,
} from './scan';
export { isTrivialPrompt } from './trivial';
