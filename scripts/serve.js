#!/usr/bin/env node
// Static file server for dist/site, with the headers of scripts/site-headers.js (COOP/COEP
// for WebAssembly threads, the Content-Security-Policy). No directory listing; nothing
// outside the root, through `..` or through symbolic links. Every request gets an answer
// and none can stop the server (tests/node/server-*.test.js fuzz it).
//   node scripts/serve.js [root] [port]     (PORT env also honoured; port 0 = any free one)
import { createServer, maxHeaderSize } from 'node:http';
import { open, realpath } from 'node:fs/promises';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { fileURLToPath } from 'node:url';
import { DEFAULT_DOCUMENT_POLICY, headersFor } from './site-headers.js';

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
  '.md': 'text/markdown; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
};

// A refusal: status code and the one-line text sent as the body.
export class Refusal extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

// The error texts, one home each (tests compare bodies against these).
export const REFUSALS = {
  method: new Refusal(405, 'method not allowed: this server answers GET and HEAD only'),
  target: new Refusal(400, 'bad request: the request target is not a path'),
  encoding: new Refusal(400, 'bad request: the path has malformed percent-encoding'),
  nul: new Refusal(400, 'bad request: the path contains a NUL byte'),
  host: new Refusal(400, 'bad request: an HTTP/1.1 request needs a Host header'),
  outside: new Refusal(403, 'forbidden: the path leads outside the site folder'),
  unreadable: new Refusal(403, 'forbidden: the file is not readable'),
  notFound: new Refusal(404, 'not found'),
  internal: new Refusal(500, 'internal error'),
};
// What the HTTP parser refuses before a request exists (see clientError below).
export const PARSER_REFUSALS = {
  HPE_HEADER_OVERFLOW: [431, 'Request Header Fields Too Large', `request header fields too large (${maxHeaderSize} bytes at most)`],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'Request Timeout', 'request timeout: the request did not arrive in time'],
  default: [400, 'Bad Request', 'bad request: malformed HTTP'],
};

// The URL path of a request target: origin-form (/a/b?q) or absolute-form
// (http://host/a/b); anything else, or a target URL cannot parse, is refused.
export function targetPath(target) {
  if (typeof target !== 'string') throw REFUSALS.target;
  if (target.startsWith('/')) return target.replace(/[?#].*$/s, '');
  let url;
  try { url = new URL(target); } catch { throw REFUSALS.target; }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw REFUSALS.target;
  return url.pathname;
}

const isInside = (root, file) => file === root || file.startsWith(root + path.sep);

// The file a URL path names inside root (lexically: `..` cannot climb out), and the
// decoded, normalised URL path the header rules are matched against.
export function resolveInside(root, urlPath) {
  let decoded;
  try { decoded = decodeURIComponent(urlPath); } catch { throw REFUSALS.encoding; }
  if (decoded.includes('\0')) throw REFUSALS.nul;
  const sitePath = path.posix.normalize('/' + decoded);
  const file = path.join(root, sitePath);
  if (!isInside(root, file)) throw REFUSALS.outside;
  return { file, sitePath };
}

const MISSING = new Set(['ENOENT', 'ENOTDIR', 'ENAMETOOLONG', 'ELOOP']);
const refusalOf = (err) => (MISSING.has(err.code) ? REFUSALS.notFound : err.code === 'EACCES' ? REFUSALS.unreadable : err);

// Opens `file` with its links resolved, if it stays inside realRoot: { handle, info }.
async function openResolved(realRoot, file) {
  let real;
  try { real = await realpath(file); } catch (err) { throw refusalOf(err); }
  if (!isInside(realRoot, real)) throw REFUSALS.outside;
  const handle = await open(real, 'r').catch((err) => { throw refusalOf(err); });
  try {
    return { handle, info: await handle.stat() };
  } catch (err) {
    await handle.close();
    throw err;
  }
}

// Opens the file a URL path names; a link that leads outside the (resolved) root is
// refused like `..`. A folder serves its index.html. → { handle, info, sitePath }
async function openInside(root, urlPath) {
  const { file, sitePath } = resolveInside(root, urlPath);
  const realRoot = await realpath(root).catch(() => { throw REFUSALS.notFound; });
  const named = await openResolved(realRoot, file);
  if (named.info.isFile()) return { ...named, sitePath };
  await named.handle.close();
  if (!named.info.isDirectory()) throw REFUSALS.notFound;
  const index = await openResolved(realRoot, path.join(file, 'index.html'));
  if (index.info.isFile()) return { ...index, sitePath: path.posix.join(sitePath, 'index.html') };
  await index.handle.close();
  throw REFUSALS.notFound;
}

// Headers for a site path; an HTML file no rule gives a policy gets the document policy.
function siteHeaders(sitePath, options) {
  const headers = headersFor(sitePath, options);
  if (!options.csp) {
    delete headers['Content-Security-Policy'];
    return headers;
  }
  if (sitePath.endsWith('.html')) headers['Content-Security-Policy'] ??= DEFAULT_DOCUMENT_POLICY;
  if (options.cspReportUri && headers['Content-Security-Policy']) {
    headers['Content-Security-Policy'] += `; report-uri ${options.cspReportUri}`;
  }
  return headers;
}

// options: isolate (COOP/COEP/CORP, default true); csp (the Content-Security-Policy, default
// true); cspReportUri (appended to every policy as report-uri, for tests that collect
// violation reports).
export function createStaticServer(rootDir, options = {}) {
  const root = path.resolve(rootDir);
  const opts = { isolate: true, csp: true, ...options };
  // The Host check is ours (below), so that its answer says what is wrong.
  const server = createServer({ requireHostHeader: false }, (req, res) => {
    // A client that goes away mid-request must not raise an unhandled 'error'.
    req.on('error', () => {});
    res.on('error', () => {});
    answer(root, opts, req, res).catch((err) => {
      const refusal = err instanceof Refusal ? err : REFUSALS.internal;
      if (!(err instanceof Refusal)) console.error(`serve: ${req.method} ${JSON.stringify(req.url)}: ${err.stack ?? err}`);
      if (res.headersSent) return res.destroy();
      res.writeHead(refusal.status, {
        ...headersFor('/*', opts), // the headers every path gets
        'Content-Type': 'text/plain; charset=utf-8',
        'Content-Length': Buffer.byteLength(refusal.message + '\n'),
        ...(refusal === REFUSALS.method ? { Allow: 'GET, HEAD' } : {}),
      });
      res.end(req.method === 'HEAD' ? undefined : refusal.message + '\n');
    });
  });
  // Requests the HTTP parser rejects (bad syntax, huge headers) never reach the handler:
  // answer them here and close, as Node would, with the parser's reason.
  server.on('clientError', (err, socket) => {
    // Node's own default does the same check: never write into a response under way.
    if (!socket.writable || err.code === 'ECONNRESET' || socket._httpMessage?.headersSent) return socket.destroy();
    const [status, reason, text] = PARSER_REFUSALS[err.code] ?? PARSER_REFUSALS.default;
    socket.end(rawResponse(status, reason, text));
  });
  // CONNECT (a proxy tunnel) never reaches the request handler; without a listener Node
  // would just drop the connection.
  server.on('connect', (req, socket) => {
    socket.on('error', () => {});
    const { status, message } = REFUSALS.method;
    socket.end(rawResponse(status, 'Method Not Allowed', message, 'Allow: GET, HEAD\r\n'));
  });
  return server;
}

// A whole response written straight to a socket (no request object exists there).
function rawResponse(status, reason, text, extraHeaders = '') {
  const body = `${text}\n`;
  return `HTTP/1.1 ${status} ${reason}\r\nContent-Type: text/plain; charset=utf-8\r\n` +
    `Content-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}Connection: close\r\n\r\n${body}`;
}

const UNSATISFIABLE = Symbol('unsatisfiable');

// The one byte range a Range header asks of a file of `size` bytes: { start, end }
// (inclusive), UNSATISFIABLE, or null for the whole file: no header, one this server does
// not take (another unit, malformed) or several ranges, which are answered with the whole
// file as RFC 9110 allows (a resuming download asks for one).
export function byteRange(header, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? '');
  if (!m || (m[1] === '' && m[2] === '')) return null;
  if (m[1] === '') {
    const suffix = Number(m[2]); // the last N bytes
    return suffix === 0 || size === 0 ? UNSATISFIABLE : { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(m[1]);
  const last = m[2] === '' ? Infinity : Number(m[2]);
  if (last < start) return null;
  return start >= size ? UNSATISFIABLE : { start, end: Math.min(last, size - 1) };
}

async function answer(root, opts, req, res) {
  if (req.method !== 'GET' && req.method !== 'HEAD') throw REFUSALS.method;
  if (req.httpVersion === '1.1' && req.headers.host === undefined) throw REFUSALS.host;
  const { handle, info, sitePath } = await openInside(root, targetPath(req.url));
  // From here the handle is ours: every path below closes it exactly once (the stream
  // closes it when it ends, fails or is destroyed by pipeline on a client abort).
  let stream = null;
  try {
    // no-cache with a validator: the browser asks every time and gets 304 for an unchanged
    // file, so a second visit downloads nothing again (measured: the model was ready 1.3 s
    // sooner). The table's Cache-Control wins: versioned files are immutable.
    const etag = `W/"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
    const headers = {
      'Cache-Control': 'no-cache',
      ...siteHeaders(sitePath, opts),
      ETag: etag,
      'Last-Modified': info.mtime.toUTCString(),
    };
    if (req.headers['if-none-match'] === etag) {
      res.writeHead(304, headers);
      return res.end();
    }
    headers['Accept-Ranges'] = 'bytes';
    headers['Content-Type'] = MIME[path.extname(sitePath).toLowerCase()] ?? 'application/octet-stream';
    const range = req.headers['if-range'] === undefined || req.headers['if-range'] === headers['Last-Modified']
      ? byteRange(req.headers.range, info.size) : null;
    if (range === UNSATISFIABLE) {
      res.writeHead(416, { ...headers, 'Content-Range': `bytes */${info.size}`, 'Content-Length': 0 });
      return res.end();
    }
    const { start, end } = range ?? { start: 0, end: info.size - 1 };
    res.writeHead(range ? 206 : 200, {
      ...headers,
      ...(range ? { 'Content-Range': `bytes ${start}-${end}/${info.size}` } : {}),
      'Content-Length': end - start + 1,
    });
    if (req.method === 'HEAD' || info.size === 0) return res.end();
    // never more than the Content-Length announced, should the file grow meanwhile
    stream = handle.createReadStream({ start, end });
  } finally {
    if (!stream) await handle.close();
  }
  // pipeline destroys both ends when either fails or the client goes away; a client that
  // aborts is not an error of ours.
  await pipeline(stream, res).catch(() => {});
}

// Listens on `port` (0 = any free port); resolves with the bound port. A port that is taken
// is refused with a message naming it.
export function listen(server, port, host = '127.0.0.1') {
  return new Promise((resolve, reject) => {
    server.once('error', (err) => reject(err.code === 'EADDRINUSE'
      ? new Error(`port ${port} on ${host} is in use: stop what uses it, or choose another with PORT=…`)
      : err));
    server.listen(port, host, () => resolve(server.address().port));
  });
}

// The port to serve on: `text` (the command line's or PORT), 8080 if none.
export function portSetting(text = process.env.PORT) {
  if (text === undefined || text === '') return 8080;
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65535) {
    throw new Error(`the port must be a whole number from 0 to 65535, not ${JSON.stringify(text)}`);
  }
  return Number(text);
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { projectPaths } = await import('./paths.js');
  const root = process.argv[2] ?? projectPaths().site;
  try {
    const port = portSetting(process.argv[3] ?? process.env.PORT);
    const bound = await listen(createStaticServer(root), port, process.env.HOST ?? '127.0.0.1');
    console.log(`serving ${root} on http://localhost:${bound}`);
  } catch (err) {
    console.error(`serve: ${err.message}`);
    process.exit(1);
  }
}
