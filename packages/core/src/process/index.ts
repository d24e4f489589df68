export { findExecutable, type FindExecutableOptions, forgetExecutable } from './find-executable';
export { type CommandResult, childEnv, type RunCommandOptions, runCommand } from './run-command';
