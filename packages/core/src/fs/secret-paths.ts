import os from 'node:os';
import path from 'node:path';
import fs from 'node:fs';

/**
 * The one rule for files that must never leave the machine through a memory tool (an upload, an
 * ingest): credential stores, keys and secret-bearing config. Tools that read a user-named file
 * and send it to a service call `secretPathReason` first and refuse with its reason.
 *
 * The path is judged as written and as resolved (symbolic links followed), so a link named
 * `notes.txt` that points at `~/.ssh/id_ed25519` is refused like the key itself.
 */
export interface SecretPathOptions {
  /** The Hermes home: its `auth.json` (the credential store), `.env` and `config.yaml` are secret. */
  hermesHome?: string;
  /** The user's home for `~/.ssh`, `~/.aws`…; default `os.homedir()`. */
  homeDir?: string;
}

/** File names that hold credentials wherever they are. */
const SECRET_NAMES =
  /^(?:\.env(?:\..*)?|\.netrc|_netrc|\.pgpass|\.npmrc|\.pypirc|\.git-credentials|\.htpasswd|credentials(?:\.json|\.ya?ml|\.toml)?|auth\.json|id_(?:rsa|dsa|ecdsa|ed25519)(?:_sk)?|.*\.(?:pem|key|p12|pfx|jks|keystore|kdbx|asc|gpg|ppk))$/i;
/** Folders (under the user's home) whose every file is secret. */
const SECRET_DIRS = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.kube',
  '.docker',
  '.config/gcloud',
  '.password-store',
];
/** System files that hold credentials. */
const SYSTEM_FILES = new Set(['/etc/shadow', '/etc/gshadow', '/etc/sudoers', '/etc/master.passwd']);
/** Files of the Hermes home that hold keys or tokens. */
const HERMES_FILES = ['auth.json', '.env', 'config.yaml'];

/** Why `file` must not be read by a tool, or null when it may. Never throws. */
export function secretPathReason(file: string, options: SecretPathOptions = {}): string | null {
  const home = options.homeDir ?? os.homedir();
  const absolute = path.resolve(file.startsWith('~/') ? path.join(home, file.slice(2)) : file);
  const candidates = [absolute];
  try {
    const real = fs.realpathSync(absolute);
    if (real !== absolute) candidates.push(real);
  } catch {
    // Missing or unreadable: judged by its name alone (the caller reports a missing file).
  }
  for (const candidate of candidates) {
    const reason = judge(candidate, home, options.hermesHome);
    if (reason) return candidate === absolute ? reason : `${reason} (the path is a link to ${candidate})`;
  }
  return null;
}

function judge(file: string, home: string, hermesHome: string | undefined): string | null {
  if (SYSTEM_FILES.has(file)) return `${file} is a system credential file`;
  if (hermesHome) {
    const root = path.resolve(hermesHome);
    for (const name of HERMES_FILES) {
      if (file === path.join(root, name)) return `${name} in the Hermes home holds credentials`;
    }
  }
  const base = path.basename(file);
  if (SECRET_NAMES.test(base)) return `${base} looks like a credentials or key file`;
  for (const dir of SECRET_DIRS) {
    const root = path.join(home, dir);
    if (file === root || file.startsWith(`${root}${path.sep}`))
      return `files under ~/${dir} hold credentials`;
  }
  return null;
}
