// @ts-check
// The browser API's texts (web/api/text.js: a text opened on a text model): its own script
// (its own bundle in dist/site, as web/attribution-job.js), which the API loads on a text's
// first open, so a page that explains photos never downloads it. The pure helpers it shares
// with the API are bundled into it again; the one state they share, the page's image ids,
// the API passes in.
export { KeptText } from './api/text.js';
