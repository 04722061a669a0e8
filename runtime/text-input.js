// @ts-check
// What a text must be before a text model explains it, checked before any graph opens:
// one line per problem, naming where the text came from (`where`: "--text", "reviews.txt
// line 3", "the text"). Environment-neutral (the CLI, the Node API and the Worker).

// BERT's tokenizer drops every character of Unicode category C (control, format —
// zero-width marks among them —, unassigned, private use, surrogates) but tab, newline
// and carriage return, which are whitespace to it.
const DROPPED_OR_SPACE = /[\s\p{C}]/gu;

// The text itself, or throws one line saying why it cannot be explained.
export function checkText(text, where = 'the text') {
  if (typeof text !== 'string') throw new TypeError(`${where} must be a string (got ${text === null ? 'null' : typeof text})`);
  if (text === '') throw new Error(`${where} is empty: give a text to explain`);
  if (!/\S/u.test(text)) throw new Error(`${where} is only whitespace: give a text to explain`);
  if (!text.replace(DROPPED_OR_SPACE, '')) {
    throw new Error(`${where} holds only control or format characters (such as U+0000–U+001F or zero-width marks), which BERT's tokenizer drops: give a text to explain`);
  }
  return text;
}

// An input given to an explainer of either kind is a text when it is a string handed to a
// text model, or { text } handed to any model (which then says whether it reads texts).
export const isTextInput = (input) => typeof input?.text === 'string' && Object.keys(input).length === 1;
