// The page's Attribution panel: Self-Attention Attribution (Hao et al., AAAI 2021;
// METHODS.md) of the current photo (or text) and class, run block by block in the Worker
// (web/attribution-job.js). Shows the progress with a Cancel, the head-importance
// grid (blocks × heads, ./attribution-heads.js) and the attribution tree over the photo
// (over a text's tokens: ./attribution-text-tree.js), and gives the app the attattr map
// once every block is in. data-state on the panel says where it stands (the tests wait on
// it): empty (no photo or text), ready, running, partial (some blocks), done. Head importance, the tree (so the τ slider
// re-thresholds without a rerun) and the map are computed here by the core from Attr.
// Attr is kept per (photo, class, m) block by block: a rerun computes only the blocks
// it lacks, and a cancelled run keeps the blocks it finished.
import { parseBlocks } from 'vit-relevance/runtime/attribution.js';
import { treeSvg } from 'vit-relevance/runtime/attribution-svg.js';
import { tokenLayout } from 'vit-relevance/runtime/metadata.js';
import { drawOverlay } from '../../lib/overlay.js';
import { blocksHint, panelStatus } from './attribution-words.js';
import { drawHeadTable, legendColours as colours } from './attribution-heads.js';
import { drawTextTree } from './attribution-text-tree.js';

export const ATTATTR = 'attattr';
const TREE_SIDE = 448;

const html = `
  <h2 id="attr-h">4 · Attribution <span class="muted attr-sub">which heads and attention links mattered</span></h2>
  <div class="attr-controls">
    <div class="field"><label for="attr-blocks">Blocks</label>
      <input id="attr-blocks" type="text" value="all" spellcheck="false" aria-describedby="attr-blocks-help">
      <span id="attr-blocks-help" class="muted">all, or block indices</span></div>
    <div class="field"><label for="attr-steps">Steps m</label>
      <input id="attr-steps" type="number" min="1" max="1000" step="1" value="20"></div>
    <button type="button" id="attr-run" disabled>Attribute</button>
    <button type="button" id="attr-cancel" hidden>Cancel</button>
  </div>
  <div class="attr-progress" role="status" aria-live="polite">
    <progress id="attr-progress" max="1" value="0" hidden aria-label="Attribution progress"></progress>
    <span id="attr-status" class="muted">${panelStatus({ photo: false })}</span>
  </div>
  <div class="attr-results">
    <figure class="figure attr-heads-fig" hidden>
      <table id="attr-heads" class="attr-heads" aria-label="Head importance (blocks × heads)"></table>
      <figcaption id="attr-heads-readout" class="readout">Head importance: max over (i, j) of Attr. Hover or focus a cell.</figcaption>
    </figure>
    <figure class="figure attr-tree-fig" hidden>
      <div id="attr-text-tree" class="attr-text-tree"></div>
      <div class="canvas-wrap attr-tree"><canvas id="attr-tree-canvas" width="448" height="448" aria-label="Attribution tree over the photo"></canvas></div>
      <figcaption>
        <label><input type="checkbox" id="attr-tree-show" checked> Attribution tree</label>
        <label for="attr-tau">τ <output id="attr-tau-out" for="attr-tau">0.40</output></label>
        <input type="range" id="attr-tau" min="0" max="0.95" step="0.05" value="0.4">
        <span id="attr-tree-note" class="muted"></span>
      </figcaption>
    </figure>
  </div>`;

// page(): { core, photo, tokens (a text's, in place of a photo), photoKey (a key per photo or text),
// opened (the photo or text opened on the explainer, the public API's Photo or Text), region,
// metadata, classId, colormap };
// onAttattr(): a new attattr map may be available (all blocks of a class arrived).
export function createAttributionPanel(root, { page, onAttattr }) {
  root.innerHTML = html;
  const $ = (id) => root.querySelector(`#${id}`);
  const store = new Map(); // `${photoKey}|${class}|${m}` → { prob, blocks: Map block → Float32Array [h,S,S] }
  let running = null;      // { key, controller, blocks }
  let treeCache = null;    // { key, attr } the concatenated Attr of every block, for τ changes
  let note = '';           // how the last run ended, or a refused input: until the next run or photo
  const maps = new Map();  // `${key}|${startLayer}` → attattr map
  // Runs started, finished and cancelled, as data-runs-* on the panel (the browser tests wait on them).
  const count = (what) => { root.dataset[what] = String(Number(root.dataset[what] ?? 0) + 1); };

  const steps = () => Number($('attr-steps').value);
  const keyOf = (p, classId, m) => `${p.photoKey}|${classId}|${m}`;
  const arch = () => page().metadata.architecture;
  const layout = () => tokenLayout(page().metadata);

  // Attr of the given blocks as one [n,h,S,S] tensor.
  function stack(entry, blocks) {
    const { heads: h } = arch();
    // S from the Attr itself: a text's tokens are its own, not the model's.
    const S = Math.round(Math.sqrt(entry.blocks.get(blocks[0]).length / h));
    const data = new Float32Array(blocks.length * h * S * S);
    blocks.forEach((b, i) => data.set(entry.blocks.get(b), i * h * S * S));
    return { data, shape: [blocks.length, h, S, S] };
  }

  const complete = (entry) => entry && entry.blocks.size === arch().blocks;
  const has = (p) => Boolean(p.photo || p.tokens); // a photo or a text to attribute

  function allAttr(key, entry) {
    if (treeCache?.key !== key || treeCache.size !== entry.blocks.size) {
      treeCache = { key, size: entry.blocks.size, attr: stack(entry, [...entry.blocks.keys()].sort((a, b) => a - b)) };
    }
    return treeCache.attr;
  }

  function drawHeads(p, entry) {
    const table = $('attr-heads');
    const blocks = entry ? [...entry.blocks.keys()].sort((a, b) => a - b) : [];
    table.closest('figure').hidden = !blocks.length;
    if (!blocks.length) return table.replaceChildren();
    drawHeadTable(table, $('attr-heads-readout'), { core: p.core, colormap: p.colormap, attr: stack(entry, blocks), blocks, heads: arch().heads });
  }

  function showCell(e) {
    const td = e.target.closest?.('td[data-block]');
    if (!td) return;
    $('attr-heads-readout').textContent = `block ${td.dataset.block}, head ${td.dataset.head}: importance ${Number(td.dataset.value).toPrecision(4)}`;
  }
  $('attr-heads').addEventListener('pointerover', showCell);
  $('attr-heads').addEventListener('focusin', showCell);

  function drawTree(p, key, entry) {
    const canvas = $('attr-tree-canvas');
    const wrap = canvas.parentElement;
    wrap.querySelector('svg')?.remove();
    canvas.dataset.edges = '';
    // No empty canvas: the tree shows once every block is in (the status says so before).
    canvas.closest('figure').hidden = !(has(p) && complete(entry));
    wrap.hidden = Boolean(p.tokens);
    const textBox = $('attr-text-tree');
    textBox.hidden = !p.tokens;
    if (!has(p) || !complete(entry)) return;
    if (p.tokens) {
      $('attr-tree-note').textContent = drawTextTree(textBox, { core: p.core, attr: allAttr(key, entry), tau: Number($('attr-tau').value),
        tokens: p.tokens, colours: colours(p.core, p.colormap, arch().blocks), show: $('attr-tree-show').checked });
      return;
    }
    drawOverlay(canvas, p.photo, p.region, null, { opacity: 0, smooth: true, maxSide: TREE_SIDE });
    const tau = Number($('attr-tau').value);
    const a = arch();
    const tree = p.core.attributionTree(allAttr(key, entry), tau, layout().specialTokens);
    const { svg, skipped } = treeSvg(tree, {
      width: p.photo.width, height: p.photo.height, region: p.region, grid: a.grid,
      specialTokens: layout().specialTokens, colours: colours(p.core, p.colormap, a.blocks),
    });
    canvas.dataset.edges = String(tree.edges.length);
    $('attr-tree-note').textContent = `${tree.edges.length} edge${tree.edges.length === 1 ? '' : 's'}, top patch ${tree.top}`
      + (skipped.length ? ` (${skipped.length} through the class token not drawn)` : '');
    if (!$('attr-tree-show').checked) return;
    const node = new DOMParser().parseFromString(svg, 'image/svg+xml').documentElement;
    node.setAttribute('viewBox', `0 0 ${p.photo.width} ${p.photo.height}`);
    node.setAttribute('class', 'attr-tree-svg');
    node.setAttribute('aria-hidden', 'true');
    wrap.append(document.importNode(node, true));
  }

  // Draws what is known for the current photo, class and m, and says what to do next.
  function render() {
    const p = page();
    $('attr-run').disabled = !(has(p) && p.region && p.classId !== null && p.opened) || Boolean(running);
    if (p.metadata) $('attr-blocks-help').textContent = blocksHint(arch().blocks);
    const key = has(p) && p.classId !== null && p.metadata ? keyOf(p, p.classId, steps()) : null;
    const entry = key ? store.get(key) : null;
    drawHeads(p, entry);
    drawTree(p, key, entry);
    const done = entry?.blocks.size ?? 0;
    root.dataset.state = running ? 'running' : !has(p) ? 'empty' : !done ? 'ready' : complete(entry) ? 'done' : 'partial';
    if (running) return;
    const idle = panelStatus({ photo: has(p), text: p.kind === 'text', label: key ? p.metadata.labels[p.classId] : null,
      blocks: p.metadata ? arch().blocks : 0, done: entry?.blocks.size ?? 0, steps: steps() });
    setStatus(note ? `${note} ${idle}` : idle);
  }

  // A message that stays, before what to do next, until the next run or photo.
  function say(text) {
    note = text;
    render();
  }

  function setStatus(text, progress) {
    $('attr-status').textContent = text;
    const bar = $('attr-progress');
    bar.hidden = !progress;
    if (progress) Object.assign(bar, { max: progress.total, value: progress.done });
  }

  // Runs the blocks of `classId` that the store lacks.
  async function run(classId, blocks) {
    const p = page();
    const m = steps();
    if (!Number.isInteger(m) || m < 1 || m > 1000) return say(`Steps m must be a whole number 1..1000, got "${$('attr-steps').value}".`);
    const key = keyOf(p, classId, m);
    const entry = store.get(key) ?? { blocks: new Map() };
    store.set(key, entry);
    const todo = blocks.filter((b) => !entry.blocks.has(b));
    const label = p.metadata.labels[classId];
    note = '';
    if (!todo.length) return render();
    const controller = new AbortController();
    running = { key, controller, blocks: todo, done: 0 };
    root.dataset.state = 'running';
    count('runsStarted');
    $('attr-cancel').hidden = false;
    $('attr-run').disabled = true;
    setStatus(`${label}: starting (m = ${m})…`, { done: 0, total: todo.length });
    const onBlock = (block) => {
      entry.prob = block.prob;
      entry.blocks.set(block.block, block.attr);
      running.done = block.done;
      setStatus(`${label}: block ${block.block} done (${block.done}/${block.total}), m = ${m}`, block);
      if (keyOf(page(), page().classId, steps()) === key) render();
    };
    let outcome;
    try {
      await p.opened.attribute({ class: classId, blocks: todo, steps: m, onBlock, signal: controller.signal });
      outcome = 'done';
    } catch (err) {
      outcome = controller.signal.aborted ? 'cancelled' : 'error';
      if (outcome === 'error') note = `Attribution failed: ${err.message}.`;
    }
    const done = running.done;
    running = null;
    $('attr-cancel').hidden = true;
    if (outcome === 'cancelled') {
      count('runsCancelled');
      note = `Cancelled after ${done} of ${todo.length} block${todo.length === 1 ? '' : 's'}; those finished are kept.`;
    } else if (outcome === 'done') {
      count('runsFinished');
    }
    render();
    if (complete(entry)) onAttattr();
  }

  $('attr-run').addEventListener('click', () => {
    const p = page();
    let blocks;
    try {
      blocks = parseBlocks($('attr-blocks').value.trim() || 'all', p.metadata.architecture.blocks);
    } catch (err) {
      return say(err.message.replace(/^--blocks/, 'Blocks'));
    }
    run(p.classId, blocks);
  });
  $('attr-cancel').addEventListener('click', () => running?.controller.abort());
  $('attr-tau').addEventListener('input', (e) => {
    $('attr-tau-out').textContent = Number(e.target.value).toFixed(2);
    render();
  });
  $('attr-tree-show').addEventListener('change', render);
  $('attr-steps').addEventListener('change', () => {
    render();
    onAttattr(); // the map shown is the one of this m
  });

  return {
    render,
    // A new photo or model: stop the run, forget every Attr.
    reset() {
      running?.controller.abort();
      store.clear();
      maps.clear();
      treeCache = null;
      note = '';
      render();
    },
    // The attattr map { shape, data } of a class at a start layer, or null until
    // every block of it is in.
    attattrMap(classId, startLayer) {
      const p = page();
      if (!has(p) || classId === null || classId === undefined) return null;
      const key = keyOf(p, classId, steps());
      const entry = store.get(key);
      if (!complete(entry)) return null;
      if (!maps.has(`${key}|${startLayer}`)) {
        const map = p.core.computeMaps({ attr: allAttr(key, entry) },
          { methods: [ATTATTR], ...layout(), startLayer })[ATTATTR];
        maps.set(`${key}|${startLayer}`, { shape: map.shape, data: map.data });
      }
      return maps.get(`${key}|${startLayer}`);
    },
    // The attattr map on demand: runs every block of the class unless already running.
    want(classId) {
      if (running || classId === null || this.attattrMap(classId, 0)) return;
      run(classId, Array.from({ length: arch().blocks }, (_, b) => b));
    },
  };
}
