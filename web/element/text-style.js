// @ts-check
// The <vit-relevance> element's text styles, added to its shadow styles (./style.js) when
// it first draws a text (web/element-text.js, loaded on demand): a text wraps anywhere, one
// method under another, its words large enough to read at 390 px. A constructed stylesheet
// shared by every element, as the photo's (a strict Content-Security-Policy forbids <style>).

const STYLE = `
.maps:has(.text-tile) { grid-template-columns: minmax(0, 1fr); gap: 10px; }
.text-tile > span { position: static; display: inline-block; margin-bottom: 2px; }
.text { white-space: pre-wrap; overflow-wrap: anywhere; font-size: 15px; line-height: 1.9; }
.t { border-radius: 3px; padding: 1px 0; }
.t:focus-visible { outline: 2px solid #1a73e8; outline-offset: 1px; }
.specials, .cut, .score { display: block; margin: 0; font-size: 11px; opacity: .8; }
.legend { display: flex; align-items: center; flex-wrap: wrap; gap: 4px; font-size: 11px; margin-top: 2px; }
.legend .bar { flex: 1 1 60px; max-width: 160px; height: 8px; border-radius: 2px; }
`;

/** @type {CSSStyleSheet | null} */
let sheet = null;
/** Adds the text styles to the element's shadow root, once. @param {HTMLElement} element */
export function adoptTextStyle(element) {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  const root = /** @type {ShadowRoot} */ (element.shadowRoot);
  if (!root.adoptedStyleSheets.includes(sheet)) root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
}
