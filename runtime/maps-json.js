// @ts-check
// The maps.json layout every command writes (and the page can offer for download):
//   { ...extra, "targets": [ { "id": <class id or null>, ...per-target fields,
//       "maps": { "<method id>": { "shape": [rows, cols], "data": [row-major floats] } } } ] }
// (a contrast's map adds "correlation" before "data": its two classes' maps' Pearson r).
// `vit-relevance maps` writes id null; `explain` adds label/top5/timings through `extra`.
// Environment-neutral; runtime/node/maps-file.js writes it to disk.

// Shortest decimal that reads back as the same float32: exact, and about half the size
// of printing the float64 expansion.
export function float32Text(v) {
  if (!Number.isFinite(v)) return 'null';
  if (v === 0) return '0';
  for (let p = 6; p < 9; p++) {
    const s = v.toPrecision(p);
    if (Math.fround(Number(s)) === v) return String(Number(s));
  }
  return String(Number(v.toPrecision(9)));
}

// One target: maps is core.computeMaps' result ({ [id]: { shape, data } }).
export function mapsTarget({ id = null, maps, ...fields }) {
  return { id, ...fields, maps };
}

export function mapsDocument(targets, extra = {}) {
  return { ...extra, targets };
}

// One map's JSON text, its data as float32 values; a contrast's map also carries its two
// classes' maps' correlation (core.contrast).
export const mapText = ({ shape, data, correlation }) => `{ "shape": ${JSON.stringify(shape)}, `
  + `${correlation === undefined ? '' : `"correlation": ${JSON.stringify(correlation)}, `}"data": [${floatsText(data)}] }`;

// A list of float32 values as JSON numbers, each the shortest that reads back the same.
export const floatsText = (data) => Array.from(data, float32Text).join(',');

// JSON text of a maps document. Map data is written as float32 values, one map per line
// segment, so a 224x224 lrp_full map stays readable with line-based tools.
export function formatMapsJson(doc) {
  const targetText = (t) => {
    const { maps, ...fields } = t;
    const head = JSON.stringify(fields).slice(1, -1);
    const entries = Object.entries(maps).map(([id, m]) => `      ${JSON.stringify(id)}: ${mapText(m)}`);
    const body = entries.length ? `{\n${entries.join(',\n')}\n    }` : '{}';
    return `    {${head ? ` ${head},` : ''} "maps": ${body} }`;
  };
  const { targets, ...extra } = doc;
  const head = Object.entries(extra).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)},\n`).join('');
  return `{\n${head}  "targets": [\n${targets.map(targetText).join(',\n')}\n  ]\n}\n`;
}
