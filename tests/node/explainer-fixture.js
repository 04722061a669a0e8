// A tiny explainer graph written as ONNX protobuf bytes by hand, so the explainer's
// plumbing (contract checks, K-slicing, target vectors) is tested in milliseconds without
// PyTorch or the real DeiT graph. Every output is a linear map with integer weights, so
// each slice's expected values are known exactly:
//   logits = flat(pixels) · WL;  attn = flat(pixels) · WA
//   attn_grad[k] = t_k · WG, attn_rel[k] = t_k · WR, … (W* rows are c·1000 + j + offset)
//   input_rel_classic[k] = (t_k · WI) · pixel_relevance
//   with lrp: input_rel_attnlrp[k] = (t_k · WX) · attnlrp_relevance, input_rel_cp_lrp likewise
// where t_k is target row k, or the one-hot of argmax(logits) when that row is all zeros
// (the contract's predicted-class rows).

// ---- minimal protobuf writer (varints and length-delimited fields are all ONNX needs)
function varint(n) {
  let v = BigInt.asUintN(64, BigInt(n));
  const out = [];
  do {
    let byte = Number(v & 0x7fn);
    v >>= 7n;
    if (v) byte |= 0x80;
    out.push(byte);
  } while (v);
  return out;
}
const key = (field, wire) => varint((field << 3) | wire);
const int = (field, n) => [...key(field, 0), ...varint(n)];
function bytes(field, payload) {
  const p = payload instanceof Uint8Array ? [...payload] : payload;
  return [...key(field, 2), ...varint(p.length), ...p];
}
const str = (field, s) => bytes(field, [...new TextEncoder().encode(s)]);
const msg = (...parts) => parts.flat();

// ---- ONNX messages
const FLOAT = 1;
const INT64 = 7;
function tensor(name, dims, type, raw) {
  return msg(...dims.map((d) => int(1, d)), int(2, type), str(8, name), bytes(9, new Uint8Array(raw.buffer)));
}
const dimension = (d) => (typeof d === 'string' ? bytes(1, str(2, d)) : bytes(1, int(1, d)));
const valueInfo = (name, dims) => msg(str(1, name), bytes(2, bytes(1, msg(int(1, FLOAT), bytes(2, msg(...dims.map(dimension)))))));
const intAttr = (name, value) => msg(str(1, name), int(3, value), int(20, 2)); // type INT
const node = (op, inputs, outputs, attrs = []) => msg(...inputs.map((i) => str(1, i)), ...outputs.map((o) => str(2, o)),
  str(3, `${op}_${outputs[0]}`), str(4, op), ...attrs.map((a) => bytes(5, a)));

// The weight vector e_a − e_b of `classes` entries: a target row that is not one-hot.
export function differenceRow(a, b, classes) {
  const v = new Float32Array(classes);
  v[a] = 1;
  v[b] = -1;
  return v;
}

export const TINY = { blocks: 2, heads: 1, grid: [2, 2], tokens: 5, patch: 2, size: [4, 4], classes: 4 };

// Weight matrix [rows, cols] with entry (r, c) = r·1000 + c + offset.
export function weight(rows, cols, offset) {
  const w = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) w[r * cols + c] = r * 1000 + c + offset;
  return w;
}

// The optional outputs (runtime/metadata.js OPTIONAL_OUTPUTS) and the switch of each.
const SWITCHES = { input_rel_classic: 'pixel_relevance', input_rel_attnlrp: 'attnlrp_relevance', input_rel_cp_lrp: 'cp_lrp_relevance' };

// The bytes of the tiny graph. `outputs` lets a test leave contract outputs out; `plain`
// gives the matching plain forward graph (input pixels, output logits); `lrp` adds the
// optional outputs of attnlrp and cp_lrp with their switches (an export that has them).
export function tinyExplainerOnnx({ outputs, plain = false, lrp = false } = {}) {
  const { blocks: B, heads: h, tokens: S, size: [H, W], classes: C } = TINY;
  const P = 3 * H * W;
  const A = B * h * S * S;
  const spec = {
    // name: [weight rows, weight cols, offset, source, reshape]
    logits: [P, C, 0, 'flat', [1, C]],
    attn: [P, A, 0.5, 'flat', [B, h, S, S]],
    attn_grad: [C, A, 0, 'target', [-1, B, h, S, S]],
    attn_rel: [C, A, 100, 'target', [-1, B, h, S, S]],
    attn_rel_classic_last: [C, h * S * S, 200, 'target', [-1, h, S, S]],
    input_rel_classic: [C, H * W, 300, 'target', [-1, H, W]],
    ...(lrp && {
      input_rel_attnlrp: [C, H * W, -400, 'target', [-1, H, W]],
      input_rel_cp_lrp: [C, H * W, 500, 'target', [-1, H, W]],
    }),
  };
  const outDims = {
    logits: [1, C], attn: [B, h, S, S], attn_grad: ['K', B, h, S, S], attn_rel: ['K', B, h, S, S],
    attn_rel_classic_last: ['K', h, S, S], input_rel_classic: ['K', H, W],
    input_rel_attnlrp: ['K', H, W], input_rel_cp_lrp: ['K', H, W],
  };
  const names = plain ? ['logits'] : outputs ?? Object.keys(spec);
  const nodes = [node('Reshape', ['pixels', 'flat_shape'], ['flat'])];
  const inits = [tensor('flat_shape', [2], INT64, new BigInt64Array([1n, BigInt(P)]))];
  if (!plain) {
    // Predicted-class rows: t = Where(sum|target| == 0, onehot(argmax(logits)), target).
    inits.push(tensor('W_top1', [P, C], FLOAT, weight(P, C, 0)));
    inits.push(tensor('sum_axes', [1], INT64, new BigInt64Array([1n])));
    inits.push(tensor('zero', [], FLOAT, new Float32Array([0])));
    inits.push(tensor('class_ids', [C], INT64, BigInt64Array.from({ length: C }, (_, i) => BigInt(i))));
    nodes.push(node('MatMul', ['flat', 'W_top1'], ['top1_logits']));
    nodes.push(node('Abs', ['target'], ['t_abs']));
    nodes.push(node('ReduceSum', ['t_abs', 'sum_axes'], ['t_sum'], [intAttr('keepdims', 1)]));
    nodes.push(node('Equal', ['t_sum', 'zero'], ['t_empty']));
    nodes.push(node('ArgMax', ['top1_logits'], ['top1'], [intAttr('axis', 1), intAttr('keepdims', 0)]));
    nodes.push(node('Equal', ['class_ids', 'top1'], ['top1_mask']));
    nodes.push(node('Cast', ['top1_mask'], ['top1_onehot'], [intAttr('to', FLOAT)]));
    nodes.push(node('Where', ['t_empty', 'top1_onehot', 'target'], ['t_rows']));
  }
  for (const name of names) {
    const [rows, cols, offset, source, shape] = spec[name];
    inits.push(tensor(`W_${name}`, [rows, cols], FLOAT, weight(rows, cols, offset)));
    inits.push(tensor(`shape_${name}`, [shape.length], INT64, new BigInt64Array(shape.map(BigInt))));
    nodes.push(node('MatMul', [source === 'target' ? 't_rows' : source, `W_${name}`], [`mm_${name}`]));
    // The pixel maps obey their switches (zeros when 0).
    const scaled = SWITCHES[name] ? `sw_${name}` : `mm_${name}`;
    if (SWITCHES[name]) nodes.push(node('Mul', [`mm_${name}`, SWITCHES[name]], [scaled]));
    nodes.push(node('Reshape', [scaled, `shape_${name}`], [name]));
  }
  const graph = msg(
    ...nodes.map((n) => bytes(1, n)),
    str(2, 'tiny_explainer'),
    ...inits.map((t) => bytes(5, t)),
    bytes(11, valueInfo('pixels', [1, 3, H, W])),
    ...(plain ? [] : [bytes(11, valueInfo('target', ['K', C])), bytes(11, valueInfo('pixel_relevance', []))]),
    ...(lrp ? [bytes(11, valueInfo('attnlrp_relevance', [])), bytes(11, valueInfo('cp_lrp_relevance', []))] : []),
    ...names.map((n) => bytes(12, valueInfo(n, outDims[n]))),
  );
  const model = msg(int(1, 8), str(2, 'vit-relevance tests'), bytes(7, graph), bytes(8, msg(str(1, ''), int(2, 17))));
  return new Uint8Array(model);
}

export function tinyMetadata({ lrp = false } = {}) {
  const { blocks, heads, grid, tokens, patch, size, classes } = TINY;
  return {
    format: 'vit-relevance-explainer',
    format_version: 1,
    name: 'tiny',
    onnx: 'tiny.onnx',
    architecture: { blocks, heads, embed_dim: 8, patch_size: patch, image_size: size, grid, tokens,
      special_tokens: 1, num_classes: classes, distilled: false },
    preprocess: { resize: { mode: 'short_side', size: 4 }, crop: { mode: 'center', size },
      interpolation: 'bicubic', mean: [0.5, 0.5, 0.5], std: [0.5, 0.5, 0.5], exact_size_passthrough: true },
    labels: ['tabby', 'tiger cat', 'crane', 'crane'],
    label_names: ['tabby, tabby cat', 'tiger cat', 'crane', 'crane, derrick'],
    inputs: { pixels: [1, 3, ...size], target: ['K', classes], pixel_relevance: [] },
    outputs: { logits: [1, classes], attn: [blocks, heads, tokens, tokens],
      attn_grad: ['K', blocks, heads, tokens, tokens], attn_rel: ['K', blocks, heads, tokens, tokens],
      attn_rel_classic_last: ['K', heads, tokens, tokens], input_rel_classic: ['K', ...size],
      ...(lrp && { input_rel_attnlrp: ['K', ...size], input_rel_cp_lrp: ['K', ...size] }) },
  };
}
