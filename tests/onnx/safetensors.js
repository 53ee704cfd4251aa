// Reads a safetensors file (tensor/safetensors.hpp has the format) into
// { name: { dtype, shape, data } }, data a typed array that onnxruntime-node takes.
'use strict';
const fs = require('fs');

const ARRAYS = { F32: Float32Array, F64: Float64Array, I64: BigInt64Array, I32: Int32Array, U8: Uint8Array,
                 I8: Int8Array, BOOL: Uint8Array };
const ORT_TYPES = { F32: 'float32', F64: 'float64', I64: 'int64', I32: 'int32', U8: 'uint8', I8: 'int8', BOOL: 'bool' };

function readSafetensors(path) {
  const bytes = fs.readFileSync(path);
  const headerLength = Number(bytes.readBigUInt64LE(0));
  const header = JSON.parse(bytes.subarray(8, 8 + headerLength).toString('utf8'));
  const base = 8 + headerLength;
  const out = {};
  for (const [name, info] of Object.entries(header)) {
    if (name === '__metadata__') continue;
    const Array = ARRAYS[info.dtype];
    if (!Array) throw new Error(`${path}: tensor ${name} has dtype ${info.dtype}, which this reader does not know`);
    const [start, end] = info.data_offsets;
    const copy = Buffer.from(bytes.subarray(base + start, base + end));  // aligned for the typed array
    out[name] = { type: ORT_TYPES[info.dtype], shape: info.shape,
                  data: new Array(copy.buffer, copy.byteOffset, (end - start) / Array.BYTES_PER_ELEMENT) };
  }
  return out;
}

module.exports = { readSafetensors };
