import fs from 'node:fs';
import path from 'node:path';

/**
 * Where the built-in stores live inside a HERMES_HOME: the Python agent's layout, unchanged.
 * Providers' stores are theirs to name (their CLI modules report them).
 */
export function homePaths(home: string) {
  return {
    home,
    config: path.join(home, 'config.yaml'),
    env: path.join(home, '.env'),
    memoriesDir: path.join(home, 'memories'),
    memory: path.join(home, 'memories', 'MEMORY.md'),
    user: path.join(home, 'memories', 'USER.md'),
    stateDb: path.join(home, 'state.db'),
  };
}

export interface FileInfo {
  path: string;
  exists: boolean;
  size: number;
  mode: number | null;
}

export function fileInfo(file: string): FileInfo {
  try {
    const st = fs.statSync(file);
    return { path: file, exists: true, size: st.size, mode: st.mode & 0o777 };
  } catch {
    return { path: file, exists: false, size: 0, mode: null };
  }
}
