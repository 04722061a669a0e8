import fs from 'node:fs';
import * as ort from 'onnxruntime-web';
ort.env.wasm.numThreads = 1;
const cases = process.argv.slice(2).map((a) => a.split('@'));
const res = {};
for (let r = 0; r < 3; r++) {
  for (const [model, level] of cases) {
    const bytes = fs.readFileSync(model);
    const t = performance.now();
    const s = await ort.InferenceSession.create(bytes, { graphOptimizationLevel: level || 'all' });
    await s.release();
    (res[`${model.split('/').slice(-2).join('/')}@${level}`] ??= []).push(Math.round(performance.now() - t));
  }
}
console.log(res);
