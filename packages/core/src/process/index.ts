export { findExecutable, type FindExecutableOptions, forgetExecutable } from './find-executable';
export { type NdjsonLines, parseNdjson } from './ndjson';
export { type CommandResult, childEnv, type RunCommandOptions, runCommand } from './run-command';
export { processAlive } from './process-alive';
export { openInBrowser } from './open-in-browser';
