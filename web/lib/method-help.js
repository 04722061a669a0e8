// The help text of a relevance method, from the core's method registry (src/methods/
// registry.cpp: description and paper link, the one home of both): in the method
// selector's help and under each tile of the comparison grid. Also which controls apply:
// start_layer only to the rollouts (METHODS.md), so its slider is disabled with the reason
// otherwise.

// "<description>. Paper" with the paper linked (a new tab).
export function methodHelp(info) {
  const out = document.createDocumentFragment();
  out.append(`${info.description}. `);
  if (info.paper) {
    out.append(Object.assign(document.createElement('a'), {
      href: info.paper, textContent: 'Paper', target: '_blank', rel: 'noopener', title: `${info.name}: the paper`,
    }));
  }
  return out;
}

// { disabled, reason } of the start-layer slider for the view's methods: it stays active
// when one of them reads start_layer (the grid shows the rollouts too).
export function startLayerState(infos) {
  if (infos.some((m) => m.startLayer)) return { disabled: false, reason: '' };
  const names = infos.map((m) => m.name).join(', ');
  return { disabled: true, reason: `Not used by ${names}: only the rollout methods start at a chosen layer; this one uses every block.` };
}
