// The help text of a relevance method, from the core's method registry (src/methods/
// registry.cpp: its words, formula and paper link, the one home of all three): in the
// method selector's help and under each tile of the comparison grid. Also which controls
// apply: start_layer only to the rollouts (METHODS.md), so its slider is disabled with the
// reason otherwise.

// "<in words> Paper" with the paper linked (a new tab), then the formula and the API's id
// behind "Details".
export function methodHelp(info) {
  const out = document.createDocumentFragment();
  out.append(`${info.about || `${info.description}.`} `);
  if (info.paper) {
    out.append(Object.assign(document.createElement('a'), {
      href: info.paper, textContent: 'Paper', target: '_blank', rel: 'noopener', title: `${info.name}: the paper`,
    }));
  }
  if (info.about) {
    const details = Object.assign(document.createElement('details'), { className: 'method-details' });
    const code = Object.assign(document.createElement('code'), { textContent: info.id });
    details.append(Object.assign(document.createElement('summary'), { textContent: 'Details' }),
      `${info.description}. In the API and CLI: `, code, '.');
    out.append(' ', details);
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
