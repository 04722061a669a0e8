// `--shard auto`: the shard index and count from the variables each job runner sets
// (docs/scale-out.md), exactly as Slurm, Kubernetes and GNU parallel set them, and a
// clear error when none (or two) are set.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { resolveShard } from '../../eval/node/shard.js';
import { UserError } from '../../runtime/errors.js';
import { runCli, tempDir } from './maps-support.js';

const shardOf = (text, env) => resolveShard(text, env).shard;
const refused = (text, env, pattern) => assert.throws(() => resolveShard(text, env), (err) => err instanceof UserError && pattern.test(err.message), `${text} ${JSON.stringify(env)}`);

// What sbatch --array=SPEC sets in task `id`.
function slurm(spec, id) {
  const [range, step = '1'] = spec.split(':');
  const [min, max] = range.split('-').map(Number);
  return {
    SLURM_ARRAY_JOB_ID: '4242', SLURM_ARRAY_TASK_ID: String(id), SLURM_ARRAY_TASK_MIN: String(min), SLURM_ARRAY_TASK_MAX: String(max),
    SLURM_ARRAY_TASK_STEP: step, SLURM_ARRAY_TASK_COUNT: String(Math.floor((max - min) / Number(step)) + 1), SLURM_JOB_ID: '4243',
  };
}

test('Slurm arrays: the task\'s position in the range, whatever the first id and the step', () => {
  for (const [spec, ids] of [['0-3', [0, 1, 2, 3]], ['1-4', [1, 2, 3, 4]], ['10-13', [10, 11, 12, 13]], ['0-6:2', [0, 2, 4, 6]], ['1-7:2', [1, 3, 5, 7]]]) {
    assert.deepEqual(ids.map((id) => shardOf('auto', slurm(spec, id))), [1, 2, 3, 4].map((index) => ({ index, count: 4 })), spec);
  }
  assert.deepEqual(resolveShard('auto/4', slurm('1-4', 2)), { shard: { index: 2, count: 4 }, source: 'Slurm array task 2' });
  refused('auto/8', slurm('1-4', 2), /auto\/8: a Slurm job array has 4 tasks, not 8/);
  // --array=1,3,4: three tasks, ids 1..4, no position to number from.
  refused('auto', { SLURM_ARRAY_TASK_ID: '3', SLURM_ARRAY_TASK_MIN: '1', SLURM_ARRAY_TASK_MAX: '4', SLURM_ARRAY_TASK_STEP: '1', SLURM_ARRAY_TASK_COUNT: '3' }, /not one range; submit --array=0-N/);
  refused('auto', { ...slurm('0-3', 1), SLURM_ARRAY_TASK_COUNT: '' }, /SLURM_ARRAY_TASK_COUNT="" is not an integer/);
});

test('Kubernetes Indexed Jobs: JOB_COMPLETION_INDEX from 0, the count given as auto/N', () => {
  assert.deepEqual(resolveShard('auto/8', { JOB_COMPLETION_INDEX: '0' }), { shard: { index: 1, count: 8 }, source: 'Kubernetes completion index 0' });
  assert.deepEqual(shardOf('auto/8', { JOB_COMPLETION_INDEX: '7' }), { index: 8, count: 8 });
  refused('auto', { JOB_COMPLETION_INDEX: '3' }, /a Kubernetes Indexed Job does not say how many shards there are; give it as --shard auto\/N/);
  refused('auto/8', { JOB_COMPLETION_INDEX: '8' }, /Kubernetes completion index 8 is beyond the 8 shard/);
  refused('auto/0', { JOB_COMPLETION_INDEX: '0' }, /the count after auto\/ must be a positive integer/);
});

test('GNU parallel: PARALLEL_SEQ (kept by --resume-failed), never the reused job slot', () => {
  assert.deepEqual(resolveShard('auto/4', { PARALLEL_SEQ: '3', PARALLEL_JOBSLOT: '1', PARALLEL_PID: '99' }), { shard: { index: 3, count: 4 }, source: 'GNU parallel job 3' });
  refused('auto', { PARALLEL_SEQ: '3' }, /GNU parallel does not say how many shards there are; give it as --shard auto\/N/);
  refused('auto/4', { PARALLEL_SEQ: '5' }, /GNU parallel job 5 is beyond the 4 shard/);
  refused('auto/4', { PARALLEL_JOBSLOT: '2' }, /no job runner found/);
});

test('no runner, or two at once, is a clear error; i/n still works and ignores them', () => {
  refused('auto', {}, /^--shard auto: no job runner found \(none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, PARALLEL_SEQ is set\)/);
  refused('auto/4', { ...slurm('0-3', 1), PARALLEL_SEQ: '2' }, /SLURM_ARRAY_TASK_ID \(a Slurm job array\) and PARALLEL_SEQ \(GNU parallel\) are both set/);
  assert.deepEqual(resolveShard('2/4', { PARALLEL_SEQ: '3' }), { shard: { index: 2, count: 4 }, source: null });
  assert.deepEqual(resolveShard(undefined, { PARALLEL_SEQ: '3' }), { shard: null, source: null });
  refused('autom', {}, /--shard must look like i\/n/);
});

test('eval --shard auto outside any runner: one line, exit 2, before anything loads', () => {
  const dir = tempDir();
  const r = runCli(['eval', 'segmentation', '--images', dir, '--masks', dir, '--model', path.join(dir, 'none.onnx'), '--out', path.join(dir, 'o'), '--shard', 'auto']);
  assert.equal(r.status, 2, r.stderr);
  assert.match(r.stderr, /^vit-relevance eval: error: --shard auto: no job runner found .*give --shard i\/n\n$/);
});
