/**
 * `changeset version` in a scratch copy of the workspace's manifests: what a release of the given
 * bumps would do to every package's version and ranges, without touching the repository.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { repoRoot, workspacePackages } from './workspace';

export type Bump = 'major' | 'minor' | 'patch';

export interface VersionedPackage {
  name: string;
  before: string;
  after: string;
  peerDependencies: Record<string, string>;
  dependencies: Record<string, string>;
}

/** Runs `changeset version` for one changeset holding `bumps`; returns every package by name. */
export function changesetDryRun(bumps: Record<string, Bump>, root = repoRoot): Map<string, VersionedPackage> {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'hm-changeset-'));
  try {
    fs.mkdirSync(path.join(scratch, '.changeset'));
    for (const file of ['package.json', 'pnpm-workspace.yaml', '.changeset/config.json']) {
      fs.copyFileSync(path.join(root, file), path.join(scratch, file));
    }
    const packages = workspacePackages(root);
    for (const pkg of packages) {
      fs.mkdirSync(path.join(scratch, pkg.rel), { recursive: true });
      fs.copyFileSync(path.join(pkg.dir, 'package.json'), path.join(scratch, pkg.rel, 'package.json'));
    }
    const frontmatter = Object.entries(bumps)
      .map(([name, bump]) => `'${name}': ${bump}`)
      .join('\n');
    fs.writeFileSync(path.join(scratch, '.changeset/dry-run.md'), `---\n${frontmatter}\n---\n\nDry run.\n`);

    const bin = path.join(root, 'node_modules/@changesets/cli/bin.js');
    const result = spawnSync(process.execPath, [bin, 'version'], { cwd: scratch, encoding: 'utf8' });
    if (result.status !== 0) throw new Error(`changeset version failed:\n${result.stdout}${result.stderr}`);

    return new Map(
      packages.map((pkg) => {
        const after = JSON.parse(fs.readFileSync(path.join(scratch, pkg.rel, 'package.json'), 'utf8'));
        const name = pkg.manifest['name'] as string;
        return [
          name,
          {
            name,
            before: pkg.manifest['version'] as string,
            after: after.version,
            peerDependencies: after.peerDependencies ?? {},
            dependencies: after.dependencies ?? {},
          },
        ];
      }),
    );
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true });
  }
}
