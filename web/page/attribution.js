// The Attribution panel (web/page/lib/attribution-panel.js) in the page: it reads the state, is
// reset by a new photo, text or model, and offers its attattr maps to the views (state.attattrMap);
// a new map is announced, and the controller asks for what the views then need. A text model's
// text is attributed once it is explained (its tokens known), as the text view draws it.
import { createAttributionPanel } from './lib/attribution-panel.js';
import { $, page, state, photoKey } from './state.js';

// The text opened and explained now, or null: the panel attributes only the text shown.
function explainedText() {
  const o = state.opened;
  const text = state.region?.text;
  return state.kind === 'text' && text !== undefined && text === state.text && o?.text === text && o.tokens ? o : null;
}

export function bindAttribution() {
  const panel = createAttributionPanel($('attribution'), {
    page: () => {
      const text = explainedText();
      const photo = state.kind === 'text' ? null : state.region && state.photo;
      return {
        core: state.core, kind: state.kind, photo, tokens: text?.tokens ?? null,
        photoKey: text ? `text|${text.text}` : photo && photoKey(state.photo), opened: state.kind === 'text' ? text : state.opened,
        region: state.region, metadata: state.metadata, classId: state.classId, colormap: state.colormap,
      };
    },
    onAttattr: () => {
      page.touch('attattrMap');
      page.dispatch('attattr');
    },
  });
  page.set({ attattrMap: (classId, startLayer) => panel.attattrMap(classId, startLayer) });
  page.subscribe(['photo', 'explainer', 'text'], () => panel.reset());
  page.subscribe(['classId', 'colormap', 'prediction', 'region', 'opened', 'kind'], () => panel.render());
  page.subscribe(['attattrWanted'], () => panel.want(state.attattrWanted));
}
