// What the photos' and the texts' head-pruning jobs share once the ranking is recorded:
// the masks to prune by, built once from the ranking records of the run folder, and the
// records a batch computed ahead for the items after its first.
import { readRecords, sortedEntries } from './records.js';
import { UserError } from '../../runtime/errors.js';
import { isRankRecord } from '../prune-heads.js';
import { headOrders, pruningMasks } from '../prune-heads-protocol.js';

// → async () → { masks, use }: read at the first held-out item (every ranking item is
// recorded by then), the same object after. noun: 'photo' or 'sentence', for the messages.
export function pruningPlan({ out, rankNames, settings, heads, noun }) {
  let plan = null;
  return async () => {
    if (plan) return plan;
    const entries = await readRecords(out);
    const missing = rankNames.filter((name) => !entries.has(name));
    if (missing.length) throw new Error(`prune-heads: ranking ${noun}(s) ${missing.slice(0, 3).join(', ')} have no entry in ${out}`);
    const ranking = sortedEntries(entries).map(([, e]) => e.record).filter((r) => r && isRankRecord(r));
    if (!ranking.length) throw new UserError(`none of the ${rankNames.length} ranking ${noun}(s) could be read: no ranking to prune by`);
    plan = pruningMasks(headOrders(ranking, settings), heads);
    return plan;
  };
}

// The record a batch already computed for `name`, taken out of `cache` (undefined if none).
export function takeComputed(cache, name) {
  const record = cache.get(name);
  cache.delete(name);
  return record;
}
