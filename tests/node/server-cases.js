// Hostile requests to the static server and what each must get: the status and the exact
// body. Raw HTTP, against the site of server-support.js's makeSite(). Self-contained data,
// so a table-driven hostile-input suite (and docs/errors.md) can take it as it is.
const get = (target, headers = 'Host: x\r\n') => `GET ${target} HTTP/1.1\r\n${headers}\r\n`;

const INDEX = '<!doctype html><title>index</title>';
const OUTSIDE = 'forbidden: the path leads outside the site folder\n';
const NOT_FOUND = 'not found\n';
const TARGET = 'bad request: the request target is not a path\n';
const ENCODING = 'bad request: the path has malformed percent-encoding\n';
const MALFORMED = 'bad request: malformed HTTP\n';
const METHOD = 'method not allowed: this server answers GET and HEAD only\n';

export const SERVER_CASES = [
  // request targets
  { name: 'absolute-form target with a port out of range (the crash of issue 11)', request: get('http://x:99999/'), status: 400, body: TARGET },
  { name: 'absolute-form target with an empty host', request: get('http://:80/'), status: 400, body: TARGET },
  { name: 'absolute-form target naming a page', request: get('http://x/index.html'), status: 200, body: INDEX },
  { name: 'absolute-form target with a file: scheme', request: get('file:///etc/passwd'), status: 400, body: TARGET },
  { name: 'asterisk-form target', request: get('*'), status: 400, body: TARGET },
  { name: 'authority-form target on GET', request: get('x:80'), status: 400, body: MALFORMED },
  { name: 'malformed percent-encoding', request: get('/%zz'), status: 400, body: ENCODING },
  { name: 'truncated percent-encoding', request: get('/index.html%'), status: 400, body: ENCODING },
  { name: 'percent-encoded invalid UTF-8', request: get('/%ff%fe'), status: 400, body: ENCODING },
  { name: 'percent-encoded NUL', request: get('/index.html%00.js'), status: 400, body: 'bad request: the path contains a NUL byte\n' },
  { name: 'raw NUL in the target', request: get('/a\0b'), status: 400, body: MALFORMED },
  { name: 'malformed query is ignored', request: get('/index.html?x=%zz&y=\u0000'.replace('\u0000', '%00')), status: 200, body: INDEX },
  { name: 'long target (8 KB), no such file', request: get('/' + 'a'.repeat(8000)), status: 404, body: NOT_FOUND },
  { name: 'target beyond the header limit', request: get('/' + 'a'.repeat(70_000)), status: 431, body: /^request header fields too large \(\d+ bytes at most\)\n$/ },
  // leaving the root
  { name: 'dot-dot climbs no higher than the root', request: get('/../secret.txt'), status: 404, body: NOT_FOUND },
  { name: 'encoded dot-dot', request: get('/%2e%2e/%2e%2e/secret.txt'), status: 404, body: NOT_FOUND },
  { name: 'encoded slash and dot-dot', request: get('/sub/..%2f..%2fsecret.txt'), status: 404, body: NOT_FOUND },
  { name: 'backslash dot-dot', request: get('/..\\secret.txt'), status: 404, body: NOT_FOUND },
  { name: 'double slash to an absolute path', request: get('//etc/passwd'), status: 404, body: NOT_FOUND },
  { name: 'symbolic link to /etc/passwd', request: get('/passwd'), status: 403, body: OUTSIDE },
  { name: 'symbolic link to a file beside the root', request: get('/secret-link.txt'), status: 403, body: OUTSIDE },
  { name: 'file inside a linked folder outside the root', request: get('/outside-dir/secret.txt'), status: 403, body: OUTSIDE },
  { name: 'linked folder outside the root itself', request: get('/outside-dir/'), status: 403, body: OUTSIDE },
  { name: 'symbolic link loop', request: get('/loop-a'), status: 404, body: NOT_FOUND },
  { name: 'dangling symbolic link', request: get('/dangling'), status: 404, body: NOT_FOUND },
  { name: 'symbolic link inside the root still works', request: get('/link-in.html'), status: 200, body: INDEX },
  { name: 'linked folder inside the root still works', request: get('/sub-link/page.html'), status: 200, body: '<!doctype html><title>sub</title>' },
  { name: 'folder without index.html', request: get('/sub/'), status: 404, body: NOT_FOUND },
  { name: 'file name too long for the file system', request: get('/' + 'b'.repeat(300)), status: 404, body: NOT_FOUND },
  // methods
  ...['POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS', 'TRACE', 'PROPFIND', 'BREW'].map((m) => ({
    name: `${m} is refused`, request: `${m} /index.html HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\n\r\n`,
    status: m === 'BREW' ? 400 : 405, body: m === 'BREW' ? MALFORMED : METHOD,
  })),
  { name: 'CONNECT is refused', request: 'CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n', status: 405, body: METHOD },
  { name: 'HEAD gets the headers and no body', request: 'HEAD /index.html HTTP/1.1\r\nHost: x\r\n\r\n', status: 200, body: '' },
  { name: 'HEAD of a missing file', request: 'HEAD /missing HTTP/1.1\r\nHost: x\r\n\r\n', status: 404, body: '' },
  // malformed HTTP
  { name: 'garbage instead of a request line', request: 'GARBAGE\r\n\r\n', status: 400, body: MALFORMED },
  { name: 'unknown HTTP version', request: 'GET / HTTP/9.9\r\nHost: x\r\n\r\n', status: 400, body: MALFORMED },
  { name: 'HTTP/1.1 without Host', request: 'GET / HTTP/1.1\r\n\r\n', status: 400, body: 'bad request: an HTTP/1.1 request needs a Host header\n' },
  { name: 'HTTP/1.0 without Host is fine', request: 'GET / HTTP/1.0\r\n\r\n', status: 200, body: INDEX },
  { name: 'space in a header name', request: 'GET / HTTP/1.1\r\nHo st: x\r\n\r\n', status: 400, body: MALFORMED },
  { name: 'bare LF line ends', request: 'GET / HTTP/1.1\nHost: x\n\n', status: 400, body: MALFORMED },
  { name: 'header of 20 KB', request: get('/', `Host: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n`), status: 431, body: /^request header fields too large/ },
  { name: 'both Content-Length and Transfer-Encoding', request: get('/', 'Host: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n'), status: 400, body: MALFORMED },
  { name: 'negative Content-Length', request: get('/', 'Host: x\r\nContent-Length: -1\r\n'), status: 400, body: MALFORMED },
  // byte ranges (issue 29: a 200 for every Range, so a download could not resume)
  { name: 'a byte range', request: get('/index.html', 'Host: x\r\nRange: bytes=2-8\r\n'), status: 206, body: INDEX.slice(2, 9) },
  { name: 'a byte range from an offset to the end', request: get('/index.html', 'Host: x\r\nRange: bytes=15-\r\n'), status: 206, body: INDEX.slice(15) },
  { name: 'a suffix byte range (the last bytes)', request: get('/index.html', 'Host: x\r\nRange: bytes=-6\r\n'), status: 206, body: INDEX.slice(-6) },
  { name: 'a suffix range longer than the file', request: get('/index.html', 'Host: x\r\nRange: bytes=-9999\r\n'), status: 206, body: INDEX },
  { name: 'a range past the end is cut to the file', request: get('/index.html', 'Host: x\r\nRange: bytes=30-9999\r\n'), status: 206, body: INDEX.slice(30) },
  { name: 'several ranges: the whole file', request: get('/index.html', 'Host: x\r\nRange: bytes=0-1,5-6\r\n'), status: 200, body: INDEX },
  { name: 'a range starting past the end', request: get('/index.html', 'Host: x\r\nRange: bytes=999-\r\n'), status: 416, body: '' },
  { name: 'an empty suffix range', request: get('/index.html', 'Host: x\r\nRange: bytes=-0\r\n'), status: 416, body: '' },
  { name: 'a range of an empty file', request: get('/empty.txt', 'Host: x\r\nRange: bytes=0-\r\n'), status: 416, body: '' },
  { name: 'a malformed Range: the whole file', request: get('/index.html', 'Host: x\r\nRange: bytes=5-2,foo\r\n'), status: 200, body: INDEX },
  { name: 'a Range in another unit: the whole file', request: get('/index.html', 'Host: x\r\nRange: items=0-1\r\n'), status: 200, body: INDEX },
  { name: 'a range whose If-Range names another version: the whole file', request: get('/index.html', 'Host: x\r\nRange: bytes=2-8\r\nIf-Range: Thu, 01 Jan 1970 00:00:00 GMT\r\n'), status: 200, body: INDEX },
  { name: 'If-None-Match that matches nothing', request: get('/index.html', 'Host: x\r\nIf-None-Match: "\u00ff"\r\n'), status: 200, body: INDEX },
  { name: 'empty file', request: get('/empty.txt'), status: 200, body: '' },
];

// Starting the server with a bad port: `node scripts/serve.js ROOT PORT` exits with 1 and
// this message (`npm start` says the same with PORT=…, prefixed "start:").
export const SERVER_START_CASES = ['abc', '70000', '-1', '1.5', '0x50'].map((port) => ({
  name: `port ${JSON.stringify(port)}`,
  port,
  exitCode: 1,
  stderr: `serve: the port must be a whole number from 0 to 65535, not ${JSON.stringify(port)}\n`,
}));
