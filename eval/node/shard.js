// `--shard i/n`: splits one evaluation over n processes or machines. Shard i (1-based)
// takes the items at sorted positions p with p % n == i - 1, so the shards partition the
// list exactly and each gets a spread of it (the list is sorted by file name, i.e. by class
// for ImageNet samples) rather than one block.
//
// `--shard auto` (or `auto/n`) reads i and n from the job runner (docs/scale-out.md):
//   Slurm job array     i = (SLURM_ARRAY_TASK_ID - SLURM_ARRAY_TASK_MIN) / SLURM_ARRAY_TASK_STEP + 1,
//                       n = SLURM_ARRAY_TASK_COUNT; the array must be one range (0-7, 1-8,
//                       0-14:2); a list with gaps (1,3,4) has no position to number from
//   Kubernetes          i = JOB_COMPLETION_INDEX + 1 (Indexed Job); n from `auto/n`
//   GNU parallel        i = PARALLEL_SEQ (the job number, kept by --resume-failed); n from
//                       `auto/n`. Not PARALLEL_JOBSLOT: slots are reused by other inputs.
// Exactly one runner may be seen: a Slurm array task running GNU parallel is ambiguous.
import { UserError } from '../../runtime/errors.js';

// "2/4" → { index: 2, count: 4 }; undefined/null → null (no sharding).
export function parseShard(text) {
  if (text === undefined || text === null) return null;
  const m = /^\s*(\d+)\s*\/\s*(\d+)\s*$/.exec(String(text));
  if (!m) throw new UserError(`--shard must look like i/n (e.g. 1/4, 1-based) or auto, got "${text}"`);
  const index = Number(m[1]);
  const count = Number(m[2]);
  if (count < 1) throw new UserError(`--shard ${text}: the number of shards must be at least 1`);
  if (index < 1 || index > count) throw new UserError(`--shard ${text}: i must be between 1 and ${count} (shards are numbered from 1)`);
  return { index, count };
}

function envInt(env, name, { min = 0 } = {}) {
  const text = env[name];
  if (!/^\s*\d+\s*$/.test(text ?? '') || Number(text) < min) {
    throw new UserError(`--shard auto: ${name}=${JSON.stringify(text ?? '')} is not an integer >= ${min}`);
  }
  return Number(text);
}

function fromSlurm(env) {
  const id = envInt(env, 'SLURM_ARRAY_TASK_ID');
  const count = envInt(env, 'SLURM_ARRAY_TASK_COUNT', { min: 1 });
  const min = envInt(env, 'SLURM_ARRAY_TASK_MIN');
  const max = env.SLURM_ARRAY_TASK_MAX === undefined ? min + count - 1 : envInt(env, 'SLURM_ARRAY_TASK_MAX');
  const step = env.SLURM_ARRAY_TASK_STEP === undefined ? 1 : envInt(env, 'SLURM_ARRAY_TASK_STEP', { min: 1 });
  if ((max - min) / step + 1 !== count || (id - min) % step !== 0) {
    throw new UserError(`--shard auto: the Slurm array (task ${id} of ${count}, ids ${min}-${max} step ${step}) is not one range; `
      + 'submit --array=0-N (or a range with a step), or give --shard i/n yourself');
  }
  return { index: (id - min) / step + 1, count, source: `Slurm array task ${id}` };
}

const RUNNERS = [
  { variable: 'SLURM_ARRAY_TASK_ID', name: 'a Slurm job array', read: fromSlurm },
  { variable: 'JOB_COMPLETION_INDEX', name: 'a Kubernetes Indexed Job', read: (env) => ({ index: envInt(env, 'JOB_COMPLETION_INDEX') + 1, source: `Kubernetes completion index ${env.JOB_COMPLETION_INDEX}` }) },
  { variable: 'PARALLEL_SEQ', name: 'GNU parallel', read: (env) => ({ index: envInt(env, 'PARALLEL_SEQ', { min: 1 }), source: `GNU parallel job ${env.PARALLEL_SEQ}` }) },
];

// `--shard` text → { shard: { index, count } | null, source: where i/n came from | null }.
export function resolveShard(text, env = process.env) {
  const auto = /^\s*auto\s*(?:\/\s*(\S+))?\s*$/.exec(String(text ?? ''));
  if (!auto) return { shard: parseShard(text), source: null };
  if (auto[1] !== undefined && !/^[1-9]\d*$/.test(auto[1])) throw new UserError(`--shard ${text.trim()}: the count after auto/ must be a positive integer`);
  const given = auto[1] === undefined ? null : Number(auto[1]);
  const present = RUNNERS.filter((r) => env[r.variable] !== undefined && env[r.variable] !== '');
  if (!present.length) {
    throw new UserError(`--shard ${text.trim()}: no job runner found (none of ${RUNNERS.map((r) => r.variable).join(', ')} is set); `
      + 'run it as a Slurm array task, a Kubernetes Indexed Job pod or a GNU parallel job, or give --shard i/n');
  }
  if (present.length > 1) {
    throw new UserError(`--shard auto: ${present.map((r) => `${r.variable} (${r.name})`).join(' and ')} are both set; give --shard i/n yourself`);
  }
  const [runner] = present;
  const { index, count = given, source } = runner.read(env);
  if (count === null) throw new UserError(`--shard auto: ${runner.name} does not say how many shards there are; give it as --shard auto/N`);
  if (given !== null && given !== count) throw new UserError(`--shard auto/${given}: ${runner.name} has ${count} tasks, not ${given}`);
  if (index > count) throw new UserError(`--shard ${text.trim()}: ${source} is beyond the ${count} shard(s)`);
  return { shard: parseShard(`${index}/${count}`), source };
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
