import fs from 'node:fs';
import path from 'node:path';

/** Where each store lives inside a HERMES_HOME: the Python agent's layout, unchanged. */
export function homePaths(home: string) {
  return {
    home,
    config: path.join(home, 'config.yaml'),
    env: path.join(home, '.env'),
    memoriesDir: path.join(home, 'memories'),
    memory: path.join(home, 'memories', 'MEMORY.md'),
    user: path.join(home, 'memories', 'USER.md'),
    stateDb: path.join(home, 'state.db'),
    factsDb: path.join(home, 'memory_store.db'),
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

/** A SQLite database's size on disk includes its WAL and shared-memory files. */
export function sqliteSize(file: string): number {
  return [file, `${file}-wal`, `${file}-shm`].reduce((sum, f) => sum + fileInfo(f).size, 0);
}
