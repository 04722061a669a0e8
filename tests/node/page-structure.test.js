// The page's structure (docs/architecture.md, "The page: one controller, one store"): its
// modules import each other in no circle, the feature modules import no other feature, and
// only the controller runs the flow's steps.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = fileURLToPath(new URL('../..', import.meta.url));
const FEATURES = ['status', 'link', 'model', 'photo-input', 'classes', 'settings', 'attribution', 'views', 'readout', 'downloads']
  .map((f) => `web/page/${f}.js`);
const STEPS = ['web/page/model-load.js', 'web/page/analysis.js'];

function modulesUnder(dir) {
  return readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return modulesUnder(rel);
    return e.name.endsWith('.js') ? [rel] : [];
  });
}

// Relative static imports at the start of a line (not in comments), as repository paths.
function importsOf(file) {
  const text = readFileSync(path.join(root, file), 'utf8');
  return [...text.matchAll(/^[ \t]*(?:import|export)\b[^'"`;]*?\bfrom\s*'(\.[^']+)'/gm)]
    .map((m) => path.posix.join(path.posix.dirname(file), m[1]));
}

const graph = new Map(['web/app.js', ...modulesUnder('web/page'), ...modulesUnder('web/lib')].map((f) => [f, importsOf(f)]));

test('the page\'s modules import each other in no circle', () => {
  const state = new Map(); // file → 'open' while its imports are walked, then 'done'
  const visit = (file, trail) => {
    if (state.get(file) === 'done' || !graph.has(file)) return;
    assert.notEqual(state.get(file), 'open', `a circle: ${[...trail, file].join(' → ')}`);
    state.set(file, 'open');
    for (const next of graph.get(file)) visit(next, [...trail, file]);
    state.set(file, 'done');
  };
  for (const file of graph.keys()) visit(file, []);
});

test('a feature module imports no other feature, nor the controller or its steps', () => {
  for (const feature of FEATURES) {
    const wrong = graph.get(feature).filter((f) => FEATURES.includes(f) || STEPS.includes(f) || f === 'web/page/controller.js');
    assert.deepEqual(wrong, [], `${feature} imports ${wrong.join(', ')}`);
  }
});

test('the controller and its steps import no feature (what they give reaches the features through the store)', () => {
  for (const file of ['web/page/controller.js', ...STEPS]) {
    const wrong = graph.get(file).filter((f) => FEATURES.includes(f));
    assert.deepEqual(wrong, [], `${file} imports ${wrong.join(', ')}`);
  }
});

test('only app.js binds the features and starts the controller', () => {
  for (const [file, imports] of graph) {
    if (file === 'web/app.js') continue;
    assert.ok(!imports.includes('web/page/controller.js'), `${file} imports the controller`);
  }
});
