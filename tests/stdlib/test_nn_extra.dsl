# The functions of stdlib/_nn_functional.dsl (global builtins) and the layers of
# stdlib/_nn_extra.dsl against PyTorch 1.13 in f64: outputs, then the gradients of
# sum(output * g) for every floating input and parameter, with
# tests/stdlib/reference/nn_extra.safetensors (written by
# tests/stdlib/reference/make_nn_extra.py). The random ones (gumbel_softmax, rrelu in
# training) are checked by their statistics, manual_seed and their gradient rules; the
# argument checks by their messages. Run by ctest dsl_tests.
import nn

let ref = load("tests/stdlib/reference/nn_extra.safetensors")

fn is_float(t) = str(t.dtype) in ["f32", "f64", "f16", "bf16"]

# The keys of PyTorch's state_dict saved for case `name`.
fn torch_keys(name) {
  let keys = []
  for k in ref.keys() {
    if k.startswith(name + ".") {
      let rest = k[len(name) + 1:]
      let head = rest.split(".")[0]
      let saved = head in ["g", "grad", "after"] or rest.startswith("grad_x")
      let io = (rest.startswith("x") or rest.startswith("y")) and rest[1:].isdigit()
      if not saved and not io { keys.append(rest) }
    }
  }
  return keys
}

fn inputs(name, n) {
  let xs = []
  for k in range(n) {
    let t = ref[f"{name}.x{k}"].clone()
    xs.append(t.requires_grad_(true) if is_float(t) else t)
  }
  return xs
}

# Case `name`: m (a model, or none for a function) in f64 with PyTorch's state_dict,
# run(m, xs) -> a list of outputs compared with y0, y1, ...; the buffers the forward
# moved; the gradients of sum(y0 * g). lazy: m is called once first (which makes its
# parameters), then loaded.
fn check(name, m, n, run, lazy=false, rtol=1e-9, atol=1e-11) {
  if lazy {
    expect(len(m.state_dict()) == 0, f"{name}: a lazy layer's state_dict is empty before its first call")
    run(m, [t.detach().to(f32) if is_float(t) else t for t in inputs(name, n)])  # made in f32, as PyTorch's
  }
  if m != none {
    m.to(f64)
    let keys = torch_keys(name)
    expect(sorted(list(m.state_dict().keys())) == sorted(keys),
           f"{name}: state_dict keys {sorted(list(m.state_dict().keys()))}, PyTorch's {sorted(keys)}")
    let sd = {}
    for k in keys { sd[k] = ref[name + "." + k] }
    if len(keys) > 0 { m.load_state_dict(sd) }
  }
  let xs = inputs(name, n)
  let ys = run(m, xs)
  for k in range(len(ys)) {
    let want = ref[f"{name}.y{k}"]
    expect(list(ys[k].shape) == list(want.shape), f"{name}: output {k} has shape {list(ys[k].shape)}, PyTorch's {list(want.shape)}")
    expect(ys[k].dtype == want.dtype, f"{name}: output {k} is {ys[k].dtype}, PyTorch's {want.dtype}")
    expect_close(ys[k], want, rtol=rtol, atol=atol, msg=f"{name}: output {k}")
  }
  for k in ref.keys() {
    if k.startswith(name + ".after.") {
      let key = k[len(name) + 7:]
      expect_close(m.state_dict()[key].to(ref[k].dtype), ref[k], rtol=rtol, atol=atol, msg=f"{name}: {key} after")
    }
  }
  if not (f"{name}.g" in ref.keys()) { return }
  (ys[0] * ref[f"{name}.g"]).sum().backward()
  for k in range(n) {
    if f"{name}.grad_x{k}" in ref.keys() {
      expect_close(xs[k].grad, ref[f"{name}.grad_x{k}"], rtol=rtol, atol=atol, msg=f"{name}: gradient of x{k}")
    }
  }
  if m != none {
    for (key, p) in m.named_parameters() {
      let want = ref.get(f"{name}.grad.{key}")
      if want != none { expect_close(p.grad, want, rtol=rtol, atol=atol, msg=f"{name}: gradient of {key}") }
    }
  }
}

fn one(m, xs) = [m(*xs)]
fn all(m, xs) = list(m(*xs))
# A function case: f of the inputs, its outputs (a tuple's items) compared.
fn _listed(r) = list(r) if type(r) in ["tuple", "list"] else [r]
fn of(f) = fn(m, xs) = _listed(f(*xs))

fn cosine_distance(a, b) = 1.0 - cosine_similarity(a, b)

test "pdist: p 2, 1, 3 and inf, equal rows at distance 0 with a zero gradient" {
  check("pdist_p2", none, 1, of(fn(x) = pdist(x)))
  check("pdist_p1", none, 1, of(fn(x) = pdist(x, 1.0)))
  check("pdist_p3", none, 1, of(fn(x) = pdist(x, p=3)))
  check("pdist_pinf", none, 1, of(fn(x) = pdist(x, float("inf"))))
  expect(list(pdist(randn([1, 3])).shape) == [0])
  expect(nn.pdist == pdist)
}

test "local_response_norm and nn.LocalResponseNorm: 3-D, 4-D and 5-D inputs, even and odd sizes" {
  check("lrn_4d", none, 1, of(fn(x) = local_response_norm(x, 3)))
  check("lrn_3d_even", none, 1, of(fn(x) = local_response_norm(x, 4, alpha=0.1, beta=0.6, k=2.0)))
  check("lrn_5d", none, 1, of(fn(x) = local_response_norm(x, 2, alpha=0.5)))
  check("LocalResponseNorm", nn.LocalResponseNorm(3, alpha=0.01, beta=0.5, k=1.5), 1, one)
  gradgradcheck(fn(x) = local_response_norm(x, 3, alpha=0.5).pow(2).sum(), randn([1, 4, 3], dtype=f64, requires_grad=true))
}

test "multi_margin_loss and nn.MultiMarginLoss: p 1 and 2, margin, class weights, every reduction, a 1-D input" {
  check("multi_margin_p1", none, 2, of(fn(x, y) = multi_margin_loss(x, y)))
  let w = ref["multi_margin_p2_weight_sum.weight"]
  check("multi_margin_p2_weight_sum", none, 2, of(fn(x, y) = multi_margin_loss(x, y, p=2, margin=0.5, weight=w, reduction="sum")))
  check("multi_margin_none", none, 2, of(fn(x, y) = multi_margin_loss(x, y, margin=2.0, reduction="none")))
  check("multi_margin_1d", none, 2, of(fn(x, y) = multi_margin_loss(x, y)))
  let m = nn.MultiMarginLoss(p=2, margin=0.7, weight=ones([5], dtype=f64))
  check("MultiMarginLoss", m, 2, one)
  expect(list(nn.MultiMarginLoss().state_dict().keys()) == [])
}

test "multilabel_margin_loss and nn.MultiLabelMarginLoss: targets up to the first -1, repeats, every reduction" {
  check("multilabel_margin", none, 2, of(fn(x, y) = multilabel_margin_loss(x, y)))
  check("multilabel_margin_none", none, 2, of(fn(x, y) = multilabel_margin_loss(x, y, reduction="none")))
  check("multilabel_margin_1d_sum", none, 2, of(fn(x, y) = multilabel_margin_loss(x, y, reduction="sum")))
  check("MultiLabelMarginLoss", nn.MultiLabelMarginLoss(), 2, one)
}

test "triplet_margin_with_distance_loss and its layer: the default distance, a function, swap" {
  check("triplet_distance_default", none, 3, of(fn(a, p, n) = triplet_margin_with_distance_loss(a, p, n)))
  check("triplet_distance_cosine_swap", none, 3,
        of(fn(a, p, n) = triplet_margin_with_distance_loss(a, p, n, distance_function=cosine_distance, margin=0.5,
                                                           swap=true, reduction="none")))
  check("TripletMarginWithDistanceLoss",
        nn.TripletMarginWithDistanceLoss(distance_function=cosine_distance, margin=0.3, swap=true), 3, one)
}

test "lp_pool1d, lp_pool2d and their layers: norm types 1.5, 2 and 3, strides, ceil_mode" {
  check("lp_pool1d_p2", none, 1, of(fn(x) = lp_pool1d(x, 2, 3, stride=2)))
  check("lp_pool1d_p3_ceil", none, 1, of(fn(x) = lp_pool1d(x, 3, 3, stride=2, ceil_mode=true)))
  check("lp_pool2d", none, 1, of(fn(x) = lp_pool2d(x, 2, [2, 3], stride=[1, 2])))
  check("lp_pool2d_p1_5", none, 1, of(fn(x) = lp_pool2d(x, 1.5, 2)))
  check("LPPool1d", nn.LPPool1d(2, 3, stride=2), 1, one)
  check("LPPool2d", nn.LPPool2d(2, [2, 2]), 1, one)
}

test "adaptive_max_pool1d, the *_with_indices pools and the functional max_unpool1d/2d/3d" {
  check("adaptive_max_pool1d", none, 1, of(fn(x) = adaptive_max_pool1d(x, 4, return_indices=true)))
  check("adaptive_max_pool1d_2d_input", none, 1, of(fn(x) = adaptive_max_pool1d(x, 3)))
  check("max_pool1d_with_indices", none, 1, of(fn(x) = max_pool1d_with_indices(x, 3, stride=2, padding=1)))
  check("max_pool2d_with_indices", none, 1, of(fn(x) = max_pool2d_with_indices(x, [2, 3], dilation=[2, 1], ceil_mode=true)))
  check("max_pool3d_with_indices", none, 1, of(fn(x) = max_pool3d_with_indices(x, 2, stride=[2, 1, 2])))
  check("adaptive_max_pool2d_with_indices", none, 1, of(fn(x) = adaptive_max_pool2d_with_indices(x, [2, 3])))
  check("adaptive_max_pool3d_with_indices", none, 1, of(fn(x) = adaptive_max_pool3d_with_indices(x, 2)))
  check("max_unpool1d", none, 2, of(fn(v, i) = max_unpool1d(v, i, 3, stride=2, padding=1, output_size=[2, 3, 9])))
  check("max_unpool2d", none, 2, of(fn(v, i) = max_unpool2d(v, i, 2)))
  check("max_unpool3d", none, 2, of(fn(v, i) = max_unpool3d(v, i, 2, stride=2)))
  # return_indices is accepted and ignored by the *_with_indices forms, as PyTorch's.
  expect(type(max_pool1d_with_indices(randn([1, 1, 4]), 2, return_indices=false)) == "tuple")
}

test "upsample, upsample_nearest and upsample_bilinear: interpolate under PyTorch's old names" {
  check("upsample_nearest_scale", none, 1, of(fn(x) = upsample(x, scale_factor=2)))
  check("upsample_linear", none, 1, of(fn(x) = upsample(x, size=8, mode="linear", align_corners=false)))
  check("upsample_nearest_size", none, 1, of(fn(x) = upsample_nearest(x, size=[5, 7])))
  check("upsample_bilinear", none, 1, of(fn(x) = upsample_bilinear(x, scale_factor=2)))
}

test "the in-place activations write into a non-leaf, return it and pass gradients to the leaf" {
  check("inplace_relu_", none, 1, of(fn(x) = relu_(x * 1.0)))
  check("inplace_elu_", none, 1, of(fn(x) = elu_(x * 1.0, alpha=0.5)))
  check("inplace_leaky_relu_", none, 1, of(fn(x) = leaky_relu_(x * 1.0, 0.2)))
  check("inplace_hardtanh_", none, 1, of(fn(x) = hardtanh_(x * 1.0, -0.5, 1.5)))
  check("inplace_selu_", none, 1, of(fn(x) = selu_(x * 1.0)))
  check("inplace_celu_", none, 1, of(fn(x) = celu_(x * 1.0, alpha=2.0)))
  check("inplace_threshold_", none, 1, of(fn(x) = threshold_(x * 1.0, 0.3, -2.0)))
  check("inplace_rrelu_eval_", none, 1, of(fn(x) = rrelu_(x * 1.0, 0.2, 0.4, training=false)))
  let y = tensor([-1.0, 2.0, -3.0])
  let r = relu_(y)
  expect(y.tolist() == [0.0, 2.0, 0.0] and r.tolist() == [0.0, 2.0, 0.0], "relu_ writes into its input and returns it")
  let leaf = tensor([-1.0, 2.0], requires_grad=true)
  no_grad { hardtanh_(leaf) }
  expect(leaf.tolist() == [-1.0, 1.0], "a leaf that requires grad may be written under no_grad")
  expect_error(fn() = relu_(tensor([1.0], requires_grad=true)),
               "relu_(): argument 'input' is a leaf tensor that requires grad, which cannot be modified in place")
  expect_error(fn() = elu_(tensor([1.0], requires_grad=true)), "elu_(): argument 'input' is a leaf tensor")
  expect_error(fn() = threshold_(tensor([1, 2]), 0.5, 0.0), "threshold_(): argument 'input' must be a floating tensor (f32, f64, f16 or bf16), got i64[2]")
}

test "rrelu: the mean slope in eval; in training a slope per element in [lower, upper], repeated by manual_seed, that is also its gradient" {
  check("rrelu_eval", none, 1, of(fn(x) = rrelu(x, 0.1, 0.3, training=false)))
  check("RReLU_eval", nn.RReLU(0.1, 0.3).eval(), 1, one)
  let x = (-rand([20000], dtype=f64) - 0.5).requires_grad_(true)
  manual_seed(7)
  let y = rrelu(x, 0.1, 0.3, training=true)
  let slope = (y / x).detach()
  expect(slope.min().item() >= 0.1 and slope.max().item() <= 0.3, "the slopes lie in [lower, upper]")
  expect(abs(slope.mean().item() - 0.2) < 0.005, f"the slopes' mean {slope.mean().item()} is near 0.2")
  expect(abs(slope.std().item() - 0.2 / sqrt(12.0)) < 0.005, "the slopes are uniform")
  y.sum().backward()
  expect_close(x.grad, slope, rtol=1e-12, atol=0.0)
  manual_seed(7)
  expect_close(rrelu(x.detach(), 0.1, 0.3, training=true), y.detach(), rtol=0.0, atol=0.0)
  let pos = rand([100], dtype=f64) + 0.1
  expect_close(rrelu(pos, training=true), pos, rtol=0.0, atol=0.0)
  # The layer reads its training flag; rrelu_ and inplace=true write into the input.
  let layer = nn.RReLU(0.2, 0.2)
  expect_close(layer(tensor([-1.0, 1.0])), tensor([-0.2, 1.0]))
  let z = tensor([-2.0, 3.0])
  rrelu_(z, 0.5, 0.5, training=true)
  expect(z.tolist() == [-1.0, 3.0])
  let w = tensor([-2.0, 3.0])
  nn.RReLU(0.25, 0.25, inplace=true)(w)
  expect(w.tolist() == [-0.5, 3.0])
  expect_error(fn() = rrelu(x, 0.5, 0.1), "rrelu(): argument 'lower' (0.5) must not be greater than 'upper' (0.1)")
}

test "gumbel_softmax: samples on the simplex, repeated by manual_seed, one-hot with the soft gradient when hard" {
  let z = randn([4, 6], dtype=f64)
  manual_seed(11)
  let soft = gumbel_softmax(z, tau=0.7)
  manual_seed(11)
  expect_close(gumbel_softmax(z, tau=0.7), soft, rtol=0.0, atol=0.0)
  expect_close(soft.sum(1), ones([4], dtype=f64), rtol=1e-12)
  expect(soft.min().item() > 0.0)
  # hard: the one-hot of the soft sample's argmax (the same noise), with its gradient.
  let zg = z.clone().requires_grad_(true)
  let g = randn([4, 6], dtype=f64)
  manual_seed(11)
  let hard = gumbel_softmax(zg, tau=0.7, hard=true)
  expect_close(hard.detach(), one_hot(argmax(soft, dim=1), 6).to(f64), rtol=0.0, atol=0.0)
  (hard * g).sum().backward()
  let zs = z.clone().requires_grad_(true)
  manual_seed(11)
  (gumbel_softmax(zs, tau=0.7) * g).sum().backward()
  expect_close(zg.grad, zs.grad, rtol=1e-12, atol=1e-14)
  # Gumbel-max: the hard samples' frequencies are softmax(logits).
  let p = tensor([0.1, 0.2, 0.7], dtype=f64)
  manual_seed(3)
  let counts = gumbel_softmax(log(p).expand([20000, 3]), hard=true).mean(0)
  expect_close(counts, p, rtol=0.0, atol=0.015)
  # dim and tau: along dim 0; a small tau gives samples near one-hot.
  expect_close(gumbel_softmax(z, dim=0).sum(0), ones([6], dtype=f64), rtol=1e-12)
  expect(gumbel_softmax(z, tau=0.01).max(1)[0].mean().item() > gumbel_softmax(z, tau=10.0).max(1)[0].mean().item())
  expect_error(fn() = gumbel_softmax(z, tau=0.0), "gumbel_softmax(): argument 'tau' must be > 0, got 0.0")
  expect_error(fn() = gumbel_softmax(z, dim=2), "gumbel_softmax(): argument 'dim' must be a dim in [-2, 1] of the input's 2 dims, got 2")
}

test "LazyLinear and LazyConv1d/2d/3d: no parameters before the first call, which reads the input's size" {
  let m = nn.LazyLinear(3)
  expect(m.in_features == 0 and m.has_uninitialized_params() and len(m.parameters()) == 0)
  check("LazyLinear", m, 1, one, lazy=true)
  expect(m.in_features == 7 and not m.has_uninitialized_params())
  check("LazyLinear_nobias_3d", nn.LazyLinear(2, bias=false), 1, one, lazy=true)
  let c = nn.LazyConv1d(4, 3, stride=2, padding=1)
  check("LazyConv1d", c, 1, one, lazy=true)
  expect(c.in_channels == 3 and list(c.weight.shape) == [4, 3, 3])
  check("LazyConv2d_groups", nn.LazyConv2d(4, [2, 3], groups=2, padding="same", padding_mode="reflect"), 1, one, lazy=true)
  check("LazyConv2d_unbatched", nn.LazyConv2d(2, 3, bias=false), 1, one, lazy=true)
  check("LazyConv3d", nn.LazyConv3d(2, 2, dilation=[1, 2, 1]), 1, one, lazy=true)
  # PyTorch's default init after the first call: U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
  let big = nn.LazyLinear(50)
  big(randn([2, 16]))
  expect(big.weight.abs().max().item() <= 0.25 and big.weight.abs().max().item() > 0.2)
  expect_error(fn() = nn.LazyConv2d(3, 3, groups=2), "LazyConv2d: argument 'groups' must be an int >= 1 that divides out_channels (3), got 2")
  expect_error(fn() = nn.LazyConv2d(4, 3, groups=2)(randn([1, 3, 5, 5])), "LazyConv2d: the input's 3 channels must be divisible by groups (2)")
  expect_error(fn() = nn.LazyLinear(0), "LazyLinear: argument 'out_features' must be an int >= 1, got 0")
}

test "SyncBatchNorm: BatchNorm over the input's dims on one process; convert_sync_batchnorm" {
  check("SyncBatchNorm_train_2d", nn.SyncBatchNorm(3, momentum=0.3), 1, one)
  check("SyncBatchNorm_train_1d_3d_input", nn.SyncBatchNorm(3), 1, one)
  check("SyncBatchNorm_eval_5d", nn.SyncBatchNorm(2, affine=false).eval(), 1, one)
  check("SyncBatchNorm_untracked", nn.SyncBatchNorm(3, track_running_stats=false), 1, one)
  check("SyncBatchNorm_cumulative", nn.SyncBatchNorm(2, momentum=none), 1, one)
  let net = nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm2d(4, affine=false), nn.ReLU()))
  net.eval()
  let w = net[1].weight
  let converted = nn.SyncBatchNorm.convert_sync_batchnorm(net)
  expect(type(converted[1]) == "SyncBatchNorm" and type(converted[2][0]) == "SyncBatchNorm" and type(converted[0]) == "Conv2d")
  no_grad { w.fill_(3.0) }
  expect(converted[1].weight.tolist() == [3.0, 3.0, 3.0, 3.0], "the converted layer holds the same weight")
  expect(not converted[1].training and converted[2][0].weight == none)
  expect(sorted(list(converted.state_dict().keys())) == sorted(list(net.state_dict().keys())))
  expect(type(nn.SyncBatchNorm.convert_sync_batchnorm(nn.BatchNorm1d(2))) == "SyncBatchNorm")
  expect_error(fn() = nn.SyncBatchNorm(3)(randn([4])), "SyncBatchNorm: expected an input of at least 2 dims [N, C, *], got shape [4]")
  expect_error(fn() = nn.SyncBatchNorm(3)(randn([4, 2])), "SyncBatchNorm: expected an input with 3 channels (dim 1), got shape [4, 2]")
}

test "the functions' argument checks name the function, the argument, what was expected and what was found" {
  let x = randn([3, 4])
  expect_error(fn() = pdist(randn([2, 3, 4])), "pdist(): argument 'input' must be a 2-D tensor [N, M], got shape [2, 3, 4]")
  expect_error(fn() = pdist(x, p=-1), "pdist(): argument 'p' must be >= 0, got -1")
  expect_error(fn() = local_response_norm(x, 2), "local_response_norm(): argument 'input' must have 3 or more dims [N, C, *], got shape [3, 4]")
  expect_error(fn() = local_response_norm(randn([1, 2, 3]), 0), "local_response_norm(): argument 'size' must be an int >= 1, got 0")
  expect_error(fn() = multi_margin_loss(x, tensor([0, 1, 4])), "multi_margin_loss(): argument 'target' holds class 4, outside [0, 3] for the input's 4 classes")
  expect_error(fn() = multi_margin_loss(x, tensor([0, 1])), "multi_margin_loss(): argument 'target' must hold one class per sample (3), got shape [2]")
  expect_error(fn() = multi_margin_loss(x, tensor([0, 1, 2]), p=3), "multi_margin_loss(): argument 'p' must be 1 or 2, got 3")
  expect_error(fn() = multi_margin_loss(x, tensor([0.0, 1.0, 2.0])), "multi_margin_loss(): argument 'target' must be an integer tensor (i64), got f32[3]")
  expect_error(fn() = multi_margin_loss(x, tensor([0, 1, 2]), weight=ones([3])), "multi_margin_loss(): argument 'weight' must be a 1-D tensor of the 4 classes, got shape [3]")
  expect_error(fn() = multi_margin_loss(x, tensor([0, 1, 2]), reduction="avg"), "multi_margin_loss(): argument 'reduction' must be one of \"mean\", \"sum\", \"none\", got 'avg'")
  expect_error(fn() = multilabel_margin_loss(x, tensor([[0, 1]])), "multilabel_margin_loss(): argument 'target' must have the input's shape [3, 4], got [1, 2]")
  expect_error(fn() = multilabel_margin_loss(randn([4]), tensor([0, 4, -1, 0])), "multilabel_margin_loss(): argument 'target' holds class 4, outside [0, 3]")
  expect_error(fn() = triplet_margin_with_distance_loss(x, x, randn([4])), "triplet_margin_with_distance_loss(): anchor, positive and negative must have the same number of dims, got 2, 2 and 1")
  expect_error(fn() = triplet_margin_with_distance_loss(x, x, x, margin=0.0), "triplet_margin_with_distance_loss(): argument 'margin' must be > 0, got 0.0")
  expect_error(fn() = triplet_margin_with_distance_loss(x, x, x, distance_function=3), "triplet_margin_with_distance_loss(): argument 'distance_function' must be a function of two tensors or none, got int")
  expect_error(fn() = lp_pool2d(randn([2, 3]), 2, 2), "lp_pool2d(): argument 'input' must be 3-D [C, H, W] or 4-D [N, C, H, W], got shape [2, 3]")
  expect_error(fn() = lp_pool1d(randn([1, 2, 8]), 2, 0), "lp_pool1d(): argument 'kernel_size' must be an int or 1 ints, each >= 1, got 0")
  expect_error(fn() = adaptive_max_pool1d(randn([1, 2, 8]), 0), "adaptive_max_pool1d(): argument 'output_size' must be an int >= 1 (or one), got 0")
  expect_error(fn() = max_unpool2d(randn([1, 1, 2, 2]), tensor([[[[0, 1], [2, 3]]]]), 2, output_size=[3]),
               "max_unpool2d(): argument 'output_size' must be a list of at least 2 ints, got [3]")
  expect_error(fn() = max_unpool1d(randn([1, 1, 2]), tensor([[[0, 9]]]), 2), "max_unpool1d(): argument 'indices' holds 9, outside the output's plane of 4 cells (output size [4])")
  expect_error(fn() = max_unpool1d(randn([1, 1, 2]), tensor([[[0]]]), 2), "max_unpool1d(): argument 'indices' must have the input's shape [1, 1, 2], got [1, 1, 1]")
  expect_error(fn() = max_unpool2d(randn([2, 2]), tensor([[0, 1]]), 2), "max_unpool2d(): argument 'input' must be 3-D or 4-D (a batch), got shape [2, 2]")
  expect_error(fn() = upsample_bilinear(randn([1, 2, 3]), scale_factor=2), "upsample_bilinear(): argument 'input' must be 4-D [N, C, H, W], got shape [1, 2, 3]")
  expect_error(fn() = max_pool2d_with_indices(randn([1, 1, 4, 4]), [2, 2, 2]), "max_pool2d_with_indices(): argument 'kernel_size' must be an int or 2 ints, each >= 1, got [2, 2, 2]")
}

test "the new functions are global builtins with docs, and nn finds them" {
  for f in [relu_, elu_, leaky_relu_, hardtanh_, selu_, celu_, threshold_, rrelu, rrelu_, gumbel_softmax, pdist,
            local_response_norm, multi_margin_loss, multilabel_margin_loss, triplet_margin_with_distance_loss,
            lp_pool1d, lp_pool2d, adaptive_max_pool1d, max_pool1d_with_indices, max_pool2d_with_indices,
            max_pool3d_with_indices, adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,
            adaptive_max_pool3d_with_indices, max_unpool1d, max_unpool2d, max_unpool3d, upsample, upsample_nearest,
            upsample_bilinear] {
    expect(type(f) == "builtin")
  }
  expect(hasattr(nn, "LazyConv3d") and hasattr(nn, "SyncBatchNorm") and hasattr(nn, "gumbel_softmax"))
}

test "composites: grad of grad through pdist and multi_margin_loss, and a compiled local_response_norm" {
  gradgradcheck(fn(x) = pdist(x).pow(2).sum(), randn([4, 3], dtype=f64, requires_grad=true))
  gradgradcheck(fn(x) = multi_margin_loss(x, tensor([0, 2, 1]), p=2), randn([3, 4], dtype=f64, requires_grad=true))
  let x = randn([2, 5, 3, 3])
  let gm = compile(fn(t) = local_response_norm(t, 3), x)
  expect_close(gm(x), local_response_norm(x, 3), rtol=1e-5, atol=1e-6)
}

test "kl_div, bilinear, alpha_dropout, feature_alpha_dropout, channel_shuffle and embedding_bag are globals, as nn's" {
  manual_seed(3)
  let p = softmax(randn([2, 3], dtype=f64), 1)
  let q = log_softmax(randn([2, 3], dtype=f64), 1)
  expect_close(kl_div(q, p, reduction="batchmean"), (p * (p.log() - q)).sum() / 2, rtol=1e-12, atol=0)
  expect(kl_div(q, p, reduction="none").shape == nn.kl_div(q, p, reduction="none").shape)
  expect_close(nn.KLDivLoss(reduction="sum")(q, p), kl_div(q, p, reduction="sum"), rtol=0, atol=0)
  let w = randn([5, 3, 4], dtype=f64)
  let (x1, x2) = (randn([2, 3], dtype=f64), randn([2, 4], dtype=f64))
  expect_close(bilinear(x1, x2, w), nn.bilinear(x1, x2, w), rtol=0, atol=0)
  expect_close(channel_shuffle(arange(6.0).reshape([1, 6, 1, 1]), 3).flatten(), tensor([0.0, 2.0, 4.0, 1.0, 3.0, 5.0]), rtol=0, atol=0)
  expect(list(embedding_bag(tensor([1, 2, 4, 5]), randn([6, 3]), tensor([0, 2]), mode="sum").shape) == [2, 3])
  let x = randn([4, 5])
  expect(equal(alpha_dropout(x, 0.3), x) and equal(feature_alpha_dropout(x, 0.3), x), "identity outside training")
  expect_error(fn() = kl_div(q, p, reduction="avg"), "kl_div: reduction must be")
}
