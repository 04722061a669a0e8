// The Attribution panel (web/page/lib/attribution-panel.js) in the page: it reads the state, is
// reset by a new photo or model, and offers its attattr maps to the views (state.attattrMap);
// a new map is announced, and the controller asks for what the views then need.
import { createAttributionPanel } from './lib/attribution-panel.js';
import { $, page, state, photoKey } from './state.js';

export function bindAttribution() {
  const panel = createAttributionPanel($('attribution'), {
    page: () => ({
      core: state.core, photo: state.region && state.photo, photoKey: state.photo && photoKey(state.photo), opened: state.opened,
      region: state.region, metadata: state.metadata, classId: state.classId, colormap: state.colormap,
    }),
    onAttattr: () => {
      page.touch('attattrMap');
      page.dispatch('attattr');
    },
  });
  page.set({ attattrMap: (classId, startLayer) => panel.attattrMap(classId, startLayer) });
  page.subscribe(['photo', 'explainer'], () => panel.reset());
  page.subscribe(['classId', 'colormap', 'prediction'], () => panel.render());
  page.subscribe(['attattrWanted'], () => panel.want(state.attattrWanted));
}
