import fs from 'node:fs';
import path from 'node:path';

/**
 * The part of brv's project layout the fake reads and writes: `<project>/.brv/config.json` and
 * markdown documents under `<project>/.brv/context-tree/`, each with a `title` in its front matter
 * (what `brv curate` writes and `brv search` / `brv query` read). Tests seed documents with
 * `writeContextDoc`, which the real brv reads the same way.
 */
export interface ContextDoc {
  /** Path inside the context tree, e.g. `auth/jwt.md`. */
  path: string;
  title: string;
  /** The document without its front matter and heading. */
  body: string;
}

export function contextTreeDir(project: string): string {
  return path.join(project, '.brv', 'context-tree');
}

/** `brv init` as curate and query do it implicitly: `.brv/config.json` and an empty tree. */
export function ensureProject(project: string): void {
  const dir = contextTreeDir(project);
  fs.mkdirSync(dir, { recursive: true });
  const config = path.join(project, '.brv', 'config.json');
  if (!fs.existsSync(config))
    fs.writeFileSync(
      config,
      `${JSON.stringify({ createdAt: new Date().toISOString(), cwd: project, version: '0.0.1' }, null, 2)}\n`,
    );
}

/** Write one document (front matter, heading, body) into a project's context tree. */
export function writeContextDoc(project: string, docPath: string, title: string, body: string): string {
  if (docPath.includes('..') || path.isAbsolute(docPath))
    throw new Error(`bad context-tree path '${docPath}'`);
  ensureProject(project);
  const file = path.join(contextTreeDir(project), docPath);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(
    file,
    `---\ntitle: ${title.replace(/\n/g, ' ')}\n---\n# ${title.replace(/\n/g, ' ')}\n\n${body.trim()}\n`,
  );
  return file;
}

/** Every document of a project's tree, sorted by path. */
export function readContextDocs(project: string): ContextDoc[] {
  const root = contextTreeDir(project);
  if (!fs.existsSync(root)) return [];
  const docs: ContextDoc[] = [];
  const walk = (dir: string) => {
    for (const entry of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.isFile() && entry.name.endsWith('.md'))
        docs.push(parseDoc(path.relative(root, full), fs.readFileSync(full, 'utf8')));
    }
  };
  walk(root);
  return docs;
}

function parseDoc(docPath: string, text: string): ContextDoc {
  let title = path.basename(docPath, '.md');
  let rest = text;
  const front = /^---\n([\s\S]*?)\n---\n?/.exec(text);
  if (front) {
    const t = /^title:\s*(.*)$/m.exec(front[1]!);
    if (t) title = t[1]!.trim();
    rest = text.slice(front[0].length);
  }
  const body = rest.replace(/^\s*#\s+.*\n/, '').trim();
  return { path: docPath.split(path.sep).join('/'), title, body };
}

const STOPWORDS = new Set(
  'a an and are as at be by do does for from has have how i in is it its me my of on or so that the this to was what when where which who why will with you your'.split(
    ' ',
  ),
);

/** Lower-case words of two or more letters or digits, stop words dropped. */
export function terms(text: string): string[] {
  return (text.toLowerCase().match(/[\p{L}\p{N}]{2,}/gu) ?? []).filter((w) => !STOPWORDS.has(w));
}

export interface ScoredDoc extends ContextDoc {
  /** Share of the query's distinct terms the document contains, 0–1, two decimals. */
  score: number;
}

/** Documents containing any query term, best first (a keyword search in the spirit of brv's BM25). */
export function searchDocs(docs: readonly ContextDoc[], query: string): ScoredDoc[] {
  const wanted = [...new Set(terms(query))];
  if (wanted.length === 0) return [];
  const scored: ScoredDoc[] = [];
  for (const doc of docs) {
    const have = new Set(terms(`${doc.title} ${doc.body}`));
    const hits = wanted.filter((t) => have.has(t)).length;
    if (hits > 0) scored.push({ ...doc, score: Math.round((hits / wanted.length) * 100) / 100 });
  }
  return scored.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
}

/** A file name for curated content: its first words, made safe. */
export function slugFor(content: string): string {
  const words = terms(content).slice(0, 6);
  return words.length > 0 ? words.join('-').slice(0, 60) : 'note';
}
