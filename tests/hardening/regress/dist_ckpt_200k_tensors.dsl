# Issue 25: checkpoint headers parsed (and written) in time quadratic in the number
# of tensors: 200k tensors took 45 s to load. Now linear (Note [Linear JSON],
# tensor/json_linear.hpp): this saves, loads, loads into a state and reads the
# metadata of a 200k-tensor dict in a few seconds; quadratic it would take minutes.
# timeout: 60
# expect: 200000 200000 0.0 many
let d = {}
for i in range(200000) { d[f"layer{i}.weight"] = ones([1]) * i }
let path = "/tmp/nabla_regress_dist_ckpt_200k.st"
save(d, path, metadata={"note": "many"})
let back = load(path)
let into = {}
for i in range(200000) { into[f"layer{i}.weight"] = zeros([1]) }
load(path, into=into)
print(len(back), len(into), (into["layer199999.weight"] - back["layer199999.weight"]).abs().max().item(),
      load_metadata(path)["note"])
