export {
  createLogger,
  createRecordingLogger,
  type LogLevel,
  type LogRecord,
  type Logger,
  silentLogger,
} from './logger';
export { collectSecrets, isSecretName, REDACTED, redactSecrets, redactSecretsDeep } from './redact';
