// A consumer of the public API, type-checked (tsc --noEmit, tests/node/api-types.test.js)
// against the declarations the package ships, through its own "exports".
import { loadExplainer, render, runtimeStats, type ExplainResult } from 'vit-relevance';
import { loadExplainer as loadInNode, render as renderInNode } from 'vit-relevance/node';
import 'vit-relevance/element';

export async function inThePage(file: File): Promise<ImageData> {
  const explainer = await loadExplainer({ model: 'models/', onProgress: (loaded, total) => console.log(loaded / total) });
  const result: ExplainResult = await explainer.explain(file, {
    targets: ['bull mastiff', { class: 243, contrast: 'tiger cat' }, null],
    methods: ['transformer_attribution', 'attention_rollout'],
  });
  const photo = await explainer.open('photo.jpg');
  await photo.explain({ targets: 282 });
  photo.close();
  const { sessions, graphRuns } = await runtimeStats();
  console.log(sessions + graphRuns);
  const el = document.createElement('vit-relevance');
  el.src = 'photo.jpg';
  el.addEventListener('explained', (e) => console.log(e.detail.top5[0].label));
  const map = result.targets[0].maps.transformer_attribution;
  return render(map, { colormap: 'viridis', opacity: 0.6, photo: photo.bitmap, region: result.region });
}

export async function inNode(): Promise<number> {
  const explainer = await loadInNode({ model: 'build/models', engine: 'web' });
  const result = await explainer.explain('catdog.png', { targets: [explainer.classId('n02108422')] });
  const { data, width } = await renderInNode(result.targets[0].maps.transformer_attribution, { size: 224 });
  await explainer.close();
  return data.length / width;
}
