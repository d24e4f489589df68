import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';
import { describe, expect, it } from 'vitest';
import { type VersionedPackage, changesetDryRun } from './changeset-dry-run';
import { publicPackages, repoRoot, workspacePackages } from './workspace';

// Decision 0003: peers on internal packages accept every later minor of the same major, and
// changesets bumps a peer's dependents only when the new version leaves that range.

const published = publicPackages();
const names = published.map((p) => p.manifest['name'] as string);

/** Public packages another public package depends on (as a peer or a dependency). */
const dependedOn = names.filter((name) =>
  published.some((p) => {
    const m = p.manifest as { peerDependencies?: object; dependencies?: object };
    return name in (m.peerDependencies ?? {}) || name in (m.dependencies ?? {});
  }),
);

function releaseType(p: VersionedPackage): string | null {
  return p.before === p.after ? null : semver.diff(p.before, p.after);
}

describe('versioning policy (changeset version in a scratch copy)', () => {
  it('has internal dependencies to test', () => {
    expect(dependedOn).toContain('@hermes-memory/core');
  });

  it.each(dependedOn)('a minor of %s gives every other package at most a patch', (name) => {
    const result = changesetDryRun({ [name]: 'minor' });
    expect(releaseType(result.get(name)!)).toBe('minor');
    for (const other of names.filter((n) => n !== name)) {
      const p = result.get(other)!;
      expect([null, 'patch'], `${other}: ${p.before} → ${p.after}`).toContain(releaseType(p));
    }
  });

  it('a core minor leaves every internal peer range as it was', () => {
    const result = changesetDryRun({ '@hermes-memory/core': 'minor' });
    for (const pkg of published) {
      const before = (pkg.manifest['peerDependencies'] ?? {}) as Record<string, string>;
      expect(result.get(pkg.manifest['name'] as string)!.peerDependencies).toEqual(before);
    }
  });

  it('a core major is a major for every package that peers on core (the range is not a blank cheque)', () => {
    const result = changesetDryRun({ '@hermes-memory/core': 'major' });
    const peers = published.filter(
      (p) => '@hermes-memory/core' in ((p.manifest['peerDependencies'] ?? {}) as object),
    );
    expect(peers.length).toBeGreaterThan(0);
    for (const pkg of peers) {
      const p = result.get(pkg.manifest['name'] as string)!;
      expect(releaseType(p), `${p.name}: ${p.before} → ${p.after}`).toBe('major');
    }
  });
});

describe('pending changesets', () => {
  const dir = path.join(repoRoot, '.changeset');
  const files = fs.readdirSync(dir).filter((f) => f.endsWith('.md') && f !== 'README.md');
  const known = new Set(workspacePackages(repoRoot).map((p) => p.manifest['name'] as string));

  // A formatter that reads one as Markdown turns its front matter into a heading, and the release
  // (`changeset version`) then fails on it: caught here, not on release day.
  it.each(files)('%s has front matter naming workspace packages and a bump', (file) => {
    const text = fs.readFileSync(path.join(dir, file), 'utf8');
    const match = /^---\n([\s\S]*?)\n---\n/.exec(text);
    expect(match, 'starts with a front matter block between two --- lines').not.toBeNull();
    const lines = match![1]!.split('\n').filter((l) => l.trim() !== '');
    expect(lines.length).toBeGreaterThan(0);
    for (const line of lines) {
      const entry = /^["']([^"']+)["']:\s*(patch|minor|major)\s*$/.exec(line);
      expect(entry, line).not.toBeNull();
      expect(known.has(entry![1]!), `${entry![1]} is a workspace package`).toBe(true);
    }
  });
});
