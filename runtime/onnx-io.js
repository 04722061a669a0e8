// @ts-check
// The input and output names of an ONNX graph, read from its bytes without opening an
// onnxruntime session: opening one costs seconds for the split graphs, and their fit is
// checked at load while the sessions themselves open only when first needed.
// ONNX is protobuf: ModelProto.graph = 7; GraphProto.initializer = 5, .input = 11,
// .output = 12; ValueInfoProto.name = 1, TensorProto.name = 8 (onnx/onnx.proto).

// Calls visit(field number, start, end) for each length-delimited field of a message.
// A plain loop, not a generator: the Worker runs this on every visit, in cold code, over
// the split graphs' ~27,000 fields before the model is ready (cold, in Node: 12-15 ms
// with a generator and a decoder per name, 6-9 ms like this).
function eachField(bytes, start, end, visit) {
  let at = start;
  const varint = () => {
    let value = 0;
    let scale = 1;
    for (;;) {
      if (at >= end) throw new Error('truncated protobuf varint');
      const b = bytes[at++];
      value += (b & 0x7f) * scale;
      if (b < 0x80) return value;
      scale *= 128;
    }
  };
  while (at < end) {
    const key = varint();
    const wire = key % 8;
    if (wire === 0) varint();
    else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else if (wire === 2) {
      const length = varint();
      if (at + length > end) throw new Error('truncated protobuf field');
      visit(Math.floor(key / 8), at, at + length);
      at += length;
    } else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

const utf8 = new TextDecoder();

// The string field `number` of a message, or ''.
function stringField(bytes, start, end, number) {
  let value = null;
  eachField(bytes, start, end, (f, s, e) => {
    if (f === number && value === null) value = utf8.decode(bytes.subarray(s, e));
  });
  return value ?? '';
}

/**
 * The names a session would report: inputs (initializers excluded, as onnxruntime does)
 * and outputs. Throws on bytes that are not an ONNX model.
 * @param {Uint8Array} bytes
 * @returns {{ inputNames: string[], outputNames: string[] }}
 */
export function graphIoNames(bytes) {
  let graph = null;
  eachField(bytes, 0, bytes.length, (f, s, e) => { if (f === 7) graph = [s, e]; });
  if (!graph) throw new Error('no graph in the ONNX model');
  const inputs = [];
  const outputs = [];
  const initializers = new Set();
  eachField(bytes, graph[0], graph[1], (f, s, e) => {
    if (f === 11) inputs.push(stringField(bytes, s, e, 1));
    else if (f === 12) outputs.push(stringField(bytes, s, e, 1));
    else if (f === 5) initializers.add(stringField(bytes, s, e, 8));
  });
  return { inputNames: inputs.filter((n) => !initializers.has(n)), outputNames: outputs };
}
