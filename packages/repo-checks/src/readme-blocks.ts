/**
 * Every ```ts block of every README (and of the guides in `GUIDES`), compiled as its own module against the built packages, the way
 * a reader would paste it into a project that installed them. Two markers, each an HTML comment
 * (invisible on GitHub and npm) right before the fence:
 *
 * - `<!-- typecheck context: declare const sessionId: string; -->` — declarations the block takes
 *   from its surroundings (the reader's agent loop); the block itself is still checked in full.
 * - `<!-- typecheck: skip (reason) -->` — a deliberately partial snippet that cannot compile on its
 *   own (it imports the reader's own files, say). The reason is required.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ts from 'typescript';
import { type WorkspacePackage, repoRoot, workspacePackages } from './workspace';

export interface ReadmeBlock {
  /** README path relative to the repository root. */
  readme: string;
  /** 1-based line of the block's first code line in the README. */
  line: number;
  code: string;
  /** Declarations from a context marker ('' without one). */
  context: string;
  /** The reason given by a skip marker, or null when the block is typechecked. */
  skip: string | null;
}

const FENCE_OPEN = /^(\s*)```(ts|typescript|tsx|mts|cts)\s*$/;
const FENCE_ANY = /^\s*```/;
/** A closing fence has no info string (CommonMark). */
const FENCE_CLOSE = /^\s*```\s*$/;
const SKIP_MARKER = /^\s*<!--\s*typecheck:\s*skip\s*\((.*)\)\s*-->\s*$/;
const CONTEXT_MARKER = /<!--\s*typecheck context:([\s\S]*?)-->\s*$/;

/** The TypeScript blocks of one README. A skip marker with an empty reason is an error. */
export function extractBlocks(markdown: string, readme: string): ReadmeBlock[] {
  const lines = markdown.split('\n');
  const blocks: ReadmeBlock[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = FENCE_OPEN.exec(lines[i]!);
    if (!open) {
      if (FENCE_ANY.test(lines[i]!)) {
        // Some other fenced block: skip to its end so its content is never read as fences.
        for (i++; i < lines.length && !FENCE_CLOSE.test(lines[i]!); i++);
      }
      continue;
    }
    const indent = open[1]!.length;
    const start = i + 1;
    let end = start;
    while (end < lines.length && !FENCE_CLOSE.test(lines[end]!)) end++;
    let before = i - 1;
    while (before >= 0 && lines[before]!.trim() === '') before--;
    const marker = before >= 0 ? SKIP_MARKER.exec(lines[before]!) : null;
    if (marker && marker[1]!.trim() === '')
      throw new Error(`${readme}:${i + 1}: typecheck skip without a reason`);
    // A context comment may span lines: read back from the line before the fence to its `<!--`.
    let context = '';
    if (before >= 0 && lines[before]!.trim().endsWith('-->')) {
      let first = before;
      while (first > 0 && !lines[first]!.includes('<!--')) first--;
      context = CONTEXT_MARKER.exec(lines.slice(first, before + 1).join('\n'))?.[1]?.trim() ?? '';
      if (context.includes('//'))
        throw new Error(`${readme}:${first + 1}: no // comments in a typecheck context`);
    }
    blocks.push({
      readme,
      line: start + 1,
      code: lines
        .slice(start, end)
        .map((l) => l.slice(Math.min(indent, l.length - l.trimStart().length)))
        .join('\n'),
      context,
      skip: marker ? marker[1]!.trim() : null,
    });
    i = end;
  }
  return blocks;
}

/** Guides outside the READMEs whose code readers copy; their blocks are held to the same rule. */
export const GUIDES = ['docs/authoring-a-provider.md'];

/** Every README.md in the repository (not in node_modules, dist or dot folders), and the guides. */
export function readmeFiles(root = repoRoot): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.') || entry.name === 'node_modules' || entry.name === 'dist') continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'README.md') found.push(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  walk(root);
  for (const guide of GUIDES) if (fs.existsSync(path.join(root, guide))) found.push(guide);
  return found.sort();
}

export interface BlockDiagnostic {
  readme: string;
  line: number;
  message: string;
}

/** Bare package names a block imports. */
function importedPackages(code: string): string[] {
  const names = new Set<string>();
  for (const m of code.matchAll(/(?:from|import)\s*\(?\s*['"]([^'"./][^'"]*)['"]/g)) {
    const spec = m[1]!;
    if (spec.startsWith('node:')) continue;
    const parts = spec.split('/');
    names.add(spec.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]!);
  }
  return [...names];
}

/** The installed folder of `name`, looked up from `fromDir` the way Node does. */
function findPackage(name: string, fromDir: string): string | null {
  for (let dir = fromDir; ; dir = path.dirname(dir)) {
    const candidate = path.join(dir, 'node_modules', name);
    if (fs.existsSync(path.join(candidate, 'package.json'))) return fs.realpathSync(candidate);
    if (path.dirname(dir) === dir) return null;
  }
}

/**
 * Compiles every non-skipped block in one program. Imports of our packages resolve to the workspace
 * packages (their built `dist/`, through their `exports`); other imports to what the README's own
 * package (or the root) has installed. Returns one diagnostic per error, at its README line.
 */
export function typecheckBlocks(blocks: readonly ReadmeBlock[], root = repoRoot): BlockDiagnostic[] {
  const workspace = workspacePackages(root) as WorkspacePackage[];
  const byName = new Map(workspace.map((p) => [p.manifest['name'] as string, p.dir]));
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-readme-blocks-'));
  try {
    const modules = path.join(scratch, 'node_modules');
    const link = (name: string, target: string) => {
      const at = path.join(modules, name);
      if (fs.existsSync(at)) return;
      fs.mkdirSync(path.dirname(at), { recursive: true });
      fs.symlinkSync(target, at, 'dir');
    };
    const nodeTypes = findPackage('@types/node', root);
    if (nodeTypes) link('@types/node', nodeTypes);

    const files = new Map<string, ReadmeBlock>();
    blocks.forEach((block, index) => {
      if (block.skip !== null) return;
      const owner = workspace.find((p) => block.readme.startsWith(`${p.rel}/`));
      for (const name of importedPackages(`${block.context}\n${block.code}`)) {
        const target =
          byName.get(name) ??
          [owner?.dir ?? root, root, ...workspace.map((p) => p.dir)]
            .map((dir) => findPackage(name, dir))
            .find((found) => found !== null);
        if (target) link(name, target);
      }
      const file = path.join(scratch, `block-${index}.ts`);
      // The context goes on the block's first line, so error lines map back one to one; `export {}`
      // makes every block a module (top-level await, no name clashes between blocks).
      fs.writeFileSync(file, `${block.context.replace(/\n/g, ' ')} ${block.code}\nexport {};\n`);
      files.set(file, block);
    });

    const program = ts.createProgram([...files.keys()], {
      strict: true,
      noEmit: true,
      target: ts.ScriptTarget.ES2022,
      lib: ['lib.es2023.d.ts'],
      module: ts.ModuleKind.ESNext,
      moduleResolution: ts.ModuleResolutionKind.Bundler,
      types: ['node'],
      typeRoots: [path.join(modules, '@types')],
      skipLibCheck: true,
      esModuleInterop: true,
    });
    return ts.getPreEmitDiagnostics(program).map((d) => {
      const block = d.file ? files.get(path.resolve(d.file.fileName)) : undefined;
      const message = ts.flattenDiagnosticMessageText(d.messageText, '\n');
      if (!block || !d.file || d.start === undefined) {
        return { readme: d.file?.fileName ?? '(program)', line: 0, message };
      }
      const { line } = d.file.getLineAndCharacterOfPosition(d.start);
      return { readme: block.readme, line: block.line + line, message: `TS${d.code}: ${message}` };
    });
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
