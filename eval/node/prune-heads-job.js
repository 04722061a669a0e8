// Node-only: head pruning (eval/prune-heads-protocol.js) as a job for
// cli/eval-command.js. The labelled photos in file-name order: the first --rank-images
// rank the heads, the rest are held out and evaluated under the masks. Every shard ranks
// on all ranking photos (the masks need the whole ranking) and evaluates its share of the
// held-out photos; the ranking records it writes are the same in every shard, so `eval
// merge` joins them. Held-out photos go through the masked forward --batch at a time.
import { DECODE, decodePhoto, preprocessPhoto } from './photo.js';
import { labelledItems } from './dataset.js';
import { checkSameRun, readRecords, readRunInfo } from './records.js';
import { selectItems } from './shard.js';
import { pruningPlan, takeComputed } from './prune-plan.js';
import { fileSha256 } from '../../runtime/node/file-sha256.js';
import { checkAttributionFiles, openAttributionFiles, openMaskedForwardFile } from '../../runtime/node/open-attribution.js';
import { UserError } from '../../runtime/errors.js';
import { kind, isRankRecord } from '../prune-heads.js';
import { RATES, evaluateBatch, keptPerBlock, rankPhoto } from '../prune-heads-protocol.js';

// --ranking DIR: the ranking records of another run folder of the same photos and settings
// (--rank-images, --shard and the per-block masks aside: a ranking photo's record depends
// on none of them; folders from before the per-block masks serve too). The shards of one
// evaluation thus rank once. → Map name → record (empty without --ranking).
async function rankingRecords(dir, settings, data) {
  if (!dir) return new Map();
  const info = await readRunInfo(dir);
  if (info?.kind !== kind.name) throw new UserError(`--ranking ${dir} is not a prune-heads run folder`);
  const ignore = { rankImages: null, perBlockKept: null };
  checkSameRun({ ...info, settings: { ...info.settings, ...ignore } }, { kind: kind.name, settings: { ...settings, ...ignore }, data }, `--ranking ${dir}`);
  const records = new Map();
  for (const [name, entry] of await readRecords(dir)) if (entry.record && isRankRecord(entry.record)) records.set(name, entry.record);
  return records;
}

function newTimings() {
  return { rankPhotos: 0, rankMs: 0, evalPhotos: 0, evalMs: 0, forwards: 0 };
}

export function describePruneTimings(t) {
  const rate = (n, ms) => (ms > 0 ? (n / (ms / 1000)).toFixed(2) : '--');
  return `ranked ${t.rankPhotos} photo(s) in ${(t.rankMs / 1000).toFixed(1)} s (${rate(t.rankPhotos, t.rankMs)} photos/s); `
    + `evaluated ${t.evalPhotos} held-out photo(s) under the masks in ${(t.evalMs / 1000).toFixed(1)} s `
    + `(${rate(t.evalPhotos, t.evalMs)} photos/s, ${t.forwards} masked forward runs)`;
}

export const pruneHeadsJob = {
  kind,
  unit: 'photo',
  requireForward: true,
  usesMethods: false,

  // opts.measures: --by as a list (the CLI checks it before any work).
  async items({ opts, metadata }) {
    const by = opts.measures;
    const { items: photos, data, notes } = await labelledItems(opts, metadata);
    if (opts.rankImages >= photos.length) {
      throw new UserError(`--rank-images ${opts.rankImages} leaves no held-out photo: the folder has ${photos.length} labelled photo(s)`);
    }
    checkAttributionFiles(opts.model, metadata.architecture.blocks, { masked: true });
    if (by.includes('attribution')) checkAttributionFiles(opts.model, metadata.architecture.blocks);
    const items = photos.map((p, i) => ({ ...p, rank: i < opts.rankImages }));
    notes.push(`ranking on the first ${opts.rankImages} photo(s), ${photos.length - opts.rankImages} held out`);
    return { items, data, notes };
  },

  // Every shard: all ranking photos, then its share (and --limit) of the held-out ones.
  selectItems(items, shard, limit) {
    return [...items.filter((i) => i.rank), ...selectItems(items.filter((i) => !i.rank), shard, limit)];
  },

  async prepare({ explainer, core, modelFile, opts, items, data }) {
    const { metadata } = explainer;
    const by = opts.measures;
    const arch = metadata.architecture;
    const paths = checkAttributionFiles(modelFile, arch.blocks, { masked: true });
    const settings = {
      model: metadata.name,
      graphSha256: await fileSha256(modelFile),
      maskedSha256: await fileSha256(paths.masked),
      attributionSha256: by.includes('attribution') ? await fileSha256(paths.weights) : null,
      engine: explainer.engine,
      decode: DECODE,
      preprocess: metadata.preprocess,
      by,
      rankImages: opts.rankImages,
      steps: opts.steps,
      seed: opts.seed,
      blocks: arch.blocks,
      heads: arch.heads,
      rates: RATES,
      perBlockKept: keptPerBlock(arch.heads),
    };
    const engine = explainer.engine;
    // Opened when a ranking photo first needs it (shards given --ranking never do).
    let attribution = null;
    const attributionOnce = async () => (attribution ??= await openAttributionFiles(modelFile, metadata, { threads: opts.threads, engine }));
    const masked = await openMaskedForwardFile(modelFile, metadata, { threads: opts.threads, engine });
    const [H, W] = arch.image_size;
    const C = metadata.labels.length;
    const timings = newTimings();
    const cache = new Map();

    // The masks, from every ranking record in the folder (key order, as the summary). The
    // ranking photos come first in the work list, so each has its entry by now (a record,
    // or skipped as unreadable with --on-unreadable skip).
    const rankNames = items.filter((i) => i.rank).map((i) => i.name);
    const masksOnce = pruningPlan({ out: opts.out, rankNames, settings, heads: settings.heads, noun: 'photo' });

    const pixelsOf = async (item) => preprocessPhoto(core, await decodePhoto(item.file, item.name), metadata, item.name).data;

    const evaluate = async (item, upcoming) => {
      if (cache.has(item.name)) return takeComputed(cache, item.name);
      const started = performance.now();
      const { masks, use } = await masksOnce();
      const batch = [{ item, pixels: await pixelsOf(item) }];
      for (const next of upcoming(opts.batch - 1)) {
        // A photo that cannot be read fails on its own turn, with its own message.
        const pixels = await pixelsOf(next).catch(() => null);
        if (pixels) batch.push({ item: next, pixels });
      }
      const pixels = new Float32Array(batch.length * 3 * H * W);
      batch.forEach((b, i) => pixels.set(b.pixels, i * 3 * H * W));
      const records = await evaluateBatch({ masked, pixels, labels: batch.map((b) => b.item.label), plan: { masks, use }, C });
      batch.slice(1).forEach((b, i) => cache.set(b.item.name, records[i + 1]));
      timings.evalPhotos += batch.length;
      timings.forwards += masks.length;
      timings.evalMs += performance.now() - started;
      return records[0];
    };

    const reused = await rankingRecords(opts.ranking, settings, data);
    const processItem = async (item, { upcoming }) => {
      if (!item.rank) return evaluate(item, upcoming);
      if (reused.has(item.name)) return reused.get(item.name);
      const started = performance.now();
      const pixels = await pixelsOf(item);
      const record = await rankPhoto({ explainer, attribution: by.includes('attribution') ? await attributionOnce() : null, core, pixels, label: item.label, by, steps: opts.steps });
      timings.rankPhotos++;
      timings.rankMs += performance.now() - started;
      return record;
    };
    return {
      settings,
      processItem,
      timings,
      describe: () => describePruneTimings(timings),
      release: async () => {
        await attribution?.release();
        await masked.release();
      },
    };
  },

  summaryLines(s) {
    const head = `top-1 (%) at rate ${s.rates.map((r) => Math.round(r * 100)).join(' / ')}:`;
    const line = (m, values) => `  ${m.padEnd(12)} ${values.map((a) => (a * 100).toFixed(1)).join(' ')}`;
    const lines = [head, ...s.by.map((m) => line(m, s.accuracy[m]))];
    if (!s.perBlock) return lines;
    const p = s.perBlock;
    return [...lines, `top-1 (%) keeping ${p.kept.join(' / ')} head(s) per block (per block, then global at ${p.masked.join(' / ')} masked):`,
      ...s.by.map((m) => line(m, [...p.accuracy[m], ...p.global[m]]))];
  },
};
