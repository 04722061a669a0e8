// A consumer of the public API, type-checked (tsc --noEmit, tests/node/api.test.js)
// against the declarations the package ships, through its own "exports".
import { loadExplainer, render, runtimeStats, decodePhoto, type ExplainResult, type LoadPhase, type MethodId, type MethodInfo, type Prediction, type BrowserProgressInfo } from 'vit-relevance';
import { loadExplainer as loadInNode, render as renderInNode, decodePhoto as decodeInNode, readModel } from 'vit-relevance/node';
import 'vit-relevance/element';

export async function inThePage(file: File): Promise<ImageData> {
  const phasesSeen: LoadPhase[] = [];
  const explainer = await loadExplainer({ model: 'models/', onProgress: (info) => { if (info.status === 'progress') { phasesSeen.push(...info.phases); console.log(info.loaded / info.total); } } });
  // @ts-expect-error: a load phase is one of the Worker's (web/lib/load-phases.js)
  const phase: LoadPhase = 'downloading';
  // Every method of the core's registry is a MethodId, and nothing else is.
  const methods: MethodId[] = ['attattr', 'attnlrp', 'cp_lrp', 'lrp_full'];
  // @ts-expect-error: not a method of the registry
  const wrong: MethodId = 'rollout';
  const info: MethodInfo = explainer.method('attnlrp');
  const canContrast: boolean = info.contrast;
  // @ts-expect-error: an explanation's methods are MethodIds
  await explainer.explain(file, { methods: ['transformer_attribution', 'nope'] });
  const result: ExplainResult = await explainer.explain(file, {
    targets: ['bull mastiff', { class: 243, contrast: 'tiger cat' }, null],
    methods: ['transformer_attribution', 'attention_rollout'],
  });
  const photo = await explainer.open('photo.jpg');
  await photo.explain({ targets: 282 });
  photo.close();
  const { sessions, graphRuns } = await runtimeStats();
  console.log(sessions + graphRuns, phasesSeen, phase, methods, wrong, canContrast);
  const el = document.createElement('vit-relevance');
  el.src = 'photo.jpg';
  el.classId = 243;
  el.target = 'bull mastiff'; // the older name of classId, kept as its alias
  const shownClass: string | null = el.classId;
  el.method = ['transformer_attribution', 'attnlrp'];
  el.opacity = 0.6;
  const opacity: number = el.opacity;
  const start = el.startLayer; // a block number, or 'last'
  const firstBlock: number = start === 'last' ? 11 : start;
  el.colormap = 'viridis';
  // @ts-expect-error: not a colormap
  el.colormap = 'rainbow';
  // @ts-expect-error: a number or 'last', never any other text
  const layer: string = el.startLayer;
  el.addEventListener('explained', (e) => console.log(e.detail.top5[0].label, e.detail.backend));
  el.addEventListener('progress', (e) => console.log(e.detail.loaded, e.detail.phases.includes('compile'), opacity, layer, firstBlock, shownClass));
  const map = result.targets[0].maps.transformer_attribution;
  return render(map, { colormap: 'viridis', opacity: 0.6, photo: photo.bitmap, region: result.region });
}

// What the page uses: an early Worker, prepared sessions, notices, a decoded photo with its
// crop and EXIF options, the prediction before the maps, abort, attribution, timed forwards.
export async function asThePage(file: File, worker: Worker): Promise<number> {
  const statuses: BrowserProgressInfo['status'][] = [];
  const explainer = await loadExplainer({ model: { base: 'https://example.org/models/', entry: { name: 'm' } }, prepare: true, worker, onProgress: (info) => {
    statuses.push(info.status);
    if (info.status === 'photo-cached') console.log(info.photo.name, info.modelMs);
    // @ts-expect-error: only a photo's reports name a photo
    if (info.status === 'explainer-ready') console.log(info.photo);
  } });
  const decoded = await decodePhoto(file, { exif: 'ignore' });
  // @ts-expect-error: exif is 'use' or 'ignore'
  await decodePhoto(file, { exif: 'rotate' });
  // @ts-expect-error: crop is 'center' or 'none'
  await explainer.open(decoded, { crop: 'middle' });
  const photo = await explainer.open(decoded, { crop: 'none' });
  const controller = new AbortController();
  let predicted: Prediction | null = null;
  const result = await photo.explain({ targets: [243], signal: controller.signal, onPrediction: (p) => { predicted = p; } });
  const { class: explained, prob } = await photo.attribute({ class: 'tiger cat', blocks: [0], steps: 2, onBlock: ({ attr, done, total }) => console.log(attr.length, done / total) });
  const times: number[] = await photo.timeForward(3);
  const again = await explainer.open(photo); // another explainer's photo opens as decoded
  console.log(statuses, predicted, result.targets[0].id, explained, prob, photo.logits?.length, decoded.original.width, explainer.load.compileMs);
  again.close();
  explainer.close();
  return times.length;
}

export async function inNode(): Promise<number> {
  const explainer = await loadInNode({ model: await readModel('build/models'), engine: 'web', onProgress: (info) => console.log(info.status) });
  const result = await explainer.explain('catdog.png', { targets: [explainer.classId('n02108422')], crop: 'none', exif: 'ignore' });
  // The browser's open(image, { crop, exif }), the same options, the same result.
  const photo = await explainer.open(await decodeInNode('catdog.png', { exif: 'use' }), { crop: 'center' });
  // @ts-expect-error: crop is 'center' or 'none'
  await explainer.open('catdog.png', { crop: 'middle' });
  const again: typeof result = await photo.explain({ targets: [243] });
  const drawn = await renderInNode(again.targets[0].maps.transformer_attribution, { photo, region: photo.region });
  photo.close();
  const { data, width } = await renderInNode(result.targets[0].maps.transformer_attribution, { size: 224 });
  await explainer.close();
  return data.length / width + drawn.width;
}
