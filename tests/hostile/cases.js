// The hostile-input table: every way a user (or an attacker) can feed the product bad
// input, with the exact answer it must give. tests/node/hostile.test.js runs the
// command-line cases, tests/browser/hostile.test.js the page's,
// tests/node/server-hostile.test.js the server's, and
// scripts/errors-doc.js turns this table into docs/errors.md.
import { SERVER_CASES, SERVER_START_CASES } from '../node/server-cases.js';

// A case: { surface, name, ... , message }
//   maps | explain |        args: the vit-relevance arguments; exit: its exit code;
//                           message: the whole of stderr (a string, compared exactly, or
//                           a RegExp) after <tmp> (./fixtures.js) and <repo> are put back
//   page                    upload: { file, name, type } chosen in the page; message: the
//                           page's error text (run by tests/browser/hostile.test.js); or
//                           model: { kind } a broken model listed first in the site's
//                           models/index.json, built and run by tests/browser/errors.test.js; or
//                           folder: { kind } a model folder opened with “Open your model…”,
//                           built from a small export and run by tests/browser/open-model.test.js
//   server                  request: { raw } HTTP bytes; status and message: the answer's
//                           status and body (tests/node/server-cases.js, run by
//                           tests/node/server-hostile.test.js with its own site); or
//                           start: { port } of `node scripts/serve.js` (exit, message)
//   attribute | eval | export
// requires: { file, what }: the case runs only where that file exists.
// absent: [files] that must not exist after the case (what a refused export would have
// written, the marker a pickle payload would make).
// Files are named <tmp>/… (./fixtures.js) or <repo>/…. No case may end in an internal
// error (exit 70) or print a stack trace: the runner asserts that for every one.

const out = '<tmp>/out';
const tiny = '<tmp>/models/tiny.onnx';
const textModel = '<tmp>/models/text';
const maps = (name, args, exit, message) => ({ surface: 'maps', name, args: ['maps', ...args], exit, message });
const explain = (name, args, exit, message) => ({ surface: 'explain', name, args: ['explain', ...args], exit, message });
const attribute = (name, args, exit, message) => ({ surface: 'attribute', name, args: ['attribute', ...args], exit, message });
const evaluation = (name, args, exit, message) => ({ surface: 'eval', name, args: ['eval', ...args], exit, message });
// export cases read checkpoints made by PyTorch (./checkpoints.py), and write nothing
const exportCase = (name, args, exit, message, more = {}) => ({
  surface: 'export', name, args: ['export', ...args], exit, message, absent: ['<tmp>/export/out'],
  requires: { file: '<tmp>/export/small.pth', what: 'PyTorch (/usr/bin/python3 with python3-torch)' }, ...more,
});
const exportTo = (source, ...rest) => [source, '--out', '<tmp>/export/out', ...rest];
const page = (name, upload, message) => ({ surface: 'page', name, upload, message });
const pageModel = (name, kind, message) => ({ surface: 'page', name, model: { kind }, message });
const pageFolder = (name, kind, message) => ({ surface: 'page', name, folder: { kind }, message });
const server = (name, request, status, message) => ({ surface: 'server', name, request, status, message });

const tensors = ['--attn', '<tmp>/attn.npy', '--grad', '<tmp>/grad.npy'];
// pointing-game on the given photos and labels (the eval cases' usual command).
const pointing = (images, labels, to = out) => ['pointing-game', '--images', images, '--labels', labels, '--model', tiny, '--out', to];
// pointing-game on the good photos with a label file (in <tmp>/eval) wrong in one way.
const labelled = (name, labels, message) => evaluation(name, pointing('<tmp>/eval/images', `<tmp>/eval/${labels}`), 1, message);
const evalArgs = (kind, ...rest) => [kind, '--images', '<tmp>/eval/images', '--labels', '<tmp>/eval/labels.csv', '--model', tiny, '--out', out, ...rest];

export const CASES = [
  // ---- vit-relevance (no command)
  { surface: 'maps', name: 'unknown command', args: ['frobnicate'], exit: 2, message: /^vit-relevance: unknown command "frobnicate"\n/ },

  // ---- maps: usage
  maps('no input tensor', ['--out', out], 2, 'vit-relevance maps: error: give at least one input tensor (--attn, --grad, --rel, --rel-classic-last, --input-rel-classic, --attr, --input-rel-attnlrp, --input-rel-cp-lrp)'),
  maps('no --out', ['--attn', '<tmp>/attn.npy'], 2, 'vit-relevance maps: error: --out is required (see `vit-relevance maps --help`)'),
  maps('unknown option', [...tensors, '--frobnicate', '1', '--out', out], 2, "vit-relevance maps: error: Unknown option '--frobnicate' (see `vit-relevance maps --help`)"),
  maps('--start-layer not an integer', [...tensors, '--start-layer', 'two', '--out', out], 2, 'vit-relevance maps: error: --start-layer must be an integer, got "two"'),
  maps('--start-layer negative', [...tensors, '--start-layer', '-1', '--out', out], 2, 'vit-relevance maps: error: --start-layer must be >= 0, got -1'),
  maps('--start-layer past the last block', [...tensors, '--start-layer', '5', '--out', out], 1, 'vit-relevance maps: error: options: start_layer 5 is out of range [0,2) for 2 blocks'),
  maps('--grid malformed', [...tensors, '--grid', '2by2', '--out', out], 2, 'vit-relevance maps: error: --grid must look like ROWSxCOLS (e.g. 14x14), got "2by2"'),
  maps('--grid that does not fit the tokens', [...tensors, '--grid', '3x3', '--out', out], 1, 'vit-relevance maps: error: attn: expected shape [?,?,10,10], got [2,1,5,5] (10 tokens = 1 special + 3x3 grid) (attn is --attn <tmp>/attn.npy)'),
  maps('--special-tokens negative', [...tensors, '--special-tokens', '-2', '--out', out], 2, 'vit-relevance maps: error: --special-tokens must be >= 0, got -2'),
  maps('--special-tokens that leaves no square grid', [...tensors, '--special-tokens', '2', '--out', out], 2, 'vit-relevance maps: error: cannot infer the patch grid: 5 tokens minus 2 special token(s) is not a square number; pass --grid RxC (and --special-tokens N)'),
  maps('unknown --pool', [...tensors, '--pool', 'gap', '--out', out], 1, 'vit-relevance maps: error: pool: unknown id "gap" (valid: cls, cls+dist, avg, avg+prefix, cls+avg)'),
  maps('--pool the layout cannot have', [...tensors, '--pool', 'cls+dist', '--out', out], 1, 'vit-relevance maps: error: options: pool cls+dist reads tokens 0 and 1 (cls and dist), but the layout has 1 special token'),
  maps('--pool cls without a class token', [...tensors, '--special-tokens', '0', '--grid', '1x5', '--out', out], 1, 'vit-relevance maps: error: options: pool cls reads token 0 (cls), but the layout has 0 special tokens'),
  maps('unknown method', [...tensors, '--method', 'raw_attention,bogus', '--out', out], 2, /^vit-relevance maps: error: unknown method "bogus"; known: all, transformer_attribution, /),
  maps('empty --method', [...tensors, '--method', ',', '--out', out], 2, 'vit-relevance maps: error: --method needs "all" or method ids separated by commas'),
  maps('a method whose input is missing', ['--attn', '<tmp>/attn.npy', '--method', 'gradcam', '--out', out], 1, 'vit-relevance maps: error: gradcam: needs attn_grad, which is missing (attn_grad comes from --grad)'),
  maps('--out the empty string', ['--attn', '<tmp>/attn.npy', '--out', ''], 2, 'vit-relevance maps: error: --out needs a non-empty value'),
  // ---- maps: files
  maps('missing .npy file', ['--attn', '<tmp>/nope.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/nope.npy: no such file'),
  maps('a folder named .npy', ['--attn', '<tmp>/folder.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/folder.npy: is a directory, not a .npy file'),
  maps('a file that is not .npy by name', ['--attn', '<tmp>/notes.txt', '--out', out], 1, 'vit-relevance maps: error: <tmp>/notes.txt: expected a NumPy .npy file'),
  maps('a .npy without the NumPy magic', ['--attn', '<tmp>/not-numpy.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/not-numpy.npy: not a NumPy .npy file (no \\x93NUMPY magic)'),
  maps('an empty .npy', ['--attn', '<tmp>/empty.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/empty.npy: not a NumPy .npy file (no \\x93NUMPY magic)'),
  maps('a truncated .npy header', ['--attn', '<tmp>/truncated-header.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/truncated-header.npy: not a NumPy .npy file (no \\x93NUMPY magic)'),
  maps('an unknown .npy format version', ['--attn', '<tmp>/version9.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/version9.npy: unsupported .npy format version 9.0'),
  maps('a malformed .npy header', ['--attn', '<tmp>/malformed-header.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/malformed-header.npy: not a NumPy .npy file (no \\x93NUMPY magic)'),
  maps('float64 data', ['--attn', '<tmp>/float64.npy', '--out', out], 1, "vit-relevance maps: error: <tmp>/float64.npy: dtype '<f8' is not supported; only float32 little-endian ('<f4') is accepted (convert with arr.astype('<f4'))"),
  maps('big-endian float32', ['--attn', '<tmp>/bigendian.npy', '--out', out], 1, "vit-relevance maps: error: <tmp>/bigendian.npy: dtype '>f4' is not supported; only float32 little-endian ('<f4') is accepted (convert with arr.astype('<f4'))"),
  maps('int32 data', ['--attn', '<tmp>/int32.npy', '--out', out], 1, "vit-relevance maps: error: <tmp>/int32.npy: dtype '<i4' is not supported; only float32 little-endian ('<f4') is accepted (convert with arr.astype('<f4'))"),
  maps('Fortran-order array', ['--attn', '<tmp>/fortran.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/fortran.npy: Fortran-order arrays are not supported; save a C-order array (np.ascontiguousarray)'),
  maps('data shorter than the shape', ['--attn', '<tmp>/truncated-data.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/truncated-data.npy: truncated data: shape (2, 1, 5, 5) needs 200 bytes, file has 40'),
  maps('bytes after the data', ['--attn', '<tmp>/extra-data.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/extra-data.npy: 12 unexpected bytes after the data of shape (2)'),
  maps('a scalar .npy (issue 11: "undefined tokens")', ['--attn', '<tmp>/scalar.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/scalar.npy: --attn takes a 4-axis [B,h,S,S] tensor, this one has shape [] (a scalar)'),
  maps('a [h,S,S] tensor for --attn', ['--attn', '<tmp>/rank3.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/rank3.npy: --attn takes a 4-axis [B,h,S,S] tensor, this one has shape [1,5,5]'),
  maps('a scalar for --input-rel-classic', ['--input-rel-classic', '<tmp>/scalar.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/scalar.npy: --input-rel-classic takes a 2-axis [H,W] tensor, this one has shape [] (a scalar)'),
  maps('a [B,h,S,S] tensor for --rel-classic-last', ['--rel-classic-last', '<tmp>/attn.npy', '--out', out], 1, 'vit-relevance maps: error: <tmp>/attn.npy: --rel-classic-last takes a 3-axis [h,S,S] tensor, this one has shape [2,1,5,5]'),
  maps('a method that needs --grad given only --rel', ['--rel', '<tmp>/rel.npy', '--method', 'transformer_attribution', '--out', out], 1, 'vit-relevance maps: error: transformer_attribution: needs attn_grad, which is missing (attn_grad comes from --grad)'),
  maps('--rel-classic-last with a grid it does not fit', ['--rel-classic-last', '<tmp>/rel-last.npy', '--grid', '3x3', '--out', out], 1, 'vit-relevance maps: error: attn_rel_classic_last: expected shape [?,10,10], got [1,5,5] (attn_rel_classic_last is --rel-classic-last <tmp>/rel-last.npy)'),
  maps('shapes that disagree', ['--attn', '<tmp>/attn.npy', '--grad', '<tmp>/short.npy', '--out', out], 1, 'vit-relevance maps: error: attn_grad: expected shape [2,1,5,5] like attn, got [2,1,5,4] (attn is --attn <tmp>/attn.npy; attn_grad is --grad <tmp>/short.npy)'),
  maps('a grid that cannot be inferred', ['--attn', '<tmp>/odd.npy', '--out', out], 2, 'vit-relevance maps: error: cannot infer the patch grid: 7 tokens minus 1 special token(s) is not a square number; pass --grid RxC (and --special-tokens N)'),
  maps('zero tokens', ['--attn', '<tmp>/empty-tokens.npy', '--grid', '1x1', '--out', out], 1, 'vit-relevance maps: error: attn: shape must be an array of positive integers, got [2,1,0,0] (attn is --attn <tmp>/empty-tokens.npy)'),
  maps('a NaN in the attention', ['--attn', '<tmp>/nan.npy', '--out', out], 1, 'vit-relevance maps: error: attn: non-finite value NaN at flat index 17 of [2,1,5,5] (attn is --attn <tmp>/nan.npy)'),
  maps('an infinity in the attention', ['--attn', '<tmp>/inf.npy', '--out', out], 1, 'vit-relevance maps: error: attn: non-finite value -inf at flat index 3 of [2,1,5,5] (attn is --attn <tmp>/inf.npy)'),
  maps('an infinity in the gradient', ['--attn', '<tmp>/attn.npy', '--grad', '<tmp>/inf.npy', '--out', out], 1, 'vit-relevance maps: error: attn_grad: non-finite value -inf at flat index 3 of [2,1,5,5] (attn_grad is --grad <tmp>/inf.npy)'),
  // ---- maps: the output folder (issue 11)
  maps('--out is a file', [...tensors, '--out', '<tmp>/a-file'], 1, 'vit-relevance maps: error: --out <tmp>/a-file is a file, not a folder; give a folder (it is created when missing)'),
  maps('--out inside a file', [...tensors, '--out', '<tmp>/a-file/sub'], 1, 'vit-relevance maps: error: --out <tmp>/a-file/sub cannot be created: <tmp>/a-file is a file, not a folder'),
  maps('--out cannot be created', [...tensors, '--out', '/sys/vitrel-out'], 1, 'vit-relevance maps: error: --out /sys/vitrel-out cannot be created: permission denied'),
  maps('--out where maps.json is a folder', [...tensors, '--out', '<tmp>/maps-json-is-a-folder'], 1, 'vit-relevance maps: error: --out <tmp>/maps-json-is-a-folder: maps.json exists and is a folder, so it cannot be written; remove it or choose another folder'),
  maps('--out a dangling symbolic link', [...tensors, '--out', '<tmp>/dangling-link'], 1, 'vit-relevance maps: error: --out <tmp>/dangling-link cannot be created: <tmp>/dangling-link is a symbolic link to nothing'),

  // ---- explain: usage
  explain('no input', ['--model', tiny, '--out', out], 2, 'vit-relevance explain: error: give an image, a .npy tensor or --text to explain'),
  explain('two inputs', ['<tmp>/input.npy', '<tmp>/photo.png', '--model', tiny, '--out', out], 2, 'vit-relevance explain: error: one input expected, got <tmp>/input.npy <tmp>/photo.png'),
  explain('no --model', ['<tmp>/input.npy', '--out', out], 2, 'vit-relevance explain: error: --model is required (see `vit-relevance explain --help`)'),
  explain('--class without a value', ['<tmp>/input.npy', '--model', tiny, '--out', out, '--class'], 2, 'vit-relevance explain: error: --class needs a class id or name'),
  explain('--target (the old name of --class) without a value', ['<tmp>/input.npy', '--model', tiny, '--out', out, '--target'], 2, 'vit-relevance explain: error: --class needs a class id or name'),
  explain('unknown method', ['<tmp>/input.npy', '--model', tiny, '--method', 'nope', '--out', out], 2, /^vit-relevance explain: error: unknown method "nope"; known: all, transformer_attribution, /),
  explain('unknown colormap', ['<tmp>/input.npy', '--model', tiny, '--colormap', 'rainbow', '--out', out], 2, 'vit-relevance explain: error: unknown colormap "rainbow"; known: jet, viridis, inferno, turbo, gray, rdbu'),
  explain('opacity out of range', ['<tmp>/input.npy', '--model', tiny, '--opacity', '1.5', '--out', out], 2, 'vit-relevance explain: error: --opacity must be a number in [0,1], got "1.5"'),
  explain('opacity not a number', ['<tmp>/input.npy', '--model', tiny, '--opacity', 'half', '--out', out], 2, 'vit-relevance explain: error: --opacity must be a number in [0,1], got "half"'),
  explain('--threads 0', ['<tmp>/input.npy', '--model', tiny, '--threads', '0', '--out', out], 2, 'vit-relevance explain: error: --threads must be >= 1, got 0'),
  explain('unknown --exif mode', ['<tmp>/photo.png', '--model', tiny, '--exif', 'rotate', '--out', out], 2, 'vit-relevance explain: error: --exif must be use or ignore, got "rotate"'),
  explain('unknown engine', ['<tmp>/input.npy', '--model', tiny, '--engine', 'gpu', '--out', out], 1, 'vit-relevance explain: error: unknown engine "gpu"; known: auto, node, web'),
  // ---- explain --text: each refused before any graph opens (the text model's graph is not ONNX)
  explain('an empty --text', ['--text', '', '--model', textModel, '--out', out], 2, 'vit-relevance explain: error: --text needs a non-empty value'),
  explain('a whitespace-only --text', ['--text', ' \t ', '--model', textModel, '--out', out], 2, 'vit-relevance explain: error: --text is only whitespace: give a text to explain'),
  explain('a --text of control characters only', ['--text', '\u0001\u200b', '--model', textModel, '--out', out], 2, 'vit-relevance explain: error: --text holds only control or format characters (such as U+0000–U+001F or zero-width marks), which BERT\'s tokenizer drops: give a text to explain'),
  explain('a text file with an empty line', ['--text-file', '<tmp>/texts/empty-line.txt', '--model', textModel, '--out', out], 2, 'vit-relevance explain: error: <tmp>/texts/empty-line.txt line 2 is empty: give a text to explain (one text per line, no empty lines)'),
  explain('a text file that is not UTF-8', ['--text-file', '<tmp>/texts/not-utf8.txt', '--model', textModel, '--out', out], 2, 'vit-relevance explain: error: <tmp>/texts/not-utf8.txt line 2 is not valid UTF-8: save the file as UTF-8'),
  explain('a class the text model does not have', ['--text', 'good', '--model', textModel, '--class', 'joyful', '--out', out], 2, 'vit-relevance explain: error: --class "joyful" is not a class of this model.'),
  explain('a photo given to a text model', ['<tmp>/photo.png', '--model', textModel, '--out', out], 2, 'vit-relevance explain: error: tiny-text is a text model: it explains texts, not photos (give a string, or --text / --text-file in the CLI)'),
  explain('--text given to an image model', ['--text', 'a good film', '--model', tiny, '--out', out], 2, 'vit-relevance explain: error: tiny is an image model: it explains photos, not texts (a text needs a text model, e.g. bert-mini-sst2-movies)'),
  attribute('--text given to an image model', ['--text', 'a good film', '--model', tiny, '--out', out], 2, 'vit-relevance attribute: error: tiny is an image model: it explains photos, not texts (a text needs a text model, e.g. bert-mini-sst2-movies)'),
  // ---- explain: classes, checked before the model loads
  explain('a misspelt class name', ['<tmp>/input.npy', '--model', tiny, '--class', 'tabbby', '--out', out], 1, 'vit-relevance explain: error: --class "tabbby" is not a class of this model. Close matches: 0 (tabby, tabby cat).'),
  explain('a misspelt class name given to --target, the old name of --class', ['<tmp>/input.npy', '--model', tiny, '--target', 'tabbby', '--out', out], 1, 'vit-relevance explain: error: --class "tabbby" is not a class of this model. Close matches: 0 (tabby, tabby cat).'),
  explain('a misspelt contrast class (issue 29: called a target)', ['<tmp>/input.npy', '--model', tiny, '--class', '0', '--contrast', 'tabbby', '--out', out], 1, 'vit-relevance explain: error: --contrast "tabbby" is not a class of this model. Close matches: 0 (tabby, tabby cat).'),
  explain('an ambiguous class name', ['<tmp>/input.npy', '--model', tiny, '--class', 'crane', '--out', out], 1, 'vit-relevance explain: error: --class "crane" is ambiguous: it names classes 2 (crane); 3 (crane, derrick). Give the class id instead.'),
  explain('a class id out of range', ['<tmp>/input.npy', '--model', tiny, '--class', '9', '--out', out], 1, 'vit-relevance explain: error: --class 9 is out of range: this model has classes 0..3'),
  explain('a negative class id', ['<tmp>/input.npy', '--model', tiny, '--class', '-1', '--out', out], 1, 'vit-relevance explain: error: --class -1 is out of range: this model has classes 0..3'),
  explain('an empty class', ['<tmp>/input.npy', '--model', tiny, '--class', ' ', '--out', out], 1, 'vit-relevance explain: error: --class is empty: give a class id, a WordNet id or a class name'),
  // ---- explain: the input, checked before the model loads (the graph here is not ONNX,
  // so a message about the input proves the model was never opened)
  explain('an input that is not an image', ['<repo>/package.json', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <repo>/package.json is not a readable image (PNG, JPEG, WebP, …): Input buffer contains unsupported image format'),
  explain('a missing photo', ['<tmp>/no-such-photo.jpg', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: cannot read image <tmp>/no-such-photo.jpg: no such file'),
  explain('a folder as the photo', ['<tmp>/folder.png', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: cannot read image <tmp>/folder.png: it is a folder'),
  explain('text named .png', ['<tmp>/not-a-photo.png', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/not-a-photo.png is not a readable image (PNG, JPEG, WebP, …): Input buffer contains unsupported image format'),
  explain('an empty photo', ['<tmp>/empty.png', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/empty.png is not a readable image (PNG, JPEG, WebP, …): Input Buffer is empty'),
  explain('a truncated PNG', ['<tmp>/truncated.png', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/truncated.png is not a readable image (PNG, JPEG, WebP, …): Input buffer has corrupt header:'),
  explain('a photo over the pixel limit (issue 11: 3.5 GB)', ['<tmp>/too-big.png', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/too-big.png is 8000×6000 = 48,000,000 pixels; the CLI decodes photos of up to 40,000,000 pixels: scale it down first'),
  explain('a .npy of the wrong shape', ['<tmp>/input-5x5.npy', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/input-5x5.npy: input tensor has shape [3,5,5], the model takes [3,4,4] or [1,3,4,4] (already normalised)'),
  explain('a scalar .npy input', ['<tmp>/input-scalar.npy', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/input-scalar.npy: input tensor has shape [], the model takes [3,4,4] or [1,3,4,4] (already normalised)'),
  explain('a NaN in the .npy input', ['<tmp>/input-nan.npy', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/input-nan.npy: input tensor holds a non-finite value at index 5'),
  explain('a .npy input that is not NumPy', ['<tmp>/not-numpy.npy', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, 'vit-relevance explain: error: <tmp>/not-numpy.npy: not a NumPy .npy file (no \\x93NUMPY magic)'),
  // ---- explain: the output folder, checked first (issue 11: after the whole run)
  explain('--out is a file', ['<tmp>/input.npy', '--model', tiny, '--out', '<tmp>/a-file'], 1, 'vit-relevance explain: error: --out <tmp>/a-file is a file, not a folder; give a folder (it is created when missing)'),
  explain('--save-tensors where tensors/ is a file', ['<tmp>/input.npy', '--model', tiny, '--save-tensors', '--out', '<tmp>/tensors-is-a-file'], 1, 'vit-relevance explain: error: --out <tmp>/tensors-is-a-file/tensors is a file, not a folder; give a folder (it is created when missing)'),
  explain('--out inside a file', ['<tmp>/input.npy', '--model', tiny, '--out', '<tmp>/a-file/sub'], 1, 'vit-relevance explain: error: --out <tmp>/a-file/sub cannot be created: <tmp>/a-file is a file, not a folder'),
  explain('--out cannot be created', ['<tmp>/input.npy', '--model', tiny, '--out', '/sys/vitrel-out'], 1, 'vit-relevance explain: error: --out /sys/vitrel-out cannot be created: permission denied'),
  explain('--out where maps.json is a folder', ['<tmp>/input.npy', '--model', tiny, '--out', '<tmp>/maps-json-is-a-folder'], 1, 'vit-relevance explain: error: --out <tmp>/maps-json-is-a-folder: maps.json exists and is a folder, so it cannot be written; remove it or choose another folder'),
  explain('--out where an overlay is a folder', ['<tmp>/input.npy', '--model', tiny, '--class', '0', '--method', 'raw_attention', '--out', '<tmp>/overlay-is-a-folder'], 1, 'vit-relevance explain: error: --out <tmp>/overlay-is-a-folder: 0-tabby-raw_attention.png exists and is a folder, so it cannot be written; remove it or choose another folder'),
  // ---- explain: the model files
  explain('a missing graph', ['<tmp>/input.npy', '--model', '<tmp>/models/gone.onnx', '--out', out], 1, 'vit-relevance explain: error: cannot read model <tmp>/models/gone.onnx: no such file'),
  explain('a graph without its metadata', ['<tmp>/input.npy', '--model', '<tmp>/models/lonely.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata <tmp>/models/lonely.json not found: an explainer graph needs its .json beside the .onnx (lonely.onnx); the exporter writes both (npm run build)'),
  explain('metadata that is not JSON', ['<tmp>/input.npy', '--model', '<tmp>/models/bad-json.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata <tmp>/models/bad-json.json is not valid JSON: Unexpected end of JSON input'),
  explain('metadata that is an array', ['<tmp>/input.npy', '--model', '<tmp>/models/array-json.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of array-json.onnx is not an explainer metadata object'),
  explain('metadata of another format', ['<tmp>/input.npy', '--model', '<tmp>/models/other-format.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of other-format.onnx is not valid explainer metadata: "format" is "something-else", expected "vit-relevance-explainer"'),
  explain('metadata of a newer format version', ['<tmp>/input.npy', '--model', '<tmp>/models/version-2.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of version-2.onnx is not valid explainer metadata: "format_version" 2 is not supported (this runtime reads 1)'),
  explain('metadata without architecture', ['<tmp>/input.npy', '--model', '<tmp>/models/no-arch.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of no-arch.onnx is not valid explainer metadata: "architecture" is missing'),
  explain('metadata without outputs', ['<tmp>/input.npy', '--model', '<tmp>/models/no-outputs-meta.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of no-outputs-meta.onnx is not valid explainer metadata: "outputs" is missing'),
  explain('fewer labels than classes', ['<tmp>/input.npy', '--model', '<tmp>/models/labels-short.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of labels-short.onnx is not valid explainer metadata: "labels" has 2 entries, architecture.num_classes is 4'),
  explain('a zero preprocess std', ['<tmp>/input.npy', '--model', '<tmp>/models/bad-std.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of bad-std.onnx is not valid explainer metadata: "preprocess.std" must be 3 positive numbers'),
  explain('grid that is not image size / patch size (issue 11: grid [7,28] passed)', ['<tmp>/input.npy', '--model', '<tmp>/models/grid-1x4.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of grid-1x4.onnx is not valid explainer metadata: "architecture.grid" [1,4] does not match image_size 4×4 / patch_size 2 = [2,2]'),
  explain('image size not a multiple of the patch', ['<tmp>/input.npy', '--model', '<tmp>/models/patch-3.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of patch-3.onnx is not valid explainer metadata: "architecture.grid" [2,2] does not match image_size 4×4 / patch_size 3 (not a whole number of patches)'),
  explain('special_tokens 0 (issue 11)', ['<tmp>/input.npy', '--model', '<tmp>/models/special-0.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of special-0.onnx is not valid explainer metadata: "architecture.tokens" 5 != grid 2×2 + 0 special token(s)'),
  explain('special_tokens negative', ['<tmp>/input.npy', '--model', '<tmp>/models/special-neg.onnx', '--out', out], 1, 'vit-relevance explain: error: metadata of special-neg.onnx is not valid explainer metadata: "architecture.special_tokens" must be a non-negative integer'),
  explain('a graph file that is not ONNX', ['<tmp>/input.npy', '--model', '<tmp>/models/not-onnx.onnx', '--out', out], 1, /^vit-relevance explain: error: not-onnx\.onnx is not an ONNX model: Can't create a session\. /),
  explain('an empty graph file', ['<tmp>/input.npy', '--model', '<tmp>/models/empty-onnx.onnx', '--out', out], 1, /^vit-relevance explain: error: empty-onnx\.onnx is not an ONNX model: Can't create a session\. /),
  explain('a graph without the explainer outputs', ['<tmp>/input.npy', '--model', '<tmp>/models/no-outputs.onnx', '--out', out], 1, 'vit-relevance explain: error: no-outputs.onnx lacks outputs attn_grad, attn_rel expected by the explainer contract (it has inputs pixels, target, pixel_relevance; outputs logits, attn, attn_rel_classic_last, input_rel_classic)'),
  explain('a plain forward graph as the explainer', ['<tmp>/input.npy', '--model', '<tmp>/models/plain.onnx', '--out', out], 1, 'vit-relevance explain: error: plain.onnx lacks inputs target, pixel_relevance and outputs attn, attn_grad, attn_rel, attn_rel_classic_last, input_rel_classic expected by the explainer contract (it has inputs pixels; outputs logits)'),
  // ---- explain: metadata that contradicts the graph's own shapes (issue 11: a full run, then an internal error)
  explain('a method defined for more blocks than the model has', ['<tmp>/input.npy', '--model', '<tmp>/models/one-block.onnx', '--method', 'ablation_second_block', '--out', out], 1, 'vit-relevance explain: error: ablation_second_block: needs at least 2 blocks, the model has 1'),
  explain('blocks that the graph does not have', ['<tmp>/input.npy', '--model', '<tmp>/models/blocks-3.onnx', '--out', out], 1, 'vit-relevance explain: error: the metadata does not match blocks-3.onnx: architecture.blocks is 3 in the metadata, 2 in the graph (attn [2,1,5,5])'),
  explain('heads that the graph does not have', ['<tmp>/input.npy', '--model', '<tmp>/models/heads-4.onnx', '--out', out], 1, 'vit-relevance explain: error: the metadata does not match heads-4.onnx: architecture.heads is 4 in the metadata, 1 in the graph (attn [2,1,5,5])'),
  explain('num_classes that the graph does not have', ['<tmp>/input.npy', '--model', '<tmp>/models/classes-10.onnx', '--out', out], 1, 'vit-relevance explain: error: the metadata does not match classes-10.onnx: architecture.num_classes is 10 in the metadata, 4 in the graph (target [K,4])'),
  explain('an image size and tokens that the graph does not have', ['<tmp>/input-8x8.npy', '--model', '<tmp>/models/size-8.onnx', '--out', out], 1, 'vit-relevance explain: error: the metadata does not match size-8.onnx: architecture.image_size[0] is 8 in the metadata, 4 in the graph (pixels [1,3,4,4]); architecture.image_size[1] is 8 in the metadata, 4 in the graph (pixels [1,3,4,4])'),
  explain('a photo preprocessed to another size than the metadata says', ['<tmp>/photo.png', '--model', '<tmp>/models/size-8.onnx', '--out', out], 1, 'vit-relevance explain: error: preprocessing gives a 4x4 input but the model takes 8x8: check "preprocess" in the metadata'),
  {
    ...explain('the split photo graph without its external weights (issue 11: "not an ONNX model")', ['<tmp>/photo.png', '--model', '<tmp>/models/split-photo.onnx', '--out', out], 1, 'vit-relevance explain: error: split-photo.onnx keeps its weights in the external file deit_tiny_patch16_224.weights.bin, which is missing: put deit_tiny_patch16_224.weights.bin beside it (the exporter writes both)'),
    requires: { file: '<tmp>/models/split-photo.onnx', what: 'the DeiT-tiny export (npm run build)' },
  },

  // ---- attribute: the output folder, checked before the graphs open (issue 29: after the whole run, exit 70)
  attribute('--out is a file', ['<tmp>/input.npy', '--model', tiny, '--out', '<tmp>/a-file'], 1, 'vit-relevance attribute: error: --out <tmp>/a-file is a file, not a folder; give a folder (it is created when missing)'),
  attribute('--out inside a file', ['<tmp>/input.npy', '--model', tiny, '--out', '<tmp>/a-file/sub'], 1, 'vit-relevance attribute: error: --out <tmp>/a-file/sub cannot be created: <tmp>/a-file is a file, not a folder'),
  attribute('--out cannot be created', ['<tmp>/input.npy', '--model', tiny, '--out', '/sys/vitrel-out'], 1, 'vit-relevance attribute: error: --out /sys/vitrel-out cannot be created: permission denied'),
  attribute('--out a folder that cannot be written', ['<tmp>/input.npy', '--model', tiny, '--out', '/sys'], 1, 'vit-relevance attribute: error: --out /sys is not writable: permission denied'),
  attribute('--out where attribution.json is a folder', ['<tmp>/input.npy', '--model', tiny, '--out', '<tmp>/attribution-json-is-a-folder'], 1, 'vit-relevance attribute: error: --out <tmp>/attribution-json-is-a-folder: attribution.json exists and is a folder, so it cannot be written; remove it or choose another folder'),
  attribute('--out where a tensor file is a folder', ['<tmp>/input.npy', '--model', tiny, '--save-tensors', '--out', '<tmp>/tensor-is-a-folder'], 1, 'vit-relevance attribute: error: --out <tmp>/tensor-is-a-folder: attr-block1.npy exists and is a folder, so it cannot be written; remove it or choose another folder'),

  // ---- eval (the evaluations' own checks; more arrive with the evaluation hardening)
  evaluation('unknown evaluation', ['frobnicate'], 2, 'vit-relevance eval: error: unknown evaluation "frobnicate"; available: perturbation, pointing-game, segmentation, prune-heads, rationales, merge (see `vit-relevance eval --help`)'),
  evaluation('perturbation without --images', ['perturbation', '--labels', '<tmp>/eval/labels.csv', '--model', tiny, '--out', out], 2, 'vit-relevance eval: error: --images is required (see `vit-relevance eval perturbation --help`)'),
  evaluation('a photo smaller than one patch (1×1), refused as the page refuses it', ['segmentation', '--images', '<tmp>/eval/one', '--labels', '<tmp>/eval/one-labels.csv', '--masks', '<tmp>/eval/one-masks', '--model', tiny, '--out', '<tmp>/eval/one-run'], 1, 'vit-relevance eval: error: one.png is only 1×1 px. The model reads 2×2 patches: use a photo at least 2 px on each side. (rerun with --on-unreadable skip to record it as skipped and go on)'),
  evaluation('a malformed --shard', evalArgs('pointing-game', '--shard', '3'), 2, 'vit-relevance eval: error: --shard must look like i/n (e.g. 1/4, 1-based) or auto, got "3"'),
  evaluation('--shard 0/2', evalArgs('pointing-game', '--shard', '0/2'), 2, 'vit-relevance eval: error: --shard 0/2: i must be between 1 and 2 (shards are numbered from 1)'),
  evaluation('--shard 3/2', evalArgs('pointing-game', '--shard', '3/2'), 2, 'vit-relevance eval: error: --shard 3/2: i must be between 1 and 2 (shards are numbered from 1)'),
  evaluation('unknown method', evalArgs('pointing-game', '--methods', 'bogus'), 2, /^vit-relevance eval: error: unknown method "bogus"; known: all, transformer_attribution, /),
  evaluation('--limit 0', evalArgs('pointing-game', '--limit', '0'), 2, 'vit-relevance eval: error: --limit must be >= 1, got 0'),
  evaluation('--out is a file', pointing('<tmp>/eval/images', '<tmp>/eval/labels.csv', '<tmp>/a-file'), 1, 'vit-relevance eval: error: --out <tmp>/a-file is a file, not a folder; give a folder (it is created when missing)'),
  evaluation('--out where run.json is a folder', pointing('<tmp>/eval/images', '<tmp>/eval/labels.csv', '<tmp>/run-json-is-a-folder'), 1, 'vit-relevance eval: error: --out <tmp>/run-json-is-a-folder: run.json exists and is a folder, so it cannot be written; remove it or choose another folder'),
  // every evaluation checks the whole run folder first: the summary and reports too (issue 29)
  ...Object.entries({ perturbation: [], 'pointing-game': [], segmentation: ['--masks', '<tmp>/eval/images'], 'prune-heads': ['--rank-images', '1'] })
    .flatMap(([kind, own]) => {
      const into = (to) => evalArgs(kind, ...own).map((a) => (a === out ? to : a));
      return [
        evaluation(`${kind}: --out is a file`, into('<tmp>/a-file'), 1, 'vit-relevance eval: error: --out <tmp>/a-file is a file, not a folder; give a folder (it is created when missing)'),
        evaluation(`${kind}: --out cannot be created`, into('/sys/vitrel-out'), 1, 'vit-relevance eval: error: --out /sys/vitrel-out cannot be created: permission denied'),
        evaluation(`${kind}: --out where ${kind}.json is a folder`, into('<tmp>/summary-is-a-folder'), 1, `vit-relevance eval: error: --out <tmp>/summary-is-a-folder: ${kind}.json exists and is a folder, so it cannot be written; remove it or choose another folder`),
      ];
    }),
  evaluation('pointing-game: --out where its report is a folder', pointing('<tmp>/eval/images', '<tmp>/eval/labels.csv', '<tmp>/report-is-a-folder'), 1, 'vit-relevance eval: error: --out <tmp>/report-is-a-folder: pointing-game.md exists and is a folder, so it cannot be written; remove it or choose another folder'),
  evaluation('perturbation without the forward graph', evalArgs('perturbation'), 1, 'vit-relevance eval: error: <tmp>/models/tiny.forward.onnx not found: this command needs the plain forward graph beside the explainer (models/export.py --plain writes it; npm run build does)'),
  evaluation('a missing image folder', pointing('<tmp>/eval/nope', '<tmp>/eval/labels.csv'), 1, 'vit-relevance eval: error: image folder <tmp>/eval/nope does not exist'),
  evaluation('a file as the image folder', pointing('<tmp>/eval/labels.csv', '<tmp>/eval/labels.csv'), 1, 'vit-relevance eval: error: <tmp>/eval/labels.csv is a file; --images takes a folder of photos'),
  evaluation('a folder without photos', pointing('<tmp>/eval/no-photos', '<tmp>/eval/labels.csv'), 1, 'vit-relevance eval: error: image folder <tmp>/eval/no-photos holds no photos (.png, .jpg, .jpeg, .webp)'),
  labelled('a missing labels file', 'nope.csv', 'vit-relevance eval: error: cannot read label file <tmp>/eval/nope.csv: no such file'),
  evaluation('a folder as the labels file', pointing('<tmp>/eval/images', '<tmp>/eval'), 1, 'vit-relevance eval: error: --labels <tmp>/eval is a folder, expected a file'),
  labelled('a label that is no class', 'labels-unknown.csv', 'vit-relevance eval: error: labels-unknown.csv row 1 (a.png): label "zebra" is not a class of this model.'),
  labelled('a photo without a label', 'labels-missing.csv', 'vit-relevance eval: error: 1 photo(s) in <tmp>/eval/images have no label in labels-missing.csv: b.png (--skip-unlabelled leaves them out)'),
  labelled('a label for a photo that is not there', 'labels-extra.csv', 'vit-relevance eval: error: labels-extra.csv names 1 file(s) that are not photos in <tmp>/eval/images: c.png'),
  labelled('a CSV row with three fields', 'labels-fields.csv', 'vit-relevance eval: error: labels-fields.csv row 1 has 3 field(s), expected "file,label" (quote names holding commas)'),
  labelled('a CSV with an unclosed quote', 'labels-quote.csv', 'vit-relevance eval: error: CSV ends inside a quoted field (a missing closing ")'),
  labelled('a photo labelled twice', 'labels-twice.csv', 'vit-relevance eval: error: labels-twice.csv row 2: a.png is labelled twice, as 0 and 1'),
  labelled('a synset file of the wrong form', 'synsets-bad.txt', 'vit-relevance eval: error: synsets-bad.txt line 1 is not "<wnid> <class name>": not a synset line'),
  evaluation('too few classes for a mosaic', evalArgs('pointing-game'), 1, 'vit-relevance eval: error: a mosaic needs photos of 4 different classes; the folder has 2 labelled photo(s) of 1 class(es)'),
  evaluation('attattr in an evaluation that has no use for it', evalArgs('segmentation', '--masks', '<tmp>/eval/images', '--methods', 'attattr'), 2, 'vit-relevance eval: error: --methods: attattr is not available in eval segmentation'),
  evaluation('attattr without the attribution graphs', evalArgs('pointing-game', '--methods', 'attattr'), 1, 'vit-relevance eval: error: attribution graphs not found: <tmp>/models/tiny.states.onnx, <tmp>/models/tiny.attribution.bin, <tmp>/models/tiny.attr0.onnx, … (models/export.py --attribution writes them; npm run build does)'),
  evaluation('prune-heads without --rank-images', evalArgs('prune-heads'), 2, 'vit-relevance eval: error: --rank-images is required (see `vit-relevance eval prune-heads --help`)'),
  evaluation('prune-heads --rank-images 0', evalArgs('prune-heads', '--rank-images', '0'), 2, 'vit-relevance eval: error: --rank-images must be >= 1, got 0'),
  evaluation('prune-heads: an unknown --by measure', evalArgs('prune-heads', '--rank-images', '1', '--by', 'attention,magnitude'), 2, 'vit-relevance eval: error: --by: unknown measure "magnitude"; known: attribution, attention, taylor, random'),
  evaluation('prune-heads: a --by measure twice', evalArgs('prune-heads', '--rank-images', '1', '--by', 'taylor,random,taylor'), 2, 'vit-relevance eval: error: --by names a measure twice: "taylor,random,taylor"'),
  evaluation('prune-heads --batch 0', evalArgs('prune-heads', '--rank-images', '1', '--batch', '0'), 2, 'vit-relevance eval: error: --batch must be >= 1, got 0'),
  evaluation('prune-heads --steps 0', evalArgs('prune-heads', '--rank-images', '1', '--steps', '0'), 2, 'vit-relevance eval: error: --steps must be >= 1, got 0'),
  evaluation('prune-heads: --methods does not apply', evalArgs('prune-heads', '--rank-images', '1', '--methods', 'attattr'), 2, 'vit-relevance eval: error: Unknown option \'--methods\' (see `vit-relevance eval prune-heads --help`)'),
  evaluation('prune-heads: --ranking is not a run folder', evalArgs('prune-heads', '--rank-images', '1', '--ranking', '<tmp>/eval/images'), 1, 'vit-relevance eval: error: --ranking <tmp>/eval/images is not a run folder (no run.json)'),
  evaluation('prune-heads: no photo left to evaluate', evalArgs('prune-heads', '--rank-images', '2'), 1, 'vit-relevance eval: error: --rank-images 2 leaves no held-out photo: the folder has 2 labelled photo(s)'),
  evaluation('prune-heads without the head-masked graph', evalArgs('prune-heads', '--rank-images', '1', '--by', 'taylor'), 1, 'vit-relevance eval: error: attribution graphs not found: <tmp>/models/tiny.masked.onnx, <tmp>/models/tiny.attribution.bin (models/export.py --attribution writes them; npm run build does)'),
  evaluation('an unknown --on-unreadable', evalArgs('pointing-game', '--on-unreadable', 'maybe'), 2, 'vit-relevance eval: error: --on-unreadable must be stop or skip, got "maybe"'),
  evaluation('--shard auto without a job runner', evalArgs('pointing-game', '--shard', 'auto'), 2, 'vit-relevance eval: error: --shard auto: no job runner found (none of SLURM_ARRAY_TASK_ID, JOB_COMPLETION_INDEX, PARALLEL_SEQ is set); run it as a Slurm array task, a Kubernetes Indexed Job pod or a GNU parallel job, or give --shard i/n'),
  evaluation('--shard auto/0', evalArgs('pointing-game', '--shard', 'auto/0'), 2, 'vit-relevance eval: error: --shard auto/0: the count after auto/ must be a positive integer'),
  evaluation('--out holding another evaluation', pointing('<tmp>/eval/images', '<tmp>/eval/labels.csv', '<tmp>/eval/runs/of-pointing-game').map((a) => (a === 'pointing-game' ? 'perturbation' : a)), 1, 'vit-relevance eval: error: <tmp>/eval/runs/of-pointing-game holds a pointing-game evaluation, not perturbation; use another --out folder'),
  evaluation('resuming on other photos (issue 11: resumed silently)', ['perturbation', '--images', '<tmp>/eval/images', '--labels', '<tmp>/eval/labels.csv', '--model', tiny, '--out', '<tmp>/eval/runs/other-photos'], 1, /^vit-relevance eval: error: <tmp>\/eval\/runs\/other-photos was computed on other data \(.*images: "\/data\/other-photos" vs "<tmp>\/eval\/images".*\); use another --out folder or the same photos and labels$/),
  evaluation('merge without folders', ['merge', '--out', out], 2, 'vit-relevance eval: error: give the run folders to merge (see `vit-relevance eval merge --help`)'),
  evaluation('merge into a file', ['merge', '<tmp>/eval/runs/shard-1', '--out', '<tmp>/a-file'], 1, 'vit-relevance eval: error: --out <tmp>/a-file is a file, not a folder; give a folder (it is created when missing)'),
  evaluation('merge where the summary is a folder', ['merge', '<tmp>/eval/runs/of-pointing-game', '--out', '<tmp>/summary-is-a-folder'], 1, 'vit-relevance eval: error: --out <tmp>/summary-is-a-folder: pointing-game.json exists and is a folder, so it cannot be written; remove it or choose another folder'),
  evaluation('merge a folder without run.json', ['merge', '<tmp>/eval/runs/shard-1', '--out', out], 1, 'vit-relevance eval: error: <tmp>/eval/runs/shard-1 is not a run folder (no run.json)'),
  evaluation('merge a folder of records without run.json', ['merge', '<tmp>/eval/runs/not-a-run', '--out', out], 1, 'vit-relevance eval: error: <tmp>/eval/runs/not-a-run is not a run folder (no run.json)'),

  // ---- export: hostile checkpoints and options (no code of a file runs; one line, exit 2, nothing written)
  exportCase('a checkpoint whose pickle runs a command', exportTo('<tmp>/export/evil.pth'), 2, 'vit-relevance export: error: <tmp>/export/evil.pth carries posix.system, which loading it would call: refused (a checkpoint holds only tensors and containers; no code of a file runs)', { absent: ['<tmp>/export/out', '<tmp>/export/ran'] }),
  exportCase('a zip bomb (a deflated 4 MB tensor in a few KB)', exportTo('<tmp>/export/bomb.pth'), 2, /^vit-relevance export: error: <tmp>\/export\/bomb\.pth: record big\/\S+ is compressed \(\d+ bytes from \d+\); torch\.save stores records uncompressed$/),
  exportCase('a safetensors header that is a list', exportTo('<tmp>/export/list.safetensors'), 2, 'vit-relevance export: error: <tmp>/export/list.safetensors: the safetensors header is a JSON list, not an object'),
  exportCase('a safetensors header length of 2^63', exportTo('<tmp>/export/huge-header.safetensors'), 2, 'vit-relevance export: error: <tmp>/export/huge-header.safetensors is truncated or not a safetensors file (header of 9223372036854775808 bytes in a 16-byte file)'),
  exportCase('negative safetensors offsets', exportTo('<tmp>/export/negative.safetensors'), 2, "vit-relevance export: error: <tmp>/export/negative.safetensors is truncated or corrupt: tensor 'w' needs bytes -8..0 of 16"),
  exportCase('a float in a safetensors shape', exportTo('<tmp>/export/float-shape.safetensors'), 2, "vit-relevance export: error: <tmp>/export/float-shape.safetensors: tensor 'w': shape [2.5] is not a list of at most 8 non-negative integers"),
  exportCase('a device as the checkpoint', exportTo('/dev/zero'), 2, 'vit-relevance export: error: checkpoint /dev/zero is not a file or a folder (a device, FIFO or socket)'),
  exportCase('a FIFO as the checkpoint', exportTo('<tmp>/export/fifo.pth'), 2, 'vit-relevance export: error: checkpoint <tmp>/export/fifo.pth is not a file or a folder (a device, FIFO or socket)'),
  exportCase('a torchvision ViT whose head count no shape tells (4 heads of 32)', exportTo('<tmp>/export/tv-4x32-heads.pth'), 2, "vit-relevance export: error: the head count is not in a torchvision checkpoint's tensors and no config gives it; its shapes are none of torchvision's published ViTs: pass --heads N (N divides the width 128)"),
  exportCase('--heads that does not divide the width', exportTo('<tmp>/export/small.pth', '--heads', '5'), 2, 'vit-relevance export: error: --heads 5 does not divide the width 32'),
  exportCase('a config field of the wrong type', exportTo('<tmp>/export/hf-heads-string'), 2, "vit-relevance export: error: config.json: num_attention_heads is '4', expected an integer >= 1"),
  exportCase('layer_norm_eps: Infinity in config.json', exportTo('<tmp>/export/hf-eps-infinity'), 2, 'vit-relevance export: error: <tmp>/export/hf-eps-infinity/config.json is not valid JSON (Infinity is not a JSON value)'),
  exportCase('a preprocessor std of zeros', exportTo('<tmp>/export/hf-std-zero'), 2, 'vit-relevance export: error: preprocessor_config.json: image_std is [0, 0, 0], expected three finite numbers > 0'),
  exportCase('--eps Infinity', exportTo('<tmp>/export/small.pth', '--eps', 'Infinity'), 2, 'vit-relevance export: error: --eps takes a number, got "Infinity"'),
  exportCase('--name a path outside --out', exportTo('<tmp>/export/small.pth', '--heads', '4', '--name', '../../x'), 2, "vit-relevance export: error: --name: '../../x' is not a model name (letters, digits, '-', '_' and '.', starting with a letter or digit, at most 64 characters)"),
  exportCase('--name an absolute path', exportTo('<tmp>/export/small.pth', '--heads', '4', '--name', '/tmp/x'), 2, "vit-relevance export: error: --name: '/tmp/x' is not a model name (letters, digits, '-', '_' and '.', starting with a letter or digit, at most 64 characters)"),
  exportCase('--out that cannot be written', ['<tmp>/export/small.pth', '--heads', '4', '--out', '/sys/vitrel-out'], 2, 'vit-relevance export: error: --out /sys/vitrel-out cannot be written (Operation not permitted)'),
  exportCase('--out holding an index.json that is not one', ['<tmp>/export/small.pth', '--heads', '4', '--out', '<tmp>/export/notes-out'], 2, 'vit-relevance export: error: <tmp>/export/notes-out/index.json is not valid JSON (Expecting value: line 1 column 1 (char 0)): refusing to overwrite it; move it away or choose another --out'),

  // ---- the page (tests/browser/hostile.test.js)
  page('a truncated PNG', { file: '<tmp>/truncated.png', name: 'broken.png', type: 'image/png' }, '“broken.png” could not be decoded: the file is damaged or not an image format this browser reads.'),
  page('a 1×1 photo', { file: '<tmp>/one.png', name: 'one.png', type: 'image/png' }, '“one.png” is only 1×1 px. The model reads 16×16 patches: use a photo at least 16 px on each side.'),
  page('an 8×8 photo', { file: '<tmp>/photo.png', name: 'small.png', type: 'image/png' }, '“small.png” is only 8×8 px. The model reads 16×16 patches: use a photo at least 16 px on each side.'),
  page('an empty file', { file: '<tmp>/empty.png', name: 'empty.png', type: 'image/png' }, '“empty.png” is empty.'),
  page('a text file', { file: '<tmp>/notes.txt', name: 'notes.txt', type: 'text/plain' }, '“notes.txt” is not an image (text/plain). Choose a PNG, JPEG, WebP or GIF photo.'),
  page('text with an image name', { file: '<tmp>/not-a-photo.png', name: 'fake.png', type: 'image/png' }, '“fake.png” could not be decoded: the file is damaged or not an image format this browser reads.'),
  page('no type and no image name (sent as application/octet-stream)', { file: '<tmp>/notes.txt', name: 'notes', type: '' }, '“notes” is not an image (application/octet-stream). Choose a PNG, JPEG, WebP or GIF photo.'),
  pageModel('a model file that is not ONNX', 'not-onnx', /could not be loaded.*not an ONNX model/),
  pageModel('metadata that does not match the graph', 'mismatch', /does not match|shape/),
  pageModel('a model file that is missing (404)', 'missing', /could not be loaded.*404/),
  pageModel('split graphs that do not fit each other', 'split-misfit', /could not be loaded.*split graphs do not fit/),
  pageModel("a weights file that is not the split graphs'", 'bad-weights', /could not be loaded.*(split graphs|external|not an ONNX)/i),
  pageModel('a model file that is not the one models/index.json hashes', 'altered', /could not be loaded.*does not match models\/index\.json: its SHA-256 is [0-9a-f]{64}, the index says 0{64}/),
  pageModel('metadata that is not the one models/index.json hashes', 'altered-metadata', /could not be loaded.*\.json does not match models\/index\.json: its SHA-256 is [0-9a-f]{64}, the index says 0{64}/),
  pageFolder('a folder that is not a model', 'photos', 'Could not open your model: “photos” is not an exported model folder: it has no index.json (vit-relevance export writes one)'),
  pageFolder('a model folder without its weights', 'no-weights', /^Could not open your model: “no-weights” lacks [\w-]+\.weights\.bin, which its index\.json names for [\w-]+$/),
  pageFolder('a model folder whose metadata is not JSON', 'bad-metadata', /^Could not open your model: “bad-metadata”: the metadata [\w-]+\.json is not valid JSON$/),
  pageFolder('a graph from another export', 'mixed', /^Could not open your model: [\w-]+\.photo\.onnx does not match its index\.json \(SHA-256 [0-9a-f]{12}…, the index says [0-9a-f]{12}…\): the folder mixes files of two exports$/),

  // ---- the static server (scripts/serve.js): its own table, run by tests/node/server-hostile.test.js
  ...SERVER_CASES.map((c) => server(c.name, { raw: c.request }, c.status, c.body)),
  ...SERVER_START_CASES.map((c) => ({ surface: 'server', name: `started with ${c.name}`, start: { port: c.port }, exit: c.exitCode, message: c.stderr.trimEnd() })),

  // ---- the page: hostile folders (tests/browser/open-model.test.js) and photos (tests/browser/hostile.test.js writes <tmp>/huge-20000.png)
  pageFolder('a model named ".." (it deleted every kept model)', 'dotdot-name', 'Could not open your model: “dotdot-name”/index.json names a model "..": a model\'s name is letters, digits, \'.\', \'_\' and \'-\', starting with a letter or digit'),
  pageFolder('a file named as a URL (it became a key Remove never removed)', 'url-file-name', /^Could not open your model: “url-file-name”\/index\.json names a file "https:evil\.example" for [\w-]+: not a plain file name$/),
  pageFolder('200 models over the same files (240 MB kept from 1.2 MB)', 'many-models', /^Could not open your model: “many-models”\/index\.json lists [\w-]+-0 and [\w-]+-1 over the same file [\w-]+\.json: each model of a folder has its own files$/),
  pageFolder('a sparse 2 GB weights file', 'huge-file', /^Could not open your model: “huge-file”\/[\w-]+\.weights\.bin is 2048\.0 MB: the page reads files of up to 2000\.0 MB$/),
  pageFolder('metadata that states another input size than its graphs (hash removed)', 'wrong-size', /^Could not open your model: [\w-]+ could not be loaded \(.*\b32\b.*\), so nothing of “wrong-size” was kept$/),
  pageFolder('a graph that is not ONNX (hash removed)', 'corrupt-graph', /^Could not open your model: [\w-]+ could not be loaded \(.*\), so nothing of “corrupt-graph” was kept$/),
  page('a 20000×20000 PNG of 1.2 MB (1.6 GB decoded)', { file: '<tmp>/huge-20000.png', name: 'huge.png', type: 'image/png' }, '“huge.png” is 20000×20000 = 400,000,000 pixels, more than the 150,000,000 a browser tab decodes here: scale it down first.'),
];
