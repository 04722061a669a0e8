// docs/hosting.md's nginx configuration, as the page prints it, run by a real nginx on
// 127.0.0.1: every route gets the headers and the MIME type the Node server sends.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { headersFor } from '../../scripts/site-headers.js';
import { createStaticServer, listen } from '../../scripts/serve.js';

const NGINX = '/usr/sbin/nginx';
const skip = spawnSync(NGINX, ['-v']).error ? `no ${NGINX} (apt-get install nginx-light; CI does, in .ci/run)` : false;
const repo = fileURLToPath(new URL('../..', import.meta.url));
const ROUTES = ['/', '/index.html', '/embed.html', '/docs.html', '/worker.js', '/app.js',
  '/ort/ort.wasm.min.mjs', '/ort/v1.2.3/ort-wasm-simd-threaded.mjs', '/ort/v1.2.3/ort-wasm-simd-threaded.wasm', '/models/index.json'];
const COMPARED = [...Object.keys(headersFor('/index.html')), 'Content-Type'];

// Content-Type without its charset (nginx adds none unless told); other headers as they are.
const mediaType = (value) => value?.replace(/; charset=utf-8$/, '') ?? null;

async function untilListening(port, log) {
  for (let i = 0; i < 100; i++) {
    try { await fetch(`http://127.0.0.1:${port}/`); return; } catch { await new Promise((r) => setTimeout(r, 50)); }
  }
  assert.fail(`nginx did not start: ${log()}`);
}

const freePort = () => new Promise((resolve) => {
  const s = net.createServer().listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
});

test('nginx with the configuration of docs/hosting.md sends what the Node server sends', { skip }, async () => {
  const doc = readFileSync(path.join(repo, 'docs', 'hosting.md'), 'utf8');
  const blocks = [...doc.matchAll(/```nginx\n([\s\S]*?)```/g)].map((m) => m[1]);
  assert.equal(blocks.length, 3, 'docs/hosting.md has the http block, the server block and the types');
  const [httpBlock, serverBlock, types] = blocks;

  const dir = mkdtempSync(path.join(tmpdir(), 'vitrel-nginx-'));
  const root = path.join(dir, 'site');
  for (const route of ROUTES.filter((r) => r !== '/')) {
    mkdirSync(path.dirname(path.join(root, route)), { recursive: true });
    writeFileSync(path.join(root, route), route);
  }
  const port = await freePort();
  writeFileSync(path.join(dir, 'nginx.conf'), `daemon off;
master_process off;
pid ${dir}/nginx.pid;
error_log stderr;
events {}
http {
  include /etc/nginx/mime.types;
  ${types}
  access_log off;
  client_body_temp_path ${dir}/body;
  ${['proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `${t}_temp_path ${dir}/${t};`).join('\n  ')}
  ${httpBlock}
  server {
    listen 127.0.0.1:${port};
    root ${root};
    index index.html;
    ${serverBlock}
  }
}
`);
  const nginx = spawn(NGINX, ['-p', dir, '-c', path.join(dir, 'nginx.conf')], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  nginx.stderr.on('data', (d) => { stderr += d; });
  const node = createStaticServer(root);
  const nodeBase = `http://127.0.0.1:${await listen(node, 0)}`;
  try {
    await untilListening(port, () => stderr);
    for (const route of ROUTES) {
      const [fromNginx, fromNode] = await Promise.all([fetch(`http://127.0.0.1:${port}${route}`), fetch(`${nodeBase}${route}`)]);
      assert.equal(fromNginx.status, 200, `${route}: ${stderr}`);
      // and the headers only some routes get (the versioned files' Cache-Control)
      for (const name of new Set([...COMPARED, ...Object.keys(headersFor(route))])) {
        assert.equal(mediaType(fromNginx.headers.get(name)), mediaType(fromNode.headers.get(name)), `${route}: ${name}`);
      }
    }
  } finally {
    nginx.kill();
    node.close();
  }
});
