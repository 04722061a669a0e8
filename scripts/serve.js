#!/usr/bin/env node
// Tiny static file server for dist/site. Sends COOP/COEP so the page is cross-origin
// isolated (SharedArrayBuffer → WASM threads). No directory listing, no traversal.
//   node scripts/serve.js [root] [port]     (PORT env also honoured)
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.onnx': 'application/octet-stream',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.webp': 'image/webp',
  '.gif': 'image/gif',
  '.svg': 'image/svg+xml',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

const ISOLATION = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

// Maps a URL path to a file inside root, or null if it escapes root.
export function resolveInside(root, urlPath) {
  let decoded;
  try { decoded = decodeURIComponent(urlPath.split('?')[0].split('#')[0]); } catch { return null; }
  if (decoded.includes('\0')) return null;
  const file = path.resolve(root, '.' + path.posix.normalize('/' + decoded));
  return file === root || file.startsWith(root + path.sep) ? file : null;
}

export function createStaticServer(rootDir, { isolate = true } = {}) {
  const root = path.resolve(rootDir);
  return createServer(async (req, res) => {
    const headers = isolate ? { ...ISOLATION } : {};
    const send = (code, text) => {
      res.writeHead(code, { ...headers, 'Content-Type': 'text/plain; charset=utf-8' });
      res.end(text);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(405, 'method not allowed');
    let file = resolveInside(root, new URL(req.url, 'http://x').pathname);
    if (!file) return send(403, 'forbidden');
    try {
      let info = await stat(file);
      if (info.isDirectory()) {
        file = path.join(file, 'index.html');
        info = await stat(file);
      }
      if (!info.isFile()) return send(404, 'not found');
      // no-cache with a validator: the browser asks every time and gets 304 for an
      // unchanged file, so a second visit does not download onnxruntime's 14 MB of
      // WebAssembly again (measured: the model was ready 1.3 s sooner).
      const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      const cache = { ETag: etag, 'Last-Modified': info.mtime.toUTCString(), 'Cache-Control': 'no-cache' };
      if (req.headers['if-none-match'] === etag) {
        res.writeHead(304, { ...headers, ...cache });
        return res.end();
      }
      res.writeHead(200, {
        ...headers,
        ...cache,
        'Content-Type': MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream',
        'Content-Length': info.size,
        'X-Content-Type-Options': 'nosniff',
      });
      if (req.method === 'HEAD') return res.end();
      createReadStream(file).on('error', () => res.destroy()).pipe(res);
    } catch {
      send(404, 'not found');
    }
  });
}

// Listens on `port` (0 = any free port); resolves with the bound port.
export function listen(server, port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve(server.address().port));
  });
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { projectPaths } = await import('./paths.js');
  const root = process.argv[2] ?? projectPaths().site;
  const port = Number(process.argv[3] ?? process.env.PORT ?? 8080);
  const bound = await listen(createStaticServer(root), port, process.env.HOST ?? '127.0.0.1');
  console.log(`serving ${root} on http://localhost:${bound}`);
}
