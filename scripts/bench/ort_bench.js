// ONNX Runtime's side of scripts/bench/onnx_bench.py: each DIR/<case>.onnx in a session
// with 2 intra-op threads (made before the clock starts), run on its saved input.
//   node scripts/bench/ort_bench.js DIR REPS CASE...
// prints "<case> <us per call>" lines (median of 5 runs of REPS calls; cnn_b64 REPS/16).
'use strict';
const path = require('path');
const { loadOrt } = require('../../tests/onnx/ort_loader.js');
const { readSafetensors } = require('../../tests/onnx/safetensors.js');

async function medianUs(session, feeds, reps) {
  const times = [];
  for (let r = 0; r < 5; ++r) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < reps; ++i) await session.run(feeds);
    times.push(Number(process.hrtime.bigint() - t0) / 1e3 / reps);
  }
  times.sort((a, b) => a - b);
  return times[2];
}

async function main() {
  const [dir, repsText, ...cases] = process.argv.slice(2);
  const ort = loadOrt();
  for (const name of cases) {
    const options = { intraOpNumThreads: 2, interOpNumThreads: 1, executionMode: 'sequential' };
    const session = await ort.InferenceSession.create(path.join(dir, `${name}.onnx`), options);
    const x = readSafetensors(path.join(dir, `${name}.safetensors`)).input0;
    const feeds = { [session.inputNames[0]]: new ort.Tensor(x.type, x.data, x.shape) };
    for (let i = 0; i < 3; ++i) await session.run(feeds);
    const reps = Math.max(2, Math.floor(Number(repsText) / (name === 'cnn_b64' ? 16 : 1)));
    console.log(`${name} ${(await medianUs(session, feeds, reps)).toFixed(2)}`);
  }
}

main().catch((e) => { console.error(`ort_bench: ${e.message}`); process.exit(1); });
