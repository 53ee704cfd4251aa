// Runs exported models in ONNX Runtime (onnxruntime-node, 2 intra-op threads) on the
// inputs that tests/onnx/export_models.dsl saved beside them, and compares every
// output with nabla's: the largest absolute difference must be at most 1e-5.
//   node tests/onnx/run_ort.js DIR [NAME...]     (no NAME: every DIR/*.onnx)
// prints "ort: NAME max_abs_diff=... (n values) ok" per model; exits 1 on a mismatch.
'use strict';
const fs = require('fs');
const path = require('path');
const { readSafetensors } = require('./safetensors.js');
const { loadOrt } = require('./ort_loader.js');

const TOLERANCE = 1e-5;

async function check(ort, dir, name) {
  const saved = readSafetensors(path.join(dir, `${name}.safetensors`));
  const session = await ort.InferenceSession.create(path.join(dir, `${name}.onnx`), { intraOpNumThreads: 2 });
  const feeds = {};
  session.inputNames.forEach((input, k) => {
    const t = saved[`input${k}`];
    feeds[input] = new ort.Tensor(t.type, t.data, t.shape);
  });
  const results = await session.run(feeds);
  let worst = 0, count = 0;
  session.outputNames.forEach((output, k) => {
    const want = saved[`output${k}`], got = results[output];
    if (JSON.stringify(Array.from(got.dims)) !== JSON.stringify(want.shape))
      throw new Error(`${name}: output ${output} has shape [${got.dims}], nabla's has [${want.shape}]`);
    for (let i = 0; i < want.data.length; ++i) {
      const d = Math.abs(Number(got.data[i]) - Number(want.data[i]));
      if (!(d <= worst)) worst = d;  // NaN counts as a mismatch
      ++count;
    }
  });
  const ok = worst <= TOLERANCE;
  console.log(`ort: ${name} max_abs_diff=${worst.toExponential(2)} (${count} values) ${ok ? 'ok' : 'MISMATCH'}`);
  return ok;
}

async function main() {
  const [dir, ...given] = process.argv.slice(2);
  const names = given.length ? given
                             : fs.readdirSync(dir).filter((f) => f.endsWith('.onnx')).map((f) => f.slice(0, -5)).sort();
  const ort = loadOrt();
  let ok = true;
  for (const name of names) ok = (await check(ort, dir, name)) && ok;
  process.exit(ok ? 0 : 1);
}

main().catch((e) => { console.error(`ort: ${e.message}`); process.exit(1); });
