// A store that announces changes, after model-viewer's features: each property set is
// recorded, and once per microtask every subscriber whose properties changed is called
// with the set of changed names (several sets in one task draw once). Intents: a feature
// asks the controller to act (`dispatch`); the controller alone handles them (`handle`).
export function createStore(initial) {
  const state = { ...initial };
  const subscribers = [];
  const handlers = new Map();
  let changed = new Set();
  let queued = false;

  function flush() {
    queued = false;
    const names = changed;
    changed = new Set();
    for (const { keys, fn } of subscribers) {
      if (!keys || keys.some((k) => names.has(k))) fn(names);
    }
  }

  // Announces properties as changed, whether or not their value is new (a Map changed in
  // place, or "show this again").
  function touch(...names) {
    for (const n of names) changed.add(n);
    if (!queued) {
      queued = true;
      queueMicrotask(flush);
    }
  }

  return {
    state,
    touch,
    // Sets properties; those whose value is new are announced.
    set(values) {
      for (const [k, v] of Object.entries(values)) {
        if (state[k] === v) continue;
        state[k] = v;
        touch(k);
      }
    },
    // fn(changedNames) runs after the properties named in `keys` change (every change
    // where keys is null).
    subscribe(keys, fn) { subscribers.push({ keys, fn }); },
    handle(intent, fn) { handlers.set(intent, fn); },
    // → what the controller's handler returns (a promise for a flow).
    dispatch(intent, detail) {
      const fn = handlers.get(intent);
      if (!fn) throw new Error(`no handler for the page intent "${intent}"`);
      return fn(detail);
    },
  };
}
