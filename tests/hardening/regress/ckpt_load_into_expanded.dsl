# status: 1
# load(path, into=state) copied the file's tensors into the state's in place, also into
# a tensor made by expand(), whose elements share memory: each location kept the last
# of the values written to it (a [4, 3] weight became one row repeated), silently. Now
# such a target is one of the problems listed, and nothing is written (Note
# [Overlapping writes] in autograd/inplace.cpp).
# expect: [0.0, 0.0, 0.0]
# expect stderr: does not match the state (1 problem):
# expect stderr: not writable: 'weight' ([4, 3]) was expanded along dim 0 (stride 0)
# expect stderr: ckpt_load_into_expanded.dsl:18:1: error:
let path = env("REGRESS_TMP") + "/linear.safetensors"
save({"weight": randn([4, 3]), "bias": randn([4])}, path)
let base = zeros([3])
let w = base.expand([4, 3])
let bias = zeros([4])
expect_error(fn() = load(path, into={"weight": w, "bias": bias}), "not writable")
print(base.tolist())
load(path, into={"weight": w, "bias": bias})
