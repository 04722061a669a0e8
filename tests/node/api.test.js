// The public Node API ("vit-relevance/node") on the real DeiT-tiny graph: the same maps as
// `vit-relevance explain`, targets by id, WordNet id, name and contrast, each with its
// probability and rank, the predicted class by default, render(); its last photo kept for
// other classes, the split graphs taken up to a size of weights; and the declarations the build emits type-check a consumer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, rmSync, symlinkSync, truncateSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import * as ort from 'onnxruntime-web';
import { readMaps, runCli, tempDir, root, maxRelativeDiff } from './maps-support.js';
import { argmax, deitModel, goldenInput, images, skipDeit } from './explain-support.js';
import { loadExplainer, patchMap, render } from '../../runtime/node/index.js';
import { openExplainerFile, NODE_SPLIT_WEIGHTS_BYTES } from '../../runtime/node/open-explainer.js';
import { readNpyFile } from '../../runtime/node/npy-file.js';
import { buildTypes } from '../../scripts/build/types.js';
import { projectPaths } from '../../scripts/paths.js';

const catdog = path.join(images, 'catdog.png');
const METHODS = ['transformer_attribution', 'attention_rollout', 'gradcam'];

test('the Node API on catdog gives the CLI\'s maps; classes by id, WordNet id, name; contrast', { skip: skipDeit }, async () => {
  const out = tempDir('vitrel-api-');
  const r = runCli(['explain', catdog, '--model', deitModel, '--class', '243', '--class', '282',
    '--method', METHODS.join(','), '--threads', '1', '--out', out]);
  assert.equal(r.status, 0, r.stderr);
  const cli = await readMaps(out);

  const explainer = await loadExplainer({ model: path.dirname(deitModel), threads: 1 });
  try {
    assert.equal(explainer.classId('n02108422'), 243);
    assert.equal(explainer.classId('tiger cat'), 282);
    assert.throws(() => explainer.classId('n99999999'), /n99999999 is not a WordNet id/);
    const result = await explainer.explain(readFileSync(catdog), { targets: [243, 'n02123159'], methods: METHODS });
    assert.deepEqual(result.top5.map((t) => t.id), cli.top5.map((t) => t.id));
    assert.deepEqual(result.targets.map((t) => [t.id, t.label]), [[243, 'bull mastiff'], [282, 'tiger cat']]);
    // Each explained class's standing: the top-5's probability and place, and the same in maps.json.
    for (const [k, t] of result.targets.entries()) {
      const inTop5 = result.top5.findIndex((c) => c.id === t.id);
      assert.ok(inTop5 >= 0, `${t.label} is in catdog's top-5`);
      assert.equal(t.rank, inTop5 + 1);
      assert.ok(Math.abs(t.prob - result.top5[inTop5].prob) < 1e-6, `${t.label}: ${t.prob}`);
      assert.deepEqual([cli.targets[k].rank, Math.fround(cli.targets[k].prob)], [t.rank, Math.fround(t.prob)]);
    }
    for (const [k, t] of result.targets.entries()) {
      for (const m of METHODS) {
        assert.deepEqual(t.maps[m].shape, cli.targets[k].maps[m].shape);
        // maps.json holds float32 values exactly (the shortest text that reads back as the float32).
        assert.deepEqual(Array.from(t.maps[m].data), cli.targets[k].maps[m].data.map(Math.fround), `${t.id} ${m}`);
      }
    }
    assert.notEqual(argmax(result.targets[0].maps.transformer_attribution.data), argmax(result.targets[1].maps.transformer_attribution.data));

    // Default: the predicted class, from a path; a contrast; render() draws something.
    const predicted = await explainer.explain(catdog);
    assert.equal(predicted.targets[0].id, 243);
    assert.deepEqual(Object.keys(predicted.targets[0].maps), ['transformer_attribution']);
    assert.deepEqual(predicted.region, { x: 0, y: 0, width: 224, height: 224 });
    const contrast = await explainer.explain(catdog, { targets: { class: 'tiger cat', contrast: 243 } });
    assert.deepEqual(contrast.targets[0].contrast, { id: 243, label: 'bull mastiff', prob: predicted.top5[0].prob, rank: 1 });
    // A class outside the top-5 has its rank too (lion is 13th on catdog), and its probability.
    const lion = (await explainer.explain(catdog, { targets: 'lion' })).targets[0];
    assert.equal(lion.rank, 13);
    assert.ok(lion.prob > 0 && lion.prob < predicted.top5[4].prob, `lion: ${lion.prob}`);
    const image = await render(contrast.targets[0].maps.transformer_attribution, { size: 64, colormap: 'viridis' });
    assert.equal(image.data.length, 64 * 64 * 4);
    assert.ok(new Set(Array.from({ length: 64 * 64 }, (_, i) => image.data[i * 4])).size > 10, 'render gave a flat image');

    await assert.rejects(explainer.explain(catdog, { methods: ['nope'] }), /unknown method "nope"/);
    await assert.rejects(explainer.explain(path.join(images, 'missing.png')), /missing\.png: no such file/);
  } finally {
    await explainer.close();
  }
});

// Which graphs a session's runs were, by their inputs: the explainer graph takes the
// pixels and the target rows, the photo graph the pixels alone, the class graph the target
// rows and the photo graph's tensors.
function recordGraphRuns() {
  const runs = [];
  const { run } = ort.InferenceSession.prototype;
  ort.InferenceSession.prototype.run = function recorded(feeds, ...rest) {
    const inputs = Object.keys(feeds);
    runs.push(inputs.includes('pixels') ? (inputs.includes('target') ? 'explainer' : 'photo') : 'class');
    return run.call(this, feeds, ...rest);
  };
  return { take: () => runs.splice(0), restore: () => { ort.InferenceSession.prototype.run = run; } };
}

test('the Node API keeps its last photo: a repeat runs the photo graph once, then each new class the class graph alone', { skip: skipDeit }, async () => {
  const model = path.dirname(deitModel);
  const [explainer, reference] = await Promise.all([loadExplainer({ model, threads: 1 }), loadExplainer({ model, threads: 1 })]);
  const graphs = recordGraphRuns();
  try {
    const first = await explainer.explain(catdog);
    assert.deepEqual(graphs.take(), ['explainer']);
    const tigerCat = await explainer.explain(readFileSync(catdog), { targets: [282] }); // the same photo, as bytes
    assert.deepEqual(graphs.take(), ['photo', 'class']);
    const mastiff = await explainer.explain(catdog, { targets: [null, 243] }); // explained before: no graph
    assert.deepEqual(graphs.take(), []);
    assert.deepEqual(mastiff.targets.map((t) => t.id), [243, 243]);
    assert.deepEqual(mastiff.top5, first.top5);
    const lion = await explainer.explain(catdog, { targets: ['lion'] });
    assert.deepEqual(graphs.take(), ['class']);
    await explainer.explain(path.join(images, 'dogbird.png'));
    assert.deepEqual(graphs.take(), ['explainer'], 'another photo is not the last one');
    await explainer.explain(catdog, { targets: [282] });
    assert.deepEqual(graphs.take(), ['explainer'], 'only the last photo is kept');

    // The class graph's maps are the single graph's, up to the order of float sums (as
    // tests/node/explainer-split.test.js bounds them).
    const single = await reference.explain(catdog, { targets: [282, 'lion'] });
    graphs.take();
    for (const [k, got] of [tigerCat, lion].entries()) {
      const want = single.targets[k];
      assert.equal(got.targets[0].id, want.id);
      const err = maxRelativeDiff(got.targets[0].maps.transformer_attribution.data, want.maps.transformer_attribution.data);
      assert.ok(err < 1e-3, `${want.label}: ${err}`);
    }
    // The same cached tensors give the same map.
    assert.deepEqual(mastiff.targets[1].maps.transformer_attribution, first.targets[0].maps.transformer_attribution);
  } finally {
    graphs.restore();
    await Promise.all([explainer.close(), reference.close()]);
  }
});

// A models folder's split graphs are taken up to NODE_SPLIT_WEIGHTS_BYTES of weights, with
// the explainer graph that reads the same weights file; above it (a copy of the folder with
// a sparse weights file one byte over) the explainer graph with its own weights, alone.
test('the Node API takes the split graphs up to NODE_SPLIT_WEIGHTS_BYTES of weights, and then their explainer graph', { skip: skipDeit }, async () => {
  const dir = path.dirname(deitModel);
  const { split } = JSON.parse(readFileSync(path.join(dir, 'index.json'), 'utf8')).models[0];
  const large = tempDir('vitrel-large-');
  for (const name of readdirSync(dir)) if (name !== split.weights) symlinkSync(path.join(dir, name), path.join(large, name));
  writeFileSync(path.join(large, split.weights), '');
  truncateSync(path.join(large, split.weights), NODE_SPLIT_WEIGHTS_BYTES + 1);
  const pixels = (await readNpyFile(goldenInput)).data;
  const outputs = ['attn_grad'];
  try {
    for (const [folder, splitTaken, graph] of [[dir, true, split.graph], [large, false, path.basename(deitModel)]]) {
      const explainer = await openExplainerFile(path.join(folder, path.basename(deitModel)), { threads: 1, split: true });
      try {
        assert.equal(explainer.canCachePhoto, splitTaken, folder);
        assert.equal((await explainer.explain(pixels, [null], { outputs })).graph, graph);
      } finally {
        await explainer.release();
      }
    }
  } finally {
    rmSync(large, { recursive: true, force: true });
  }
});

const tsc = path.join(root, 'node_modules', '.bin', 'tsc');
const typecheck = (config) => spawnSync(tsc, ['-p', config], { cwd: root, encoding: 'utf8' });

test('the declarations the build emits type-check a consumer, and reject a wrong one', async () => {
  await buildTypes(projectPaths()); // afresh from the sources, as `npm run build` does
  const good = typecheck('tests/types/tsconfig.json');
  assert.equal(good.status, 0, good.stdout + good.stderr);
  // The same settings on a consumer that misuses the API must fail: the check has teeth.
  const config = JSON.parse(readFileSync(path.join(root, 'tests/types/tsconfig.json'), 'utf8'));
  writeFileSync(path.join(root, 'tests/types/.wrong-consumer.ts'),
    "import { loadExplainer } from 'vit-relevance/node';\nexport const n: number = (await loadExplainer()).metadata;\n");
  config.files = ['.wrong-consumer.ts'];
  const wrongConfig = path.join(root, 'tests/types/.wrong.json');
  writeFileSync(wrongConfig, JSON.stringify(config));
  try {
    const bad = typecheck(wrongConfig);
    assert.notEqual(bad.status, 0);
    assert.match(bad.stdout, /ExplainerMetadata' is not assignable to type 'number'/);
  } finally {
    for (const f of ['.wrong-consumer.ts', '.wrong.json']) rmSync(path.join(root, 'tests/types', f), { force: true });
  }
});

test('patchMap: a pixel map summed over each patch, signed', async () => {
  const data = Float32Array.from({ length: 16 }, (_, i) => (i % 2 ? -i : i));
  // 2x2 patches of a 4x4 map: rows 0-1 x cols 0-1 hold 0, -1, 4, -5.
  const map = await patchMap({ shape: [4, 4], data }, [2, 2]);
  assert.deepEqual(map.shape, [2, 2]);
  assert.deepEqual([...map.data], [-2, -2, -2, -2]);
  await assert.rejects(patchMap({ shape: [4, 4], data }, [3, 2]), /the grid 3x2 does not divide the pixel map 4x4/);
});
