/**
 * The precision suite's own question sets, committed under `packages/bench/data/` (written for
 * this benchmark, MIT): general off-topic questions and live-agent sessions.
 */
import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from '../paths';

export interface LiveSession {
  id: string;
  facts: Array<{ id: string; text: string }>;
  questions: Array<{ q: string; gold: string[] }>;
}

function dataFile(name: string): unknown {
  return JSON.parse(fs.readFileSync(path.join(repoRoot(), 'packages', 'bench', 'data', name), 'utf8'));
}

export function loadOffTopicQuestions(): string[] {
  const data = dataFile('off-topic-questions.json') as { questions?: unknown };
  if (!Array.isArray(data.questions) || !data.questions.every((q) => typeof q === 'string'))
    throw new Error('off-topic-questions.json: `questions` must be an array of strings');
  return data.questions as string[];
}

export function loadLiveSessions(): LiveSession[] {
  const data = dataFile('live-sessions.json') as { sessions?: LiveSession[] };
  if (!Array.isArray(data.sessions)) throw new Error('live-sessions.json: `sessions` must be an array');
  return data.sessions;
}
