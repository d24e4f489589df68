// The workspace's packages, found on the file system (never a hand-kept list), and the links every
// published package carries. Used by the test runner, the pack smoke test, the provider generator
// and the repository-level checks (packages/repo-checks).
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

/** Folders whose children are workspace packages (the same globs as pnpm-workspace.yaml). */
export const PACKAGE_GROUPS = ['packages', 'examples'];

/**
 * @typedef {{ id: string, rel: string, dir: string, manifest: Record<string, any> }} WorkspacePackage
 * `id` is the folder name (what `scripts/test-packages.mjs <id>` takes), `rel` the POSIX path from
 * the repository root, `manifest` the parsed package.json.
 */

/** Every workspace package, sorted by group then folder. @returns {WorkspacePackage[]} */
export function workspacePackages(root = repoRoot) {
  return PACKAGE_GROUPS.flatMap((group) => {
    const groupDir = path.join(root, group);
    if (!fs.existsSync(groupDir)) return [];
    return fs
      .readdirSync(groupDir)
      .sort()
      .map((id) => ({ id, rel: `${group}/${id}`, dir: path.join(groupDir, id) }))
      .filter(({ dir }) => fs.existsSync(path.join(dir, 'package.json')))
      .map((p) => ({
        ...p,
        manifest: JSON.parse(fs.readFileSync(path.join(p.dir, 'package.json'), 'utf8')),
      }));
  });
}

/** The packages that go to npm: everything not marked `"private": true`. @returns {WorkspacePackage[]} */
export function publicPackages(root = repoRoot) {
  return workspacePackages(root).filter((p) => p.manifest.private !== true);
}

/**
 * The repository's home, recorded once in the root package.json `repository` field:
 * `{ url: 'https://github.com/<owner>/<name>', git: 'git+https://….git' }`.
 */
export function repositoryHome(root = repoRoot) {
  const manifest = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8'));
  const raw = typeof manifest.repository === 'string' ? manifest.repository : manifest.repository?.url;
  const match = /^(?:git\+)?(https:\/\/github\.com\/[^/]+\/[^/.]+)(?:\.git)?$/.exec(raw ?? '');
  if (!match) throw new Error(`root package.json: repository.url must be a GitHub URL, got ${raw}`);
  return { url: match[1], git: `git+${match[1]}.git` };
}

/** `repository`, `homepage` and `bugs` as a published package in folder `rel` must carry them. */
export function packageLinks(rel, root = repoRoot) {
  const home = repositoryHome(root);
  return {
    repository: { type: 'git', url: home.git, directory: rel },
    homepage: `${home.url}/tree/main/${rel}#readme`,
    bugs: { url: `${home.url}/issues` },
  };
}

/** Absolute GitHub URL of a file or folder in the repository (for README links that work on npm). */
export function blobUrl(relPath, root = repoRoot) {
  return `${repositoryHome(root).url}/blob/main/${relPath}`;
}
