#!/usr/bin/env node
// Serves the page's sources as written, no bundle: the repository, with the build outputs
// the site's scripts load at run time mounted where web/lib/site-files.js looks for them
// beside web/'s top-level scripts (dist/site has them there). The page is /web/index.html;
// each page of web/ is served with the import map that names the runtime's modules
// (../runtime/: scripts/import-map.js). For debugging module by module, and for
// tests/browser/sources.test.js.
//   node scripts/serve-sources.js [port]     (PORT env also honoured; port 0 = any free one)
// COOP/COEP as the site's; no Content-Security-Policy: the inline import maps would need
// one of their own, and dist/site's pages (without them) are checked under the site's.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { projectPaths } from './paths.js';
import { sampleListing } from './build/site.js';
import { createStaticServer, listen, portSetting } from './serve.js';
import { headersFor } from './site-headers.js';
import { importMap, withImportMap } from './import-map.js';

// A page of web/ (its path in the repository, or null): served with the import map.
const PAGE = /^\/web\/([\w-]+\.html)$/;

export function createSourceServer(paths = projectPaths()) {
  const serve = (dir) => createStaticServer(dir, { csp: false });
  // URL prefix → what answers under it, longest prefix first.
  const mounts = [
    ['/web/models/', serve(paths.models)],
    ['/web/build/wasm/', serve(paths.wasm)],
    ['/web/ort/', serve(path.join(paths.root, 'node_modules', 'onnxruntime-web', 'dist'))],
    ['/web/samples/', serve(paths.sampleImages)],
    ['/', serve(paths.root)],
  ];
  const map = importMap(paths.root);
  return createServer((req, res) => {
    const pathname = new URL(req.url, 'http://x').pathname;
    const page = PAGE.exec(pathname === '/web/' ? '/web/index.html' : pathname)?.[1];
    if (page && (req.method === 'GET' || req.method === 'HEAD')) {
      readFile(path.join(paths.root, 'web', page), 'utf8').then((html) => {
        const body = withImportMap(html, map);
        const headers = headersFor(`/${page}`, { isolate: true });
        delete headers['Content-Security-Policy'];
        res.writeHead(200, { ...headers, 'Content-Type': 'text/html; charset=utf-8', 'Content-Length': Buffer.byteLength(body) });
        res.end(req.method === 'HEAD' ? undefined : body);
      }, () => res.writeHead(404).end());
      return;
    }
    if (pathname === '/web/samples/index.json') {
      sampleListing(paths.sampleImages).then((body) => {
        res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'Cross-Origin-Resource-Policy': 'same-origin' });
        res.end(body);
      }, () => res.writeHead(404).end());
      return;
    }
    const [prefix, files] = mounts.find(([p]) => pathname.startsWith(p));
    req.url = `/${pathname.slice(prefix.length)}`;
    files.emit('request', req, res);
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  try {
    const port = portSetting(process.argv[2] ?? process.env.PORT);
    const bound = await listen(createSourceServer(), port, process.env.HOST ?? '127.0.0.1');
    console.log(`serving the sources on http://localhost:${bound}/web/index.html`);
  } catch (err) {
    console.error(`serve-sources: ${err.message}`);
    process.exit(1);
  }
}
