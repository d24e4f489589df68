export { type AtomicWriteOptions, fsyncDir, writeFileAtomic, writeNewFile } from './atomic-write';
export { checkDir, type DirOptions, ensureDir } from './dirs';
export { assertRegularFileOrMissing, readFileNoFollow } from './no-follow';
export { findStaleTempFiles, removeStaleTempFiles, type SweepOptions } from './temp-files';
export { type SecretPathOptions, secretPathReason } from './secret-paths';
export {
  breakAbandonedLock,
  judgeLock,
  type LockState,
} from './exclusive-lock';
export { type FlockAttempt, fileLockMechanism, tryHoldFlock, withFileLock } from './file-lock';
export { type FileLockOptions, LockTimeoutError } from './lock-common';
