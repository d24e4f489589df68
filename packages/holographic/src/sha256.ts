/**
 * SHA-256 of short strings (one 64-byte block: up to 55 UTF-8 bytes) in plain JS, for HRR atoms:
 * an atom of dim 1024 hashes 64 messages like `"word:12"`, and the per-call overhead of
 * node:crypto dominates for messages this small. Longer messages use node:crypto. Tested against
 * node:crypto in hrr.test.ts.
 */
import crypto from 'node:crypto';

const K = new Uint32Array([
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
]);
const H0 = new Uint32Array([
  0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19,
]);
const block = new Uint8Array(64);
const head = block.subarray(0, 56);
const W = new Uint32Array(64);
const encoder = new TextEncoder();

/** SHA-256 digest (32 bytes) of the UTF-8 encoding of `text`, written into `out`. */
export function sha256Into(text: string, out: Uint8Array): void {
  const { read, written } = encoder.encodeInto(text, head);
  if (read !== text.length || written > 55) {
    out.set(crypto.createHash('sha256').update(text, 'utf8').digest());
    return;
  }
  block.fill(0, written);
  block[written] = 0x80;
  const bits = written * 8;
  block[62] = bits >>> 8;
  block[63] = bits & 0xff;
  for (let i = 0; i < 16; i++)
    W[i] = (block[4 * i]! << 24) | (block[4 * i + 1]! << 16) | (block[4 * i + 2]! << 8) | block[4 * i + 3]!;
  for (let i = 16; i < 64; i++) {
    const w15 = W[i - 15]!;
    const w2 = W[i - 2]!;
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[i] = (W[i - 16]! + s0 + W[i - 7]! + s1) | 0;
  }
  let a = H0[0]!;
  let b = H0[1]!;
  let c = H0[2]!;
  let d = H0[3]!;
  let e = H0[4]!;
  let f = H0[5]!;
  let g = H0[6]!;
  let h = H0[7]!;
  for (let i = 0; i < 64; i++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const t1 = (h + S1 + ch + K[i]! + W[i]!) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const t2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + t1) | 0;
    d = c;
    c = b;
    b = a;
    a = (t1 + t2) | 0;
  }
  put(out, 0, a + H0[0]!);
  put(out, 4, b + H0[1]!);
  put(out, 8, c + H0[2]!);
  put(out, 12, d + H0[3]!);
  put(out, 16, e + H0[4]!);
  put(out, 20, f + H0[5]!);
  put(out, 24, g + H0[6]!);
  put(out, 28, h + H0[7]!);
}

function put(out: Uint8Array, at: number, value: number): void {
  const v = value >>> 0;
  out[at] = v >>> 24;
  out[at + 1] = (v >>> 16) & 0xff;
  out[at + 2] = (v >>> 8) & 0xff;
  out[at + 3] = v & 0xff;
}
