// Shared by the server tests: a site folder to serve, the server as `npm start` runs it (a
// child process, so a crash is an exit and its descriptors can be counted), and raw HTTP
// over TCP to 127.0.0.1 (bytes no HTTP client would send).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const SERVE = fileURLToPath(new URL('../../scripts/serve.js', import.meta.url));

// A site root with a page, a script, a subfolder, links inside and out, and a secret file
// beside the root (what escaping it would reveal).
export function makeSite() {
  const base = mkdtempSync(path.join(tmpdir(), 'vitrel-serve-'));
  const root = path.join(base, 'site');
  const outside = path.join(base, 'outside');
  mkdirSync(path.join(root, 'sub'), { recursive: true });
  mkdirSync(outside);
  writeFileSync(path.join(root, 'index.html'), '<!doctype html><title>index</title>');
  writeFileSync(path.join(root, 'app.js'), 'export {};\n');
  writeFileSync(path.join(root, 'empty.txt'), '');
  writeFileSync(path.join(root, 'sub', 'page.html'), '<!doctype html><title>sub</title>');
  writeFileSync(path.join(base, 'secret.txt'), 'secret beside the root\n');
  writeFileSync(path.join(outside, 'secret.txt'), 'secret in a folder outside\n');
  symlinkSync('index.html', path.join(root, 'link-in.html'));
  symlinkSync('sub', path.join(root, 'sub-link'));
  symlinkSync('/etc/passwd', path.join(root, 'passwd'));
  symlinkSync('../secret.txt', path.join(root, 'secret-link.txt'));
  symlinkSync(outside, path.join(root, 'outside-dir'));
  symlinkSync('loop-b', path.join(root, 'loop-a'));
  symlinkSync('loop-a', path.join(root, 'loop-b'));
  symlinkSync('missing-target', path.join(root, 'dangling'));
  return { base, root };
}

// Starts `node scripts/serve.js root 0`, with at most `maxDescriptors` open files if given
// (ulimit -n; exec keeps the pid); resolves { port, pid, alive, stderr, stop, exited }.
export function startServer(root, { maxDescriptors } = {}) {
  const [cmd, args] = maxDescriptors
    ? ['/bin/sh', ['-c', `ulimit -n ${maxDescriptors} && exec "$0" "$@"`, process.execPath, SERVE, root, '0']]
    : [process.execPath, [SERVE, root, '0']];
  const child = spawn(cmd, args, { env: { ...process.env, HOST: '127.0.0.1' }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d) => {
      out += d;
      const m = /localhost:(\d+)/.exec(out);
      if (m) {
        resolve({
          port: Number(m[1]),
          pid: child.pid,
          exited,
          stderr: () => stderr,
          alive: () => child.exitCode === null && child.signalCode === null,
          stop: () => { child.kill(); return exited; },
        });
      }
    });
    exited.then(({ code, signal }) => reject(new Error(`server exited (${code ?? signal}) before listening: ${stderr}`)));
  });
}

// Open descriptors of a process (Linux /proc).
export const openDescriptors = (pid) => readdirSync(`/proc/${pid}/fd`).length;

// Sends raw bytes and resolves with the first response, parsed: { status, headers, body }
// (status null if the server closed without answering, timedOut if it said nothing in
// `timeoutMs`). The socket is closed once a whole response arrived; never half-closed
// (Node's server drops pending answers to a client that half-closes).
export function rawRequest(port, bytes, { timeoutMs = 5000, head = /^HEAD /.test(bytes) } = {}) {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks = [];
    let received = 0;
    let expected = Infinity; // bytes of the whole answer, once its headers are in
    let done = false;
    const finish = (extra = {}) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ ...parseResponse(Buffer.concat(chunks), head), ...extra });
    };
    const timer = setTimeout(() => finish({ timedOut: true }), timeoutMs);
    socket.on('connect', () => socket.write(bytes));
    socket.on('data', (chunk) => {
      chunks.push(chunk);
      received += chunk.length;
      if (expected === Infinity) {
        const r = parseResponse(Buffer.concat(chunks), head);
        if (r.status !== null) expected = received - r.bytes + r.length;
      }
      if (received >= expected) finish();
    });
    socket.on('error', () => finish());
    socket.on('close', () => finish());
  });
}

// The first final answer in `data`: { status, headers, body, bytes (of body received),
// length (the body's announced length) }; status null until its headers are complete.
function parseResponse(data, head) {
  // an interim answer (100 Continue to Expect: 100-continue) comes before the real one
  while (/^HTTP\/1\.[01] 1\d\d /.test(data.subarray(0, 13).toString('latin1')) && data.includes('\r\n\r\n')) {
    data = data.subarray(data.indexOf('\r\n\r\n') + 4);
  }
  const end = data.indexOf('\r\n\r\n');
  if (end < 0) return { status: null, headers: {}, body: '', bytes: 0, length: NaN };
  const [statusLine, ...lines] = data.subarray(0, end).toString('latin1').split('\r\n');
  const headers = Object.fromEntries(lines.map((l) => {
    const i = l.indexOf(':');
    return [l.slice(0, i).trim().toLowerCase(), l.slice(i + 1).trim()];
  }));
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(statusLine)?.[1] ?? NaN);
  const length = head || status === 304 ? 0 : Number(headers['content-length'] ?? NaN);
  const body = data.subarray(end + 4);
  return { status, headers, body: body.length > 1 << 20 ? '' : body.toString('utf8'), bytes: body.length, length };
}

// Waits until `check()` is true, polling every 20 ms, at most `ms`; returns its last value.
export async function settle(check, ms = 5000) {
  const until = Date.now() + ms;
  let ok = check();
  while (!ok && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 20));
    ok = check();
  }
  return ok;
}
