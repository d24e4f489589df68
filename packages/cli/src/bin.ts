#!/usr/bin/env node
import { runCli } from './cli';

runCli(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  () => {
    process.exitCode = 1;
  },
);
