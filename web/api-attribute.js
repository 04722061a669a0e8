// @ts-check
// The browser API's Self-Attention Attribution requests (web/api/attribute.js): their own
// script (their own bundle in dist/site, as web/api-text.js), which the API loads on a
// photo's or text's first attribute(), so a page that only explains never downloads it.
export { attribute } from './api/attribute.js';
