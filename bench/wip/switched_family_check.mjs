import { readFileSync } from 'node:fs';
import * as ort from 'onnxruntime-web';
const dir = process.argv[2];
ort.env.wasm.numThreads = 2;
const externalData = [{ path: 'sw.weights.bin', data: readFileSync(dir + '/sw.weights.bin') }];
const open = (f) => ort.InferenceSession.create(readFileSync(`${dir}/${f}.onnx`), { graphOptimizationLevel: 'disabled', externalData, extra: { session: { disable_prepacking: '1' } } });
const [fam, sw] = [await open('fam'), await open('sw')];
const px = new ort.Tensor('float32', new Float32Array(3 * 224 * 224).map((_, i) => Math.sin(i * 0.37) * 1.5), [1, 3, 224, 224]);
const target = new Float32Array(1000); target[281] = 1;
const base = { pixels: px, target: new ort.Tensor('float32', target, [1, 1000]) };
const fetches = ['logits', 'attn_grad', 'attn_rel'];
const meta = Object.fromEntries(sw.inputMetadata.map((m) => [m.name, m.shape]));
const empty = (n) => { const dims = meta[n].map((d) => (typeof d === 'number' ? d : 0)); return new ort.Tensor('float32', new Float32Array(0), dims); };
const given = sw.inputNames.filter((n) => n.startsWith('given.'));
const formedNames = sw.outputNames.filter((n) => n.startsWith('formed.'));
const first = { ...base, inverse_rows: new ort.Tensor('float32', new Float32Array([1]), [1, 1, 1]), ...Object.fromEntries(given.map((n) => [n, empty(n)])) };
const compare = (a, b, label) => {
  for (const n of fetches) {
    const x = a[n].data, y = b[n].data; let maxAbs = 0, maxVal = 0, same = 0;
    for (let i = 0; i < x.length; i++) { maxAbs = Math.max(maxAbs, Math.abs(x[i] - y[i])); maxVal = Math.max(maxVal, Math.abs(x[i])); if (x[i] === y[i]) same++; }
    console.log(label, n, 'rel', (maxAbs / maxVal).toExponential(2), 'identical', `${same}/${x.length}`);
  }
};
const want = await fam.run(base, fetches);
const r1 = await sw.run(first, [...fetches, ...formedNames]);
compare(want, r1, 'F=1 vs family');
const again = { ...base, inverse_rows: new ort.Tensor('float32', new Float32Array(0), [0, 1, 1]) };
for (const n of given) {
  const f = r1['formed.' + n.slice('given.'.length)];
  again[n] = new ort.Tensor('float32', f.data, f.dims);
}
const r2 = await sw.run(again, fetches);
compare(r1, r2, 'F=0 given vs F=1');
const emptyOut = await sw.run(again, [...fetches, ...formedNames]);
console.log('formed on a switch:', formedNames.map((n) => emptyOut[n].dims.join('x')).join(' '));
const time = async (s, feeds, f) => { const t = performance.now(); await s.run(feeds, f); return performance.now() - t; };
const rows = { family: [], first: [], switch: [] };
for (let i = 0; i < Number(process.argv[3] ?? 5); i++) {
  rows.family.push(await time(fam, base, fetches));
  rows.first.push(await time(sw, first, [...fetches, ...formedNames]));
  rows.switch.push(await time(sw, again, fetches));
}
const med = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
for (const [k, v] of Object.entries(rows)) console.log(k, 'median', med(v.slice(1)).toFixed(0), v.map((x) => x.toFixed(0)).join(' '));
