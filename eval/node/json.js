// Deterministic JSON for run folders: object keys sorted at every level (by code unit, the
// same on every machine), typed arrays written as plain arrays, numbers as JS prints them.
// Two runs that computed the same values write the same bytes, however their objects were
// built, which is what lets a merged run match an unsharded one byte for byte.

export function compareKeys(a, b) {
  return a < b ? -1 : a > b ? 1 : 0;
}

function sorted(_key, value) {
  if (ArrayBuffer.isView(value)) return Array.from(value);
  if (value && typeof value === 'object' && !Array.isArray(value)) {
    return Object.fromEntries(Object.keys(value).sort(compareKeys).map((k) => [k, value[k]]));
  }
  return value;
}

export function canonicalJson(value, indent) {
  return JSON.stringify(value, sorted, indent);
}

export function sameJson(a, b) {
  return canonicalJson(a) === canonicalJson(b);
}

// Long hashes keep 16 hex digits, enough to tell two apart.
function brief(value) {
  if (typeof value === 'string' && /^[0-9a-f]{40,}$/.test(value)) return `${value.slice(0, 16)}…`;
  const text = value === undefined ? 'unset' : canonicalJson(value);
  return text.length > 60 ? `${text.slice(0, 57)}...` : text;
}

// "startLayer: 1 vs 0; methods: [...] vs [...]": the top-level settings that differ.
export function describeDifferences(a, b) {
  const keys = [...new Set([...Object.keys(a ?? {}), ...Object.keys(b ?? {})])].sort(compareKeys);
  return keys
    .filter((k) => !sameJson(a?.[k] ?? null, b?.[k] ?? null))
    .map((k) => `${k}: ${brief(a?.[k])} vs ${brief(b?.[k])}`)
    .join('; ');
}
