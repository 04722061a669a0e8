// The page state a link carries, in the URL's query (?model=…&photo=…&class=…). One row
// per key: the page-state field it mirrors, the stage at which a link's value can be
// checked (what the check needs is known only then), and the check. Adding a display
// option to links is one row here.
//
// Stages, in the order the page reaches them:
//   start       the controls exist (their <option>s are the allowed values)
//   index       the models are listed
//   model       the model is open (its methods, its number of blocks)
//   prediction  the linked photo has its prediction (the number of classes)
//   page        the page opens these itself when it can (checked(key), then forget(key))
// `model`, `photo`, `photo2` and `text` have no field: the page opens them itself.

const choice = (allowed) => (raw, ctx) => {
  const list = allowed(ctx);
  if (list.includes(raw)) return raw;
  throw new Error(`one of ${list.join(', ')}`);
};
const number = (lo, hi) => (raw) => {
  const v = Number(raw);
  if (raw.trim() === '' || !(v >= lo && v <= hi)) throw new Error(`a number from ${lo} to ${hi}`);
  return v;
};
const integer = (lo, hi) => (raw, ctx) => {
  const top = hi(ctx);
  const v = Number(raw);
  if (!/^\d+$/.test(raw) || v < lo || v > top) throw new Error(`a whole number from ${lo} to ${top}`);
  return v;
};
const flag = (raw) => {
  if (raw === '1' || raw === '0') return raw === '1';
  throw new Error('1 or 0');
};
const name = (raw) => {
  if (!raw || raw.length > 200) throw new Error('a file name of 1 to 200 characters');
  return raw;
};
const classId = integer(0, (ctx) => ctx.classes - 1);

export const LINK_KEYS = {
  model: { stage: 'index', check: choice((c) => c.models) },
  backend: { stage: 'start', field: 'backend', check: choice((c) => c.backends) },
  view: { stage: 'start', field: 'view', check: choice((c) => c.views) },
  cmap: { stage: 'start', field: 'colormap', check: choice((c) => c.colormaps) },
  threshold: { stage: 'start', field: 'threshold', check: choice((c) => c.thresholds) },
  opacity: { stage: 'start', field: 'opacity', check: number(0, 1) },
  scale: { stage: 'start', field: 'scale', check: choice((c) => c.scales) },
  display: { stage: 'start', field: 'display', check: choice((c) => c.displays) },
  frame: { stage: 'start', field: 'frame', check: choice((c) => c.frames) },
  crop: { stage: 'start', field: 'crop', check: choice((c) => c.crops) },
  exif: { stage: 'start', field: 'exif', check: choice(() => ['use', 'ignore']) },
  photo: { stage: 'page', check: name },
  photo2: { stage: 'page', check: name },
  // A typed text may be private: only "Copy link with this text" puts it in a link.
  text: { stage: 'page', check: (raw) => { if (raw.length > 10000) throw new Error('a text of up to 10,000 characters'); return raw; } },
  method: { stage: 'model', field: 'method', check: choice((c) => c.methods) },
  'start-layer': { stage: 'model', field: 'startLayer', check: integer(0, (c) => c.blocks - 1) },
  class: { stage: 'prediction', field: 'classId', check: classId },
  contrast: { stage: 'prediction', field: 'contrastId', check: classId },
  contrastive: { stage: 'prediction', field: 'contrastive', check: flag },
};

// Keys of links written before docs/glossary.md, and the key each now is. Their `contrast`
// was the on/off switch: a link with `vs`, or with `contrast` 0 or 1 and no `contrastive`,
// is read that way (the page writes `contrastive` beside every `contrast` it writes).
export const OLD_LINK_KEYS = { layer: 'start-layer', vs: 'contrast' };
const isOldContrast = (params) => !params.has('contrastive')
  && (params.has('vs') || ['0', '1'].includes(params.getAll('contrast').at(-1)));

const WRITE_GAP = 250;
const encode = (v) => (typeof v === 'boolean' ? (v ? '1' : '0') : String(v));

export class LinkState {
  // search: location.search; state: the page state, whose current values are the defaults
  // a written link leaves out.
  constructor(search, state) {
    this.pending = new Map();
    this.written = new Map(); // key → the name the link gave it (an old one), for notices
    this.notices = [];
    this.lastWrite = -Infinity;
    this.timer = null;
    this.defaults = new Map(Object.entries(LINK_KEYS).filter(([, row]) => row.field)
      .map(([key, row]) => [key, encode(state[row.field])]));
    const params = new URLSearchParams(search);
    const renames = isOldContrast(params) ? { ...OLD_LINK_KEYS, contrast: 'contrastive' } : OLD_LINK_KEYS;
    for (const [given, raw] of params) {
      const key = renames[given] ?? given;
      if (!(key in LINK_KEYS)) {
        this.notices.push(`${given}=${raw} (not a setting the page knows)`);
      } else if (given === key || !params.has(key) || renames[key]) { // the new key wins, unless it is itself old here
        this.pending.set(key, raw);
        this.written.set(key, given);
      }
    }
  }

  // `key=raw` as the link wrote it, for a notice.
  said(key, raw) { return `${this.written.get(key) ?? key}=${raw}`; }

  // The raw value a link gave for `key`, still untaken, or undefined.
  peek(key) { return this.pending.get(key); }

  // The link's valid value for a key of the 'page' stage, left pending (the page forgets
  // it once used); an invalid one is dropped with a notice.
  checked(key) {
    const raw = this.pending.get(key);
    if (raw === undefined) return undefined;
    try {
      return LINK_KEYS[key].check(raw);
    } catch (err) {
      this.pending.delete(key);
      this.notices.push(`${this.said(key, raw)} (must be ${err.message})`);
      return undefined;
    }
  }

  // Checks the untaken keys of `stage` against `ctx`, sets the valid ones with a field on
  // `state`, and returns every valid value by key. An invalid value becomes a notice.
  take(stage, ctx, state) {
    const values = {};
    for (const [key, raw] of [...this.pending]) {
      const row = LINK_KEYS[key];
      if (row.stage !== stage) continue;
      this.pending.delete(key);
      try {
        values[key] = row.check(raw, ctx);
        if (row.field) state[row.field] = values[key];
      } catch (err) {
        this.notices.push(`${this.said(key, raw)} (must be ${err.message})`);
      }
    }
    return values;
  }

  // Drops the untaken keys of a stage (e.g. the linked classes once another photo is chosen).
  forget(...keys) { for (const k of keys) this.pending.delete(k); }

  // The query for the current state: fields that differ from the defaults, the values
  // `extra` gives for the keys without a field, and what the link gave that is not taken yet.
  query(state, extra) {
    const q = new URLSearchParams();
    for (const [key, row] of Object.entries(LINK_KEYS)) {
      const value = row.field ? state[row.field] : extra[key];
      const pending = this.pending.get(key);
      if (pending !== undefined) q.set(key, pending);
      else if (value !== null && value !== undefined && (!row.field || encode(value) !== this.defaults.get(key))) q.set(key, encode(value));
    }
    // Without it, a contrast class 0 or 1 would read as an old link's switch.
    if (q.has('contrast') && !q.has('contrastive')) q.set('contrastive', encode(state.contrastive));
    return q.toString();
  }

  // Puts the state in the address bar without adding a history entry, at most every
  // WRITE_GAP ms (a dragged slider redraws at every step; browsers refuse more than a few
  // hundred history changes in ten seconds).
  write(state, extra) {
    clearTimeout(this.timer);
    const wait = this.lastWrite + WRITE_GAP - performance.now();
    if (wait > 0) {
      this.timer = setTimeout(() => this.write(state, extra), wait);
      return;
    }
    const q = this.query(state, extra);
    const url = `${location.pathname}${q ? `?${q}` : ''}${location.hash}`;
    if (url === `${location.pathname}${location.search}${location.hash}`) return;
    this.lastWrite = performance.now();
    try {
      history.replaceState(null, '', url);
    } catch (err) {
      console.warn(`the address bar was not updated: ${err.message}`);
    }
  }

  // Notices not yet shown, once.
  drainNotices() {
    const n = this.notices;
    this.notices = [];
    return n;
  }
}
