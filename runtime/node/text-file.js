// @ts-check
// Node-only: a file of texts to explain, one per line (`explain --text-file`). Its size is
// checked before it is read, then every line before any graph opens: valid UTF-8, not
// empty, something BERT's tokenizer reads (runtime/text-input.js); one line names the
// file and the line of the first problem.
import { statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { checkText } from '../text-input.js';
import { UserError } from '../errors.js';

// At most this many bytes (README, "Explain text"): each line is one graph run, and a model reads at
// most its positions (512 wordpieces, a few kB of text) of each; 4 MB holds the whole of
// ERASER Movie Reviews' test set (199 reviews, 1.4 MB) with room to spare.
export const MAX_TEXT_FILE_BYTES = 4 * 2 ** 20;

const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

// exitCode 2: a bad input, as a bad command line.
const bad = (message) => new UserError(message, { exitCode: 2 });

// → the texts, in order. A final newline ends the last line (it starts no empty one);
// "\r\n" line ends are read as "\n".
export async function readTextFile(file) {
  let size;
  try {
    ({ size } = statSync(file));
  } catch (err) {
    throw bad(`cannot read ${file}: ${err.code === 'ENOENT' ? 'no such file' : err.message}`);
  }
  if (size > MAX_TEXT_FILE_BYTES) {
    throw bad(`${file} is ${(size / 2 ** 20).toFixed(1)} MB: a text file may hold at most ${MAX_TEXT_FILE_BYTES / 2 ** 20} MB (split it)`);
  }
  const bytes = await readFile(file);
  if (!bytes.length) throw bad(`${file} is empty: give one text per line`);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const texts = [];
  let start = bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf ? 3 : 0; // a UTF-8 byte order mark
  for (let line = 1; start < bytes.length; line++) {
    let end = bytes.indexOf(NEWLINE, start);
    if (end < 0) end = bytes.length;
    const stop = end > start && bytes[end - 1] === CARRIAGE_RETURN ? end - 1 : end;
    let text;
    try {
      text = decoder.decode(bytes.subarray(start, stop));
    } catch {
      throw bad(`${file} line ${line} is not valid UTF-8: save the file as UTF-8`);
    }
    try {
      checkText(text, `${file} line ${line}`);
    } catch (err) {
      throw bad(`${err.message}${text === '' ? ' (one text per line, no empty lines)' : ''}`);
    }
    texts.push(text);
    start = end + 1;
  }
  return texts;
}
