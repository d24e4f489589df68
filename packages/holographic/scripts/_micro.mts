const dim = 1024; const N = 30000;
const re = new Float64Array(dim).map(() => Math.random() - 0.5), im = new Float64Array(dim).map(() => Math.random() - 0.5);
const out = new Float64Array(dim);
let t = performance.now();
for (let n = 0; n < N; n++) for (let i = 0; i < dim; i++) { const r = Math.atan2(im[i]!, re[i]!) % (2 * Math.PI); out[i] = r < 0 ? r + 2 * Math.PI : r; }
console.log('atan2+pmod per vec us', ((performance.now() - t) * 1000 / N).toFixed(1));
const T = new Float64Array(65536).map((_, k) => Math.cos(k));
const codes = new Uint16Array(dim).map(() => Math.floor(Math.random() * 65536));
t = performance.now();
for (let n = 0; n < N; n++) for (let i = 0; i < dim; i++) { re[i]! += T[codes[i]!]!; }
console.log('table add per vec us', ((performance.now() - t) * 1000 / N).toFixed(1));
