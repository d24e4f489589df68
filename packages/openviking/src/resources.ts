import fs from 'node:fs';
import path from 'node:path';
import { secretPathReason } from '@hermes-memory/core';

/** A local file or folder to upload, read into memory (folders as a zip). */
export interface LocalUpload {
  bytes: Uint8Array;
  /** The name the server gets (`<folder>.zip` for folders). */
  name: string;
  /** Files left out of a folder (links, secrets, unreadable), for the answer. */
  skipped: string[];
}

/** Remote sources the server fetches itself: sent as `path`, never read here. */
export function isRemoteSource(source: string): boolean {
  return /^(https?:\/\/|ssh:\/\/|git:\/\/|git@[^:]+:)/i.test(source);
}

/** `file://` (this host only) or a plain path → an absolute local path; null for other schemes. */
export function localPath(source: string): string | null {
  if (/^file:/i.test(source)) {
    let url: URL;
    try {
      url = new URL(source);
    } catch {
      return null;
    }
    if (url.host !== '' && url.host !== 'localhost') return null;
    return decodeURIComponent(url.pathname);
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(source)) return null;
  return path.resolve(source.startsWith('~/') ? path.join(process.env.HOME ?? '', source.slice(2)) : source);
}

const MAX_UPLOAD_BYTES = 64 * 1024 * 1024;

/**
 * Read what a local path names for upload. Secret files (keys, `.env`, credential stores) are
 * refused outright; inside a folder, symbolic links, anything resolving outside the folder,
 * secret and unreadable files are skipped. Folders become a zip (stored, not compressed: the
 * server unpacks it), built in memory — nothing is left on disk to clean up.
 */
export function readLocalUpload(file: string, hermesHome: string): LocalUpload {
  const refused = secretPathReason(file, { hermesHome });
  if (refused) throw new Error(`Refusing to upload ${file}: ${refused}`);
  const stat = fs.lstatSync(file);
  if (stat.isSymbolicLink()) throw new Error(`Refusing to upload ${file}: it is a symbolic link.`);
  if (stat.isFile()) {
    if (stat.size > MAX_UPLOAD_BYTES)
      throw new Error(`${file} is larger than ${MAX_UPLOAD_BYTES / 1048576} MiB.`);
    return { bytes: fs.readFileSync(file), name: path.basename(file), skipped: [] };
  }
  if (!stat.isDirectory()) throw new Error(`${file} is neither a file nor a folder.`);
  const root = fs.realpathSync(file);
  const entries: Array<{ name: string; data: Buffer }> = [];
  const skipped: string[] = [];
  let total = 0;
  const walk = (dir: string) => {
    for (const dirent of fs
      .readdirSync(dir, { withFileTypes: true })
      .sort((a, b) => a.name.localeCompare(b.name))) {
      const full = path.join(dir, dirent.name);
      const rel = path.relative(root, full).split(path.sep).join('/');
      if (dirent.isSymbolicLink()) {
        skipped.push(rel);
        continue;
      }
      if (dirent.isDirectory()) {
        walk(full);
        continue;
      }
      if (!dirent.isFile()) continue;
      let real: string;
      try {
        real = fs.realpathSync(full);
      } catch {
        skipped.push(rel);
        continue;
      }
      if (!real.startsWith(`${root}${path.sep}`) || secretPathReason(real, { hermesHome })) {
        skipped.push(rel);
        continue;
      }
      try {
        const data = fs.readFileSync(real);
        total += data.length;
        if (total > MAX_UPLOAD_BYTES)
          throw new Error(`${file} holds more than ${MAX_UPLOAD_BYTES / 1048576} MiB.`);
        entries.push({ name: rel, data });
      } catch (error) {
        if ((error as Error).message.includes('MiB')) throw error;
        skipped.push(rel);
      }
    }
  };
  walk(root);
  return { bytes: zipStored(entries), name: `${path.basename(root)}.zip`, skipped };
}

/** A zip archive with every entry stored (method 0). */
export function zipStored(entries: ReadonlyArray<{ name: string; data: Uint8Array }>): Uint8Array {
  const chunks: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const data = Buffer.from(entry.data);
    const crc = crc32(data);
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(0x0800, 6); // UTF-8 names
    local.writeUInt32LE(crc, 14);
    local.writeUInt32LE(data.length, 18);
    local.writeUInt32LE(data.length, 22);
    local.writeUInt16LE(name.length, 26);
    chunks.push(local, name, data);
    const header = Buffer.alloc(46);
    header.writeUInt32LE(0x02014b50, 0);
    header.writeUInt16LE(20, 4);
    header.writeUInt16LE(20, 6);
    header.writeUInt16LE(0x0800, 8);
    header.writeUInt32LE(crc, 16);
    header.writeUInt32LE(data.length, 20);
    header.writeUInt32LE(data.length, 24);
    header.writeUInt16LE(name.length, 28);
    header.writeUInt32LE(offset, 42);
    central.push(header, name);
    offset += local.length + name.length + data.length;
  }
  const directory = Buffer.concat(central);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...chunks, directory, end]);
}

const CRC_TABLE = (() => {
  const table = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    table[n] = c >>> 0;
  }
  return table;
})();

function crc32(data: Uint8Array): number {
  let crc = 0xffffffff;
  for (const byte of data) crc = CRC_TABLE[(crc ^ byte) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}
