// The link: the address bar follows the page, so a link reopens this view
// (web/page/lib/url-state.js); what the page could not take from its link is said on the page.
import { $, page, state, link } from './state.js';

export function bindLink() {
  $('link-notice-close').addEventListener('click', () => page.set({ notices: [] }));
  page.subscribe(['notices'], () => {
    $('link-notice-text').textContent = state.notices.join(' ');
    $('link-notice').hidden = !state.notices.length;
  });
  // Any change: the link writes itself (at most every so often, page/lib/url-state.js).
  page.subscribe(null, () => {
    link.write(state, { model: state.model?.name, photo: state.photo?.name, photo2: state.compare?.photo?.name });
  });
}
