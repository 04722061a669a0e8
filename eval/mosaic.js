// @ts-check
// The mosaics of the grid pointing game (Böhle et al., CVPR'22), built reproducibly from a
// seed: a seeded shuffle of the labelled photos (sorted by name first, so the caller's order
// does not matter), then greedy grouping — each mosaic starts with the first unused photo
// and takes the next ones whose classes differ from those already in it. Photos that no
// longer fit a complete mosaic stay unused. Every shard of a run builds the same list from
// the same photos and seed, so the list is built before sharding. Environment-neutral.

// Plain code-unit order, the order of dataset.js (the same on every machine and locale).
const byName = (a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0);

// mulberry32: a tiny 32-bit PRNG, enough to shuffle a photo list the same way everywhere.
// → a function returning floats in [0, 1).
export function mulberry32(seed) {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

// Fisher–Yates on a copy.
export function seededShuffle(list, seed) {
  const random = mulberry32(seed);
  const out = [...list];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

// Greedy grouping of an (already shuffled) list into groups of `size` distinct classes.
export function groupDistinctClasses(list, size, classOf) {
  const groups = [];
  let remaining = list;
  while (remaining.length >= size) {
    const group = [];
    const classes = new Set();
    const rest = [];
    for (const entry of remaining) {
      if (group.length < size && !classes.has(classOf(entry))) {
        group.push(entry);
        classes.add(classOf(entry));
      } else {
        rest.push(entry);
      }
    }
    if (group.length < size) break; // too few classes left for a whole mosaic
    groups.push(group);
    remaining = rest;
  }
  return groups;
}

// "mosaic-0001": fixed width, so the keys sort (by code unit) in mosaic order.
export function mosaicKey(index, count) {
  return `mosaic-${String(index + 1).padStart(Math.max(4, String(count).length), '0')}`;
}

// items: [{ name, label, ... }] (dataset.js loadDataset().items). tiles: photos per mosaic.
// → [{ key, photos: [item × tiles] }] in mosaic order.
export function buildMosaics(items, { seed = 0, tiles = 4 } = {}) {
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`mosaic seed must be an integer in [0, 2^32), got ${seed}`);
  const sorted = [...items].sort(byName);
  const groups = groupDistinctClasses(seededShuffle(sorted, seed), tiles, (item) => item.label);
  return groups.map((photos, i) => ({ key: mosaicKey(i, groups.length), photos }));
}
