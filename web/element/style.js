// @ts-check
// The <vit-relevance> element's shadow styles: one constructed stylesheet shared by every
// element (no inline <style>: a strict Content-Security-Policy forbids it).
// Its width is 480 px by default, whatever the photo or the number of methods (a grid of
// methods shares it), never wider than its container; a page sets it with the custom
// property --vit-relevance-width or plain CSS width. A canvas is never drawn larger than
// its own pixels (the photo's resolution, up to 1024 px): a small photo stays sharp. A
// text's rules come with its drawing, on demand (web/element/text-style.js).

const STYLE = `
:host { display: inline-block; width: var(--vit-relevance-width, 480px); max-width: 100%; font: 13px/1.4 system-ui, sans-serif; color: inherit; vertical-align: top; }
:host([hidden]) { display: none; }
figure { margin: 0; }
.maps { display: grid; grid-template-columns: repeat(var(--columns, 1), minmax(0, 1fr)); gap: 4px; }
.tile { position: relative; margin: 0; }
canvas { display: block; width: 100%; height: auto; background: #8882; }
.tile > span { position: absolute; left: 4px; top: 4px; padding: 0 4px; background: #000a; color: #fff; border-radius: 3px; font-size: 11px; }
figcaption { margin-top: 4px; }
.status { opacity: .75; }
.error { color: #b00020; }
.controls { display: flex; gap: 6px; margin-bottom: 4px; flex-wrap: wrap; }
.controls select { font: inherit; max-width: 100%; }
`;

/** @type {CSSStyleSheet | null} */
let sheet = null;
export function styleSheet() {
  if (!sheet) {
    sheet = new CSSStyleSheet();
    sheet.replaceSync(STYLE);
  }
  return sheet;
}
