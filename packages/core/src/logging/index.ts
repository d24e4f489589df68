export {
  createLogger,
  createRecordingLogger,
  type LogLevel,
  type LogRecord,
  type Logger,
  silentLogger,
} from './logger';
export { REDACTED, redactSecrets } from './redact';
