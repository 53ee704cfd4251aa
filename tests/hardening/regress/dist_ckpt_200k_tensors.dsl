# Issue 25: checkpoint headers parsed (and written) in time quadratic in the number
# of tensors: 200k tensors took 45 s to load. Now linear (Note [Linear JSON],
# tensor/json_linear.hpp): this saves, loads, loads into a state and reads the
# metadata of a 200k-tensor dict in about 15 s on a loaded 2-core machine; the quadratic
# parser took over 5 minutes for 100k (measured: 50k took 22 s to save, 28 s to load).
# timeout: 120
# expect: 200000 200000 0.0 many
let d = {}
for i in range(200000) { d[f"layer{i}.weight"] = ones([1]) * i }
let path = env("REGRESS_TMP") + "/ckpt_200k.st"  # removed after the run (regress.sh)
save(d, path, metadata={"note": "many"})
let back = load(path)
let into = {}
for i in range(200000) { into[f"layer{i}.weight"] = zeros([1]) }
load(path, into=into)
print(len(back), len(into), (into["layer199999.weight"] - back["layer199999.weight"]).abs().max().item(),
      load_metadata(path)["note"])
