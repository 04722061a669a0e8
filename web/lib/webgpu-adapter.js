// How the page offers WebGPU: only where the browser has an adapter, and never as the
// default when that adapter is a software or fallback one (SwiftShader, llvmpipe, …):
// there onnxruntime's WebGPU backend is correct but minutes slower than WebAssembly
// (issue 13: 177 s to become ready, 46 s per photo on SwiftShader).

// Adapter info naming a renderer that runs on the CPU.
const SOFTWARE = /swiftshader|llvmpipe|lavapipe|softpipe|microsoft basic render|\bwarp\b/i;

/**
 * → null (no WebGPU adapter), or { software, reason, label } for the backend selector.
 * @param {any} gpu navigator.gpu
 */
export async function webGpuOffer(gpu = globalThis.navigator?.gpu) {
  if (!gpu) return null;
  const adapter = await gpu.requestAdapter().catch(() => null);
  if (!adapter) return null;
  const info = adapter.info ?? {};
  const named = [info.vendor, info.architecture, info.device, info.description].filter(Boolean).join(' ');
  // isFallbackAdapter moved from the adapter to its info in the spec; browsers have either.
  const fallback = Boolean(info.isFallbackAdapter ?? adapter.isFallbackAdapter);
  const renderer = SOFTWARE.exec(named)?.[0];
  if (!fallback && !renderer) return { software: false, reason: null, label: 'WebGPU' };
  const what = renderer ? `a software renderer (${renderer})` : 'a fallback adapter';
  return {
    software: true,
    reason: `This browser's WebGPU adapter is ${what}${named ? `: ${named}` : ''}. It runs on the CPU, much slower than WebAssembly.`,
    label: `WebGPU (software${renderer ? `, ${renderer}` : ''}: slow)`,
  };
}

// Why WebGPU cannot run here, or null when an adapter exists: where it cannot, the Worker
// opens the model on WebAssembly and says so (issue 29: it fell back without a word).
export async function webGpuMissing(gpu = globalThis.navigator?.gpu) {
  if (!gpu) return 'this browser offers no WebGPU';
  return (await gpu.requestAdapter().catch(() => null)) ? null : 'this browser has no WebGPU adapter';
}
