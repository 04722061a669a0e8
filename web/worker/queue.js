// @ts-check
// The order the inference Worker's requests run in: one at a time, in arrival order;
// queued requests that a newer superseding one replaced, or that their sender cancelled,
// are skipped (answered `stale`). Background work (web/worker/sessions.js opening graphs,
// web/worker/photos.js caching a photo's tensors) runs once requests stop coming.
import { REPLY } from '../lib/protocol.js';

let latestId = 0;            // newest request that supersedes older work
const cancelled = new Set();

export class Stale extends Error {}
export const checkFresh = (msg) => { if (cancelled.has(msg.id) || (msg.supersede && msg.id < latestId)) throw new Stale(); };

// A message that belongs to no request (id 0): the Engine hands it to onNotice.
/** @param {import('../lib/protocol.js').NoticeBody} body */
export const notice = (body) => self.postMessage({ id: 0, ...body });

// Cancelling jumps the queue: the requests it names are skipped when their turn comes.
export function cancel(ids) {
  for (const id of ids) cancelled.add(id);
}

let queue = Promise.resolve();
export function enqueue(fn) {
  queue = queue.then(fn).catch(() => {});
}

// A request, queued: one that replaces the shown result supersedes every older one, and
// background work waits until requests stop coming.
/** @param {import('../lib/protocol.js').Request} msg @param {import('../lib/protocol.js').ReplyFn} reply @param {() => any} work */
export function queued(msg, reply, work) {
  if (msg.supersede) latestId = Math.max(latestId, msg.id);
  clearTimeout(idleTimer);
  run(msg, reply, work);
}

// Resolves in the next task: by then the messages that arrived while the Worker's thread
// was held (a session's opening, a graph's run) have been dispatched. A queue turn starts
// in the task that ended the one before, ahead of them.
const messagesSeen = () => new Promise((resolve) => { setTimeout(resolve); });

// One queue turn of a request, started once the messages that arrived before its turn have
// been seen, so that one they supersede or cancel is skipped, not run: a photo chosen
// while the Worker opens a session (a visit's first photo) replaces a link's photo queued
// before it. A handler may return a function, its next step (the attribution's next
// block): that step queues anew, after a macrotask so that messages that arrived meanwhile
// (a cancel, other requests) queue ahead of it.
function run(msg, reply, work) {
  enqueue(async () => {
    await messagesSeen();
    try {
      checkFresh(msg);
      const result = await work();
      if (typeof result === 'function') {
        setTimeout(() => run(msg, reply, result));
        return;
      }
      if (result) reply(result);
      reply({ type: REPLY.DONE });
    } catch (err) {
      if (err instanceof Stale) reply({ type: REPLY.STALE });
      else reply({ type: REPLY.ERROR, message: err?.message ?? String(err) });
    }
    cancelled.delete(msg.id);
    armIdle();
  });
}

// Background work, done once the Worker has had no request for IDLE_MS, one task per queue
// turn, so a request soon after (the next photo, a control) does not wait behind it; each
// request pushes it back. Tasks: opening the target and photo graphs' sessions after
// `ready`, and a photo's target-independent tensors (split graphs) after its first heat map.
const IDLE_MS = 1000;
const idleTasks = new Map(); // key → async task, in insertion order
let idleTimer = null;
export function whenIdle(key, task) {
  idleTasks.set(key, task);
  armIdle();
}
export const forgetIdle = (key) => idleTasks.delete(key);
export const forgetAllIdle = () => idleTasks.clear();
function armIdle() {
  clearTimeout(idleTimer);
  if (idleTasks.size) idleTimer = setTimeout(() => enqueue(runIdleTask), IDLE_MS);
}
async function runIdleTask() {
  const next = idleTasks.entries().next();
  if (next.done) return;
  const [key, task] = next.value;
  idleTasks.delete(key);
  await task();
  armIdle();
}
