// Type-ahead class picker (ARIA combobox + listbox): matches class ids, names and their
// synonyms from the model metadata; typos fall back to runtime/targets.js' close matches.
import { classNames, closeMatches } from 'vit-relevance/runtime/targets.js';

const LIMIT = 12;
const norm = (s) => s.trim().toLowerCase().replace(/[\s_]+/g, ' ');

export function searchClasses(metadata, query) {
  const q = norm(query);
  if (!q) return [];
  if (/^\d+$/.test(q)) {
    const id = Number(q);
    return id < metadata.labels.length ? [id] : [];
  }
  const scored = [];
  metadata.labels.forEach((_, id) => {
    let best = Infinity;
    for (const n of classNames(metadata, id)) {
      const at = n.indexOf(q);
      if (at < 0) continue;
      // exact < prefix < word start < anywhere; shorter names first within a rank
      const rank = n === q ? 0 : at === 0 ? 1 : n[at - 1] === ' ' ? 2 : 3;
      best = Math.min(best, rank * 1000 + n.length);
    }
    if (best < Infinity) scored.push([best, id]);
  });
  scored.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  const ids = scored.slice(0, LIMIT).map(([, id]) => id);
  return ids.length ? ids : closeMatches(metadata, q, LIMIT);
}

export class ClassSearch {
  constructor(input, list, onPick) {
    this.input = input;
    this.list = list;
    this.onPick = onPick;
    this.metadata = null;
    this.ids = [];
    this.active = -1;
    this.current = null; // the class the field names when nobody is typing
    // Says so when a search matches nothing (a closed, empty list says nothing).
    this.empty = Object.assign(document.createElement('p'), { className: 'combo-empty', hidden: true });
    this.empty.id = `${list.id}-empty`;
    this.empty.setAttribute('role', 'status');
    list.after(this.empty);
    input.addEventListener('input', () => this.#update());
    input.addEventListener('focus', () => input.select());
    input.addEventListener('keydown', (e) => this.#key(e));
    // Options are picked on mousedown, which keeps the focus here, so a blur is never a
    // pick in progress: close at once (a delayed close could hide a list opened after it).
    input.addEventListener('blur', () => this.#close());
  }

  setMetadata(metadata) { this.metadata = metadata; }

  // Shows `id` in the field without firing onPick.
  show(id) {
    this.current = id ?? null;
    this.input.value = id === null || id === undefined || !this.metadata ? '' : `${this.metadata.labels[id]} (${id})`;
  }

  set disabled(v) {
    this.input.disabled = v;
    this.input.closest('.combo')?.setAttribute('aria-disabled', String(v));
  }

  #update() {
    if (!this.metadata) return;
    this.ids = searchClasses(this.metadata, this.input.value);
    this.active = this.ids.length ? 0 : -1;
    this.#render();
    const query = this.input.value.trim();
    this.empty.hidden = Boolean(this.ids.length || !query);
    this.empty.textContent = this.empty.hidden ? '' : `No class matches “${query}”. Try a class name (e.g. “tabby”) or an id from 0 to ${this.metadata.labels.length - 1}.`;
  }

  #render() {
    const { labels } = this.metadata;
    this.list.replaceChildren(...this.ids.map((id, i) => {
      const li = document.createElement('li');
      li.id = `${this.list.id}-${id}`;
      li.setAttribute('role', 'option');
      li.setAttribute('aria-selected', String(i === this.active));
      const num = document.createElement('span');
      num.className = 'id';
      num.textContent = id;
      li.append(num, labels[id]);
      const long = this.metadata.label_names?.[id];
      if (long && long !== labels[id]) li.title = long;
      li.addEventListener('mousedown', (e) => { e.preventDefault(); this.#pick(id); });
      return li;
    }));
    const open = this.ids.length > 0;
    this.list.hidden = !open;
    this.input.setAttribute('aria-expanded', String(open));
    if (this.active >= 0) {
      const li = this.list.children[this.active];
      this.input.setAttribute('aria-activedescendant', li.id);
      li.scrollIntoView?.({ block: 'nearest' });
    } else {
      this.input.removeAttribute('aria-activedescendant');
    }
  }

  #key(e) {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      if (this.list.hidden) { this.#update(); }
      if (!this.ids.length) return;
      e.preventDefault();
      const step = e.key === 'ArrowDown' ? 1 : -1;
      this.active = (this.active + step + this.ids.length) % this.ids.length;
      this.#render();
    } else if (e.key === 'Enter') {
      if (this.active >= 0 && !this.list.hidden) { e.preventDefault(); this.#pick(this.ids[this.active]); }
    } else if (e.key === 'Escape') {
      // Back to the chosen class, selected so that typing starts a new search.
      this.#close();
      this.show(this.current);
      this.input.select();
    }
  }

  #pick(id) {
    this.#close();
    this.show(id);
    this.input.select(); // typing next replaces the picked name instead of appending to it
    this.onPick(id);
  }

  #close() {
    this.list.hidden = true;
    this.empty.hidden = true;
    this.input.setAttribute('aria-expanded', 'false');
    this.input.removeAttribute('aria-activedescendant');
  }
}
