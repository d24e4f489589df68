/**
 * Whether process `pid` exists on this host, by `kill(pid, 0)`: ESRCH means gone, EPERM means alive
 * under another user. Not a pid (0, negative, fractional, NaN) is false: `kill(0)` and negative
 * pids would address process groups. Lock files use it to tell a crashed holder from a live one;
 * it says nothing about a pid recorded on another host.
 */
export function processAlive(pid: number): boolean {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
