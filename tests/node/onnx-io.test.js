// runtime/onnx-io.js reads a graph's input and output names from its bytes, as an
// onnxruntime session reports them (initializers are not inputs), so the page can check
// that the split graphs fit before opening their sessions; bytes that are not ONNX fail.
import test from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { graphIoNames } from '../../runtime/onnx-io.js';
import { root } from './maps-support.js';

const models = path.join(root, 'build', 'models');
const entry = existsSync(path.join(models, 'index.json'))
  ? JSON.parse(readFileSync(path.join(models, 'index.json'), 'utf8')).models.find((m) => m.split)
  : null;
const skip = !entry && 'no split graphs in build/models (npm run build exports them)';

test('the names of every graph the page opens are those its session reports', { skip, timeout: 300_000 }, async () => {
  const read = (f) => readFileSync(path.join(models, f));
  const externalData = [{ path: entry.split.weights, data: read(entry.split.weights) }];
  for (const file of [entry.split.graph, entry.split.photo, entry.split.target]) {
    const bytes = read(file);
    const session = await ort.InferenceSession.create(bytes, { externalData });
    try {
      assert.deepEqual(graphIoNames(bytes), { inputNames: session.inputNames, outputNames: session.outputNames }, file);
    } finally {
      await session.release();
    }
  }
});

test('bytes that are not an ONNX model are refused', () => {
  assert.throws(() => graphIoNames(new TextEncoder().encode('not a model')), /protobuf|no graph/);
  assert.throws(() => graphIoNames(new Uint8Array(0)), /no graph/);
});
