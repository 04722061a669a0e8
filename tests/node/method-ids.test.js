// runtime/method-ids.js, the MethodId type of the public declarations, is the core's method
// registry written out (scripts/build/method-ids.js): the committed file must say what the
// built core says, so a method added to src/methods/registry.cpp reaches the types.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadCore } from '../../runtime/core.js';
import { methodIdsFile, methodIdsModule } from '../../scripts/build/method-ids.js';
import { root } from './maps-support.js';

test('runtime/method-ids.js lists the core registry\'s methods, in its order', async () => {
  const { methodIds } = await loadCore();
  for (const id of ['attattr', 'attnlrp', 'cp_lrp']) assert.ok(methodIds.includes(id), `the core lacks ${id}`);
  assert.equal(readFileSync(methodIdsFile(root), 'utf8'), methodIdsModule(methodIds),
    'runtime/method-ids.js disagrees with the core\'s registry: run `npm run build`');
});
