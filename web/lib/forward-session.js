// The plain forward graph (models/index.json "forward_onnx": pixels → logits). Fetching
// only `logits` from the explainer graph still runs most of it, so the page classifies
// with this graph (several times faster) and runs the explainer only to explain.
export async function openForward(ort, bytes, name) {
  let session;
  try {
    session = await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'] });
  } catch (err) {
    throw new Error(`${name} is not an ONNX model: ${err.message}`);
  }
  if (!session.inputNames.includes('pixels') || !session.outputNames.includes('logits')) {
    await session.release();
    throw new Error(`${name} must take "pixels" and give "logits" (it has ${session.inputNames} → ${session.outputNames})`);
  }
  return {
    async predict(pixels, [H, W]) {
      const started = performance.now();
      const out = await session.run({ pixels: new ort.Tensor('float32', pixels.data ?? pixels, [1, 3, H, W]) }, ['logits']);
      return { logits: out.logits.data, timings: { modelMs: performance.now() - started } };
    },
    release: () => session.release(),
  };
}
