// `vit-relevance eval prune-heads --text` on the built default text model and SST-2 dev
// (../shared): a small real run whose unmasked accuracy (rate 0) is the plain model's on
// the same held-out sentences (through the Node API, another graph), whose rate 1 masks
// every head for every measure alike, and whose shards merge into the bytes of one run.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { DEFAULT_TEXT_MODEL, loadExplainer } from '../../runtime/node/index.js';
import { runCli, shared, tempDir } from './maps-support.js';

const dev = path.join(shared, 'text', 'sst2', 'dev.tsv');
const skip = !existsSync(DEFAULT_TEXT_MODEL) ? 'the default text model is not built: run `npm run build`'
  : !existsSync(dev) ? 'no SST-2 dev set in the shared folder' : false;
const RANK = 4;
const HELD = 6;
const base = ['eval', 'prune-heads', '--text', '--data', dev, '--rank-texts', String(RANK), '--steps', '4', '--quiet'];
const read = (dir, f) => readFileSync(path.join(dir, f), 'utf8');

test('prune-heads --text: rate 0 is the plain model\'s accuracy, rate 1 the same for every measure, shards merge exactly', { skip, timeout: 900_000 }, async () => {
  const one = tempDir('vitrel-prune-text-');
  let r = runCli([...base, '--limit', String(HELD), '--out', one]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, new RegExp(`ranked ${RANK} sentence\\(s\\).*evaluated ${HELD} held-out`));
  const s = JSON.parse(read(one, 'prune-heads.json'));
  assert.deepEqual(s.by, ['attribution', 'attention', 'taylor', 'random']);
  assert.equal(s.blocks * s.heads, 16, 'bert-mini: 4 blocks of 4 heads');

  const sentences = read(path.dirname(dev), 'dev.tsv').split('\n').slice(1).filter(Boolean).slice(RANK, RANK + HELD)
    .map((line) => line.split('\t'));
  const explainer = await loadExplainer({ model: DEFAULT_TEXT_MODEL });
  let right = 0;
  try {
    for (const [label, text] of sentences) {
      const { logits } = await explainer.forward(text);
      if ((logits[1] > logits[0] ? 1 : 0) === Number(label)) right++;
    }
  } finally {
    await explainer.close();
  }
  for (const m of s.by) {
    assert.equal(s.accuracy[m][0], right / HELD, `${m} at rate 0`);
    assert.equal(s.accuracy[m].at(-1), s.accuracy.random.at(-1), `${m} at rate 1: every head masked`);
  }
  for (const f of ['prune-heads.md', 'prune-heads.csv', 'prune-heads.svg', 'prune-heads-per-block.csv']) assert.ok(existsSync(path.join(one, f)), f);
  assert.match(read(one, 'prune-heads.md'), new RegExp(`ranked on ${RANK} sentences, top-1 on ${HELD}`), 'the report speaks of sentences');

  const parts = [1, 2].map((i) => {
    const dir = tempDir(`vitrel-prune-text-${i}-`);
    const p = runCli([...base, '--limit', String(HELD / 2), '--shard', `${i}/2`, '--out', dir]);
    assert.equal(p.status, 0, p.stderr);
    return dir;
  });
  const merged = path.join(tempDir('vitrel-prune-text-m-'), 'all');
  r = runCli(['eval', 'merge', ...parts, '--out', merged]);
  assert.equal(r.status, 0, r.stderr);
  for (const f of readdirSync(one)) assert.equal(read(merged, f), read(one, f), f);
});
