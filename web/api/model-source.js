// Where a model lives: the URL an author gives (`model` attribute / option) → the models
// folder and its models/index.json entry. A folder URL (or its index.json) takes the
// folder's first model; a metadata JSON URL takes the entry naming that file, or, with no
// index.json beside it, the explainer graph of the same name (<name>.onnx).

async function fetchJson(url, what) {
  let response;
  try {
    // Revalidated on each visit: the index names the files' hashes (web/lib/model-fetch.js),
    // so an old copy from the HTTP cache would ask for files that no longer exist.
    response = await fetch(url, { cache: 'no-cache' });
  } catch (err) {
    throw new Error(`could not download ${what} ${url}: ${err.message}`);
  }
  if (!response.ok) throw new Error(`could not download ${what} ${url}: HTTP ${response.status}`);
  try {
    return await response.json();
  } catch {
    throw new Error(`${what} ${url} is not valid JSON`);
  }
}

// → { base (absolute folder URL), entry (a models/index.json entry) }
export async function resolveModel(model, relativeTo = globalThis.document?.baseURI ?? globalThis.location?.href) {
  const url = new URL(String(model), relativeTo);
  const file = url.pathname.split('/').pop();
  const isMetadata = file.endsWith('.json') && file !== 'index.json';
  const base = new URL(file.endsWith('.json') ? './' : `${url.pathname.replace(/\/?$/, '/')}`, url).href;
  if (!isMetadata) {
    const index = await fetchJson(new URL('index.json', base).href, 'the model index');
    const entry = index.models?.[0];
    if (!entry) throw new Error(`${new URL('index.json', base).href} lists no model: build one with npm run build`);
    return { base, entry };
  }
  const index = await fetchJson(new URL('index.json', base).href, 'the model index').catch(() => null);
  const entry = index?.models?.find((m) => m.metadata === file);
  const stem = file.replace(/\.json$/, '');
  return { base, entry: entry ?? { name: stem, metadata: file, onnx: `${stem}.onnx` } };
}
