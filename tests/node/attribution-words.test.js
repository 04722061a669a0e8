// The Attribution panel's words: each state says what to do next; the hint fits the depth.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { blocksHint, panelStatus } from '../../web/page/lib/attribution-words.js';

test('the block hint names indices the model has', () => {
  assert.equal(blocksHint(12), 'all, or indices 0..11 such as 0,6,11');
  assert.equal(blocksHint(4), 'all, or indices 0..3 such as 0,2,3');
  assert.equal(blocksHint(1), 'all, or indices 0..0 such as 0');
});

test('every state of the panel says what to do next', () => {
  const base = { photo: true, label: 'king penguin', blocks: 4, steps: 20 };
  assert.match(panelStatus({ photo: false }), /^Choose a photo first/);
  assert.match(panelStatus({ ...base, label: null, done: 0 }), /^Choose a class/);
  assert.match(panelStatus({ ...base, done: 0 }), /^Press Attribute .* for king penguin \(4 blocks, m = 20 steps each\)/);
  assert.match(panelStatus({ ...base, done: 3 }), /3 of 4 blocks attributed .* set Blocks to "all" and press Attribute \(only the 1 missing are computed\)/);
  assert.match(panelStatus({ ...base, done: 4 }), /all 4 blocks attributed \(m = 20\)\. Hover a cell/);
});
