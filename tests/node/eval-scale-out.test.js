// Scale-out through a real job runner: four shards of `eval perturbation` under GNU
// parallel with `--shard auto/4`, one killed in the middle of its run, rerun alone by
// parallel's --resume-failed (same job number, so the same shard), then merged: the
// merged folder must be byte-identical to one unsharded run. Kept small (8 photos, one
// class-agnostic method, one thread per shard) so it takes about a minute.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { cli, runCli, shared, tempDir } from './maps-support.js';
import { deitModel, skipDeit } from './explain-support.js';

const samples = path.join(shared, 'imagenet', 'samples');
const synsets = path.join(shared, 'imagenet', 'synset_words.txt');
const haveParallel = spawnSync('parallel', ['--version'], { encoding: 'utf8' }).stdout?.startsWith('GNU parallel');
const skip = skipDeit || (!existsSync(samples) && `no labelled photos in ${samples}`)
  || (!haveParallel && 'GNU parallel is not installed (Debian package `parallel`, scripts/setup.sh)');

const SHARDS = 4;
const PER_SHARD = 2;
const evalArgs = ['eval', 'perturbation', '--images', samples, '--labels', synsets, '--model', deitModel,
  '--methods', 'raw_attention', '--threads', '1', '--quiet'];

// `parallel ... ::: 1 2 3 4` with a job log; resolves with its exit code.
function runParallel(out, extra = []) {
  const command = [process.execPath, cli, ...evalArgs, '--limit', String(PER_SHARD), '--shard', `auto/${SHARDS}`, '--out', path.join(out, 'shard-{#}')];
  const child = spawn('parallel', ['--will-cite', '--joblog', path.join(out, 'jobs.log'), ...extra, `-j${SHARDS}`, ...command,
    ':::', ...Array.from({ length: SHARDS }, (_, i) => String(i + 1))], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  return { child, done: new Promise((resolve) => child.on('close', (code) => resolve({ code, output }))) };
}

const recordLines = (dir) => {
  const file = path.join(dir, 'records.jsonl');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').filter(Boolean) : [];
};

// The pid of the vit-relevance process writing into `dir` (a grandchild: parallel → shell → node).
function pidWriting(dir) {
  for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
    let args;
    try {
      args = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    } catch {
      continue;
    }
    if (args.includes(cli) && args[args.indexOf('--out') + 1] === dir) return Number(pid);
  }
  return null;
}

// Polls `check` until it returns something, failing if `job` (a runParallel) ends first.
async function waitFor(check, what, job, timeoutMs = 240_000) {
  let ended = null;
  job.done.then((r) => { ended = r; });
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = check();
    if (value) return value;
    if (ended) throw new Error(`parallel ended (exit ${ended.code}) before ${what}:\n${ended.output}`);
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const filesOf = (dir) => Object.fromEntries(readdirSync(dir).sort().map((f) => [f, readFileSync(path.join(dir, f), 'utf8')]));

test('GNU parallel: 4 shards, one killed mid-run and resumed, merge = one unsharded run byte for byte', { skip, timeout: 600_000 }, async () => {
  const out = tempDir('vitrel-scale-out-');
  const victim = path.join(out, 'shard-3');
  const first = runParallel(out);
  // Kill shard 3 once its first photo is recorded, while it works on its second.
  await waitFor(() => recordLines(victim).length >= 1, 'shard 3 recorded a photo', first);
  const pid = await waitFor(() => pidWriting(victim), 'the pid of shard 3 was found', first);
  process.kill(pid, 'SIGKILL');
  const killed = await first.done;
  assert.equal(killed.code, 1, `parallel reports one failed job\n${killed.output}`);
  assert.equal(recordLines(victim).length, 1, 'shard 3 died after one photo');
  for (const i of [1, 2, 4]) assert.equal(recordLines(path.join(out, `shard-${i}`)).length, PER_SHARD, `shard ${i} finished`);
  assert.ok(!existsSync(path.join(victim, 'perturbation.json')), 'the killed shard wrote no summary');

  const rerun = runParallel(out, ['--resume-failed']);
  const resumed = await rerun.done;
  assert.equal(resumed.code, 0, resumed.output);
  const log = readFileSync(path.join(out, 'jobs.log'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  // Seq, Host, Starttime, JobRuntime, Send, Receive, Exitval, Signal, Command.
  const failed = (f) => f[6] !== '0' || f[7] !== '0';
  assert.deepEqual(log.slice(0, SHARDS).map((f) => [f[0], failed(f)]).sort(), [['1', false], ['2', false], ['3', true], ['4', false]]);
  assert.deepEqual(log.slice(SHARDS).map((f) => [f[0], failed(f)]), [['3', false]], 'only the killed job ran again, with its own number');
  assert.match(resumed.output, /shard 3\/4 \(GNU parallel job 3\)/);
  assert.equal(recordLines(victim).length, PER_SHARD);

  const merged = path.join(out, 'merged');
  const m = runCli(['eval', 'merge', ...Array.from({ length: SHARDS }, (_, i) => path.join(out, `shard-${i + 1}`)), '--out', merged]);
  assert.equal(m.status, 0, m.stderr);
  const whole = path.join(out, 'whole');
  const w = runCli([...evalArgs, '--limit', String(SHARDS * PER_SHARD), '--out', whole]);
  assert.equal(w.status, 0, w.stderr);
  assert.deepEqual(filesOf(merged), filesOf(whole));
  assert.equal(JSON.parse(readFileSync(path.join(whole, 'perturbation.json'), 'utf8')).n, SHARDS * PER_SHARD);
});
