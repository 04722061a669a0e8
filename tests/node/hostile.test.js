// The hostile-input suite (tests/hostile/cases.js) for the command line and the static
// server: every case gets exactly its message and exit code (or status), and none ends in
// an internal error or a stack trace. Also: docs/errors.md is what the table generates.
import { test, before } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import http from 'node:http';
import path from 'node:path';
import { CASES } from '../hostile/cases.js';
import { writeFixtures } from '../hostile/fixtures.js';
import { eachLimited, fill, runCliCase } from '../hostile/run.js';
import { createStaticServer, listen } from '../../scripts/serve.js';
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
}

test('the table: at least 100 cases, each with its expected answer, names unique per surface', () => {
  assert.ok(CASES.length >= 100, `${CASES.length} cases`);
  for (const c of CASES) {
    assert.ok(['maps', 'explain', 'eval', 'page', 'server'].includes(c.surface), c.name);
    assert.ok(c.surface === 'server' ? Number.isInteger(c.status) : c.message !== null && c.message !== undefined, `${c.name}: no expected answer`);
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

test('static server: every case answers with its status, and the server keeps serving', async (t) => {
  const server = createStaticServer(path.join(tmp, 'site'));
  const port = await listen(server, 0);
  t.after(() => server.close());
  const send = ({ method, path: p }) => new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method, path: p }, (res) => {
      let body = '';
      res.on('data', (d) => { body += d; });
      res.on('end', () => resolve({ status: res.statusCode, body }));
    });
    req.on('error', reject);
    req.end();
  });
  for (const c of CASES.filter((x) => x.surface === 'server')) {
    await t.test(c.name, async () => {
      const r = await send(c.request);
      assert.equal(r.status, c.status);
      assert.doesNotMatch(r.body, /secret|\n\s+at /);
      assert.equal((await send({ method: 'GET', path: '/' })).status, 200, 'still serving');
    });
  }
});
