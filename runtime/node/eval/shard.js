// `--shard i/n`: splits one evaluation over n processes or machines. Shard i (1-based)
// takes the items at sorted positions p with p % n == i - 1, so the shards partition the
// list exactly and each gets a spread of it (the list is sorted by file name, i.e. by class
// for ImageNet samples) rather than one block.
import { EvalError } from './errors.js';

// "2/4" → { index: 2, count: 4 }; undefined/null → null (no sharding).
export function parseShard(text) {
  if (text === undefined || text === null) return null;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(text));
  if (!m) throw new EvalError(`--shard must look like i/n (e.g. 1/4, 1-based), got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new EvalError(`--shard ${text}: the number of shards must be at least 1`);
  if (index < 1 || index > count) throw new EvalError(`--shard ${text}: i must be between 1 and ${count} (shards are numbered from 1)`);
  return { index, count };
}

export function formatShard(shard) {
  return shard ? `${shard.index}/${shard.count}` : 'all';
}

export function shardItems(items, shard) {
  if (!shard) return items;
  return items.filter((_, p) => p % shard.count === shard.index - 1);
}

// The work list of a run: its shard of the sorted items, then the first `limit` of those.
export function selectItems(items, shard, limit) {
  const mine = shardItems(items, shard);
  return limit === undefined || limit === null ? mine : mine.slice(0, limit);
}
