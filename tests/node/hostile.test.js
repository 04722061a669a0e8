// The hostile-input suite (tests/hostile/cases.js) for the command line: every case gets
// exactly its message and exit code, and none ends in an internal error or a stack trace.
// Also: the table as a whole, and docs/errors.md is what it generates. (The page's cases
// run in tests/browser/hostile.test.js, the server's in tests/node/server-hostile.test.js.)
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { CASES } from '../hostile/cases.js';
import { writeFixtures } from '../hostile/fixtures.js';
import { eachLimited, fill, runCliCase } from '../hostile/run.js';
import { docFile, errorsDoc } from '../../scripts/errors-doc.js';
import { coreBuilt } from './explain-support.js';

const skip = coreBuilt ? false : 'the WebAssembly core is not built: run `npm run build`';
let tmp;
before(async () => { tmp = await writeFixtures(); });

const missing = (c) => c.requires && !existsSync(fill(c.requires.file, tmp)) && `needs ${c.requires.what}`;

function assertAnswer(c, { status, stderr }) {
  assert.doesNotMatch(stderr, /internal error|\n\s+at /, `${c.name}: an internal error or a stack trace:\n${stderr}`);
  assert.notEqual(status, 70, `${c.name}: exit 70`);
  if (c.message instanceof RegExp) assert.match(stderr, c.message, c.name);
  else assert.equal(stderr, c.message, c.name);
  assert.equal(status, c.exit, `${c.name}: exit code`);
  for (const file of c.absent ?? []) assert.ok(!existsSync(fill(file, tmp)), `${c.name}: ${file} exists`);
}

test('the table: at least 100 cases, each with its expected answer, names unique per surface', () => {
  assert.ok(CASES.length >= 100, `${CASES.length} cases`);
  for (const c of CASES) {
    assert.ok(['maps', 'explain', 'attribute', 'eval', 'export', 'page', 'server'].includes(c.surface), c.name);
    assert.ok(c.message !== null && c.message !== undefined, `${c.name}: no expected message`);
    if (c.request) assert.ok(Number.isInteger(c.status), `${c.name}: no expected status`);
    if (c.args || c.start) assert.ok(Number.isInteger(c.exit), `${c.name}: no expected exit code`);
  }
  const keys = CASES.map((c) => `${c.surface}: ${c.name}`);
  assert.deepEqual(keys.filter((k, i) => keys.indexOf(k) !== i), []);
});

test('docs/errors.md is generated from the table (npm run docs:errors)', () => {
  assert.equal(readFileSync(docFile, 'utf8'), errorsDoc(), 'docs/errors.md is stale: run `npm run docs:errors`');
});

test('command line: every case answers with its message and exit code', { skip }, async (t) => {
  const cases = CASES.filter((c) => c.args);
  // Two at a time: each is a process of its own; the machine's cores are shared.
  const results = await eachLimited(cases, 2, (c) => (missing(c) ? null : runCliCase(c, tmp)));
  for (const [i, c] of cases.entries()) {
    await t.test(`${c.surface}: ${c.name}`, { skip: missing(c) }, () => assertAnswer(c, results[i]));
  }
});
