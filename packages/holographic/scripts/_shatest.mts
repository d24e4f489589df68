import crypto from 'node:crypto';
import { sha256Into } from '../src/sha256';
const out = new Uint8Array(32);
const words = ['', 'a', 'hello:0', 'x'.repeat(55), 'x'.repeat(56), 'x'.repeat(54)+'é', '供应商:3', '😀:12', 'word'.repeat(20)];
for (let i = 0; i < 2000; i++) words.push(Math.random().toString(36).slice(2) + ':' + i);
let bad = 0;
for (const w of words) { sha256Into(w, out); if (Buffer.from(out).toString('hex') !== crypto.createHash('sha256').update(w,'utf8').digest('hex')) { bad++; console.log('BAD', w); } }
console.log('bad', bad);
let t = performance.now(); for (let i = 0; i < 64000; i++) sha256Into('word' + i + ':3', out); console.log('js', performance.now() - t);
t = performance.now(); for (let i = 0; i < 64000; i++) crypto.hash('sha256', 'word' + i + ':3', 'buffer'); console.log('native', performance.now() - t);
