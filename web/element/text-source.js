// @ts-check
// What a <vit-relevance> element explains: its photo (`src`) for an image model, its text
// for a text model: the `text` attribute, else the element's own content with its
// whitespace collapsed as the page shows it (indented HTML keeps no line breaks). A text is
// data, never a URL. One that is too long is refused in one line before any download: the
// model reads its first max_tokens tokens (512 for BERT, some 2,000 to 3,000 characters), and
// the element draws what it explained; the iframe route (web/embed.js) refuses with it too.
// The element loads it with its text code (web/element-text.js), only when it may explain a text.

/** The longest text an element or the iframe route takes, in UTF-16 code units (JavaScript's length). */
export const MAX_TEXT_LENGTH = 100_000;

/** Why a text cannot be taken (one line), or null. @param {string} text */
export function textProblem(text) {
  if (text.length <= MAX_TEXT_LENGTH) return null;
  return `the text is ${text.length.toLocaleString('en')} characters long: an element explains at most `
    + `${MAX_TEXT_LENGTH.toLocaleString('en')} (the model reads its first 512 tokens or so); give a shorter text`;
}

/**
 * The element's text (the attribute, else its content), or null when it has none; throws
 * one line for a text too long.
 * @param {Element} element @returns {string | null}
 */
export function textOf(element) {
  const text = element.getAttribute('text') ?? element.textContent?.replace(/\s+/g, ' ').trim() ?? '';
  const problem = textProblem(text);
  if (problem) throw new Error(problem);
  return text === '' && !element.hasAttribute('text') ? null : text;
}

/**
 * What to open once the model is loaded (its kind known): { key, input } for explainer.open.
 * An image model opens the photo; a text model (or an element with a text and no photo)
 * opens the text, which an image model then refuses in one line (runtime/text-metadata.js).
 * @param {Element} element @param {'image' | 'text'} kind
 * @returns {{ key: string, input: string | { text: string } }}
 */
export function inputOf(element, kind) {
  const src = element.getAttribute('src');
  if (kind !== 'text' && src) return { key: `src:${src}`, input: src };
  const text = textOf(element);
  if (text === null) {
    throw new Error(kind === 'text' ? 'no text: set the text attribute, or put the text inside the element' : 'no photo: set the src attribute');
  }
  return { key: `text:${text}`, input: { text } };
}

/**
 * Throws the line an element with nothing to explain (or a text too long) shows, before its
 * model loads. @param {Element} element
 */
export function checkSource(element) {
  if (textOf(element) === null && !element.getAttribute('src')) {
    throw new Error('nothing to explain: set src (a photo), or text (for a text model) or put the text inside the element');
  }
}

/**
 * Calls onChange when the element's content changes while it has no text attribute (its
 * content is then its text). @param {Element} element @param {() => void} onChange
 */
export function watchContent(element, onChange) {
  const observer = new MutationObserver(() => { if (!element.hasAttribute('text')) onChange(); });
  observer.observe(element, { childList: true, characterData: true, subtree: true });
  return observer;
}
