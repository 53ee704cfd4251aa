# Layers with the arguments users pass beyond the basics, against PyTorch: convolutions
# with padding "same"/"valid", padding_mode and unbatched inputs, ConvTranspose's
# output_size, LSTM's proj_size, the transformer stacks, Embedding's padding_idx and
# max_norm, BatchNorm3d, more activations, pools and reshaping layers, Bilinear,
# EmbeddingBag, Softmax2d, ChannelShuffle and the alpha dropouts. Each case loads
# PyTorch's state_dict, runs PyTorch's inputs and compares the outputs, then the
# gradients of sum(output * g) for every floating input and parameter, with
# tests/stdlib/reference/layer_options.safetensors (written by
# tests/stdlib/reference/make_layer_options.py). Run by ctest dsl_tests.
import math
import nn

let ref = load("tests/stdlib/reference/layer_options.safetensors")

fn is_float(t) = str(t.dtype) in ["f32", "f64", "f16", "bf16"]

# The keys of PyTorch's state_dict saved for case `name` (what is not an input, an
# output, a gradient or a moved buffer).
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

# m loaded with PyTorch's state_dict for `name` (its keys must be m's), run by
# run(m, inputs) -> a list of outputs on the saved inputs x0 .. x<n-1>: every output
# compared with PyTorch's y0, y1, ..., then the gradients of sum(y0 * g).
fn check(name, m, n, run, rtol=1e-5, atol=1e-5) {
  let keys = torch_keys(name)
  expect(sorted(list(m.state_dict().keys())) == sorted(keys),
         f"{name}: state_dict keys {sorted(list(m.state_dict().keys()))}, PyTorch's {sorted(keys)}")
  let sd = {}
  for k in keys { sd[k] = ref[name + "." + k] }
  if len(keys) > 0 { m.load_state_dict(sd) }
  let xs = []
  for k in range(n) {
    let t = ref[f"{name}.x{k}"].clone()
    xs.append(t.requires_grad_(true) if is_float(t) else t)
  }
  let ys = run(m, xs)
  for k in range(len(ys)) {
    let want = ref[f"{name}.y{k}"]
    expect(ys[k].shape == want.shape, f"{name}: output {k} has shape {ys[k].shape}, PyTorch's {want.shape}")
    expect_close(ys[k].to(want.dtype), want, rtol=rtol, atol=atol)
  }
  for k in ref.keys() {
    if k.startswith(name + ".after.") {
      let key = k[len(name) + 7:]
      expect_close(m.state_dict()[key].to(ref[k].dtype), ref[k], rtol=rtol, atol=atol)
    }
  }
  if not (f"{name}.g" in ref.keys()) { return }
  (ys[0] * ref[f"{name}.g"]).sum().backward()
  for k in range(n) {
    if f"{name}.grad_x{k}" in ref.keys() { expect_close(xs[k].grad, ref[f"{name}.grad_x{k}"], rtol=rtol, atol=atol) }
  }
  for (key, p) in m.named_parameters() {
    let want = ref.get(f"{name}.grad.{key}")
    if want != none { expect_close(p.grad, want, rtol=rtol, atol=atol) }
  }
}

fn one(m, xs) = [m(*xs)]

fn run_lstm(m, xs) {
  let (y, hc) = m(xs[0], (xs[1], xs[2]))
  return [y, hc[0], hc[1]]
}

test "convolutions: padding \"same\" and \"valid\", padding_mode, unbatched inputs" {
  check("conv2d_same_reflect", nn.Conv2d(3, 4, [3, 4], padding="same", padding_mode="reflect", dilation=[1, 2]), 1, one)
  check("conv1d_same_circular", nn.Conv1d(2, 3, 4, padding="same", padding_mode="circular"), 1, one)
  check("conv2d_replicate", nn.Conv2d(2, 3, 3, stride=2, padding=[1, 2], padding_mode="replicate"), 1, one)
  check("conv3d_valid_unbatched", nn.Conv3d(2, 2, 2, padding="valid"), 1, one)
  check("conv2d_unbatched", nn.Conv2d(3, 2, 3, padding=1), 1, one)
  check("conv1d_same_even", nn.Conv1d(2, 2, 4, padding="same", bias=false), 1, one)
}

test "ConvTranspose's output_size picks output_padding, batched or not" {
  check("conv_transpose2d_output_size", nn.ConvTranspose2d(3, 2, 3, stride=2, padding=1), 1,
        fn(m, xs) = [m(xs[0], output_size=[10, 9])])
  check("conv_transpose1d_unbatched", nn.ConvTranspose1d(2, 3, 4, stride=3), 1, fn(m, xs) = [m(xs[0], output_size=[17])])
}

test "convolution arguments PyTorch refuses are errors that say why" {
  expect_error(fn() = nn.Conv2d(2, 2, 3, stride=2, padding="same"), "padding=\"same\" needs stride 1")
  expect_error(fn() = nn.Conv2d(2, 2, 3, padding="full"), "padding must be an int, a list of ints, \"same\" or \"valid\"")
  expect_error(fn() = nn.Conv2d(2, 2, 3, padding_mode="mirror"), "padding_mode must be one of")
  expect_error(fn() = nn.ConvTranspose2d(2, 2, 3, padding_mode="reflect"), "only padding_mode \"zeros\"")
  expect_error(fn() = nn.ConvTranspose2d(2, 2, 3, stride=2)(randn([1, 2, 4, 4]), output_size=[20, 9]),
               "can only be 9 to 10")
  expect_error(fn() = conv2d(randn([1, 2, 5, 5]), randn([2, 2, 3, 3]), stride=2, padding="same"),
               "\"same\" needs stride 1")
  expect_error(fn() = conv1d(randn([1, 2, 5]), randn([2, 2, 3]), padding="half"), "expected \"same\", \"valid\" or ints")
}

test "LSTM with proj_size: weight_hr, P-wide states and outputs, PyTorch's values and gradients" {
  let m = nn.LSTM(4, 6, num_layers=2, proj_size=3, bidirectional=true, batch_first=true)
  check("lstm_proj", m, 3, run_lstm, rtol=1e-4, atol=1e-5)
  expect_error(fn() = nn.LSTM(4, 6, proj_size=6), "proj_size must be at least 0 and smaller than hidden_size")
}

test "TransformerEncoder, TransformerDecoder and Transformer stack PyTorch's layers" {
  let enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=true), 2,
                                  norm=nn.LayerNorm(8))
  check("transformer_encoder", enc, 1,
        fn(m, xs) = [m(xs[0], mask=ref["causal_mask"], src_key_padding_mask=ref["pad_mask"])], rtol=1e-4, atol=1e-5)
  let dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0, activation="gelu", norm_first=true), 2)
  check("transformer_decoder", dec, 2, fn(m, xs) = [m(xs[0], xs[1], tgt_mask=ref["causal_mask"])], rtol=1e-4, atol=1e-5)
  let t = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=2, dim_feedforward=16,
                         dropout=0.0, batch_first=true)
  check("transformer", t, 2, fn(m, xs) = [m(xs[0], xs[1], tgt_mask=nn.generate_square_subsequent_mask(5),
                                            src_key_padding_mask=zeros([2, 6]) > 0)], rtol=1e-4, atol=1e-5)
  expect_close(nn.generate_square_subsequent_mask(5), ref["causal_mask"])
  expect_close(t.generate_square_subsequent_mask(5), ref["causal_mask"])
  # The copies are separate parameters: training one layer leaves the other.
  expect(len(enc.parameters()) == 2 * len(nn.TransformerEncoderLayer(8, 2, 16).parameters()) + 2)
}

test "Embedding's padding_idx row is read as it is and never gets a gradient" {
  check("embedding_padding", nn.Embedding(6, 3, padding_idx=2), 1, one)
  let e = nn.Embedding(5, 2, padding_idx=-1)
  expect(e.padding_idx == 4 and e.weight[4].abs().sum().item() == 0)
  expect_error(fn() = nn.Embedding(5, 2, padding_idx=5), "padding_idx must be within num_embeddings")
}

test "BatchNorm3d normalizes [N, C, D, H, W] and moves its running statistics" {
  check("batch_norm3d", nn.BatchNorm3d(3), 1, one)
  expect_error(fn() = nn.BatchNorm3d(3)(randn([2, 3, 4, 4])), "expected a 5-d input")
}

test "activation layers give PyTorch's values and gradients" {
  check("gelu_tanh", nn.GELU(approximate="tanh"), 1, one)
  check("relu6", nn.ReLU6(), 1, one)
  check("hardsigmoid", nn.Hardsigmoid(), 1, one)
  check("selu", nn.SELU(), 1, one)
  check("celu", nn.CELU(0.5), 1, one)
  check("prelu", nn.PReLU(3, init=0.1), 1, one)
  check("glu", nn.GLU(dim=1), 1, one)
  check("softmin", nn.Softmin(dim=2), 1, one)
  check("softsign", nn.Softsign(), 1, one)
  check("hardshrink", nn.Hardshrink(0.7), 1, one)
  check("softshrink", nn.Softshrink(0.7), 1, one)
  check("tanhshrink", nn.Tanhshrink(), 1, one)
  check("logsigmoid", nn.LogSigmoid(), 1, one)
  check("threshold", nn.Threshold(0.3, -2.0), 1, one)
  expect_error(fn() = nn.GELU(approximate="fast"), "approximate must be \"none\" or \"tanh\"")
  expect_error(fn() = nn.GLU()(randn([2, 3])), "must have an even size")
}

test "pools: a none adaptive size, AdaptiveMaxPool1d, max pools' indices and MaxUnpool" {
  check("adaptive_avg_none", nn.AdaptiveAvgPool2d([none, 3]), 1, one)
  check("adaptive_max1d", nn.AdaptiveMaxPool1d(3, return_indices=true), 1, fn(m, xs) = list(m(xs[0])))
  let pool = nn.MaxPool2d(2, stride=2, return_indices=true)
  check("max_unpool2d", nn.MaxUnpool2d(2, stride=2), 1, fn(m, xs) = [m(*pool(xs[0]), output_size=[5, 5])])
  let pool1 = nn.MaxPool1d(3, stride=2, padding=1, return_indices=true)
  check("max_unpool1d", nn.MaxUnpool1d(3, stride=2, padding=1), 1, fn(m, xs) = [m(*pool1(xs[0]))])
  expect_error(fn() = nn.MaxUnpool2d(2)(ones([1, 1, 2, 2]), tensor([[[[0, 1], [2, 99]]]])), "outside the output's plane")
}

test "volumes: MaxPool3d, AvgPool3d, the adaptive 3-D pools, MaxUnpool3d and ConvTranspose3d" {
  check("max_pool3d", nn.MaxPool3d([2, 3, 2], stride=[1, 2, 2], padding=1, ceil_mode=true, return_indices=true), 1,
        fn(m, xs) = list(m(xs[0])))
  check("avg_pool3d", nn.AvgPool3d(3, stride=2, padding=1, count_include_pad=false), 1, one)
  check("adaptive_avg3d", nn.AdaptiveAvgPool3d([2, none, 3]), 1, one)
  check("adaptive_max3d", nn.AdaptiveMaxPool3d(2, return_indices=true), 1, fn(m, xs) = list(m(xs[0])))
  let pool3 = nn.MaxPool3d(2, stride=2, return_indices=true)
  check("max_unpool3d", nn.MaxUnpool3d(2, stride=2), 1, fn(m, xs) = [m(*pool3(xs[0]), output_size=[4, 5, 4])])
  check("conv_transpose3d", nn.ConvTranspose3d(4, 6, [3, 2, 3], stride=2, padding=[1, 0, 1], groups=2), 1,
        fn(m, xs) = [m(xs[0], output_size=[6, 8, 6])])
  check("conv_transpose3d_unbatched", nn.ConvTranspose3d(2, 3, 2, dilation=2, bias=false), 1, one)
  expect_error(fn() = max_pool3d(randn([1, 1, 2, 2, 2]), 3), "max_pool3d(): input of shape [1, 1, 2, 2, 2] is too small for kernel [3, 3, 3]")
  expect_error(fn() = max_pool3d(randn([1, 2, 2, 2]), 2, padding=2), "max_pool3d(): argument 'padding' [2, 2, 2] must be at most half of 'kernel_size' [2, 2, 2]")
  expect_error(fn() = conv_transpose3d(randn([1, 2, 2, 2, 2]), randn([2, 1, 2, 2, 2]), stride=2, output_padding=2), "must be smaller than the stride or the dilation")
  expect_error(fn() = conv_transpose3d(randn([1, 3, 2, 2, 2]), randn([2, 1, 2, 2, 2])), "has 3 channels but the weight")
}

test "losses with class weights and pos_weight keep them as PyTorch's buffers" {
  check("cross_entropy_weighted", nn.CrossEntropyLoss(weight=ones([3]), label_smoothing=0.1), 2, one)
  check("bce_logits_pos_weight", nn.BCEWithLogitsLoss(pos_weight=ones([2])), 2, one)
  expect_error(fn() = nn.CrossEntropyLoss(weight=ones([2]))(randn([4, 3]), tensor([0, 1, 2, 0])), "must be a floating 1-D tensor of 3 class weights")
  expect_error(fn() = cross_entropy(randn([4, 3]), rand([4, 2])), "a floating target holds class probabilities and must have the input's shape")
}

test "reshaping, padding and upsampling layers" {
  check("pixel_shuffle", nn.PixelShuffle(2), 1, one)
  check("pixel_unshuffle", nn.PixelUnshuffle(2), 1, one)
  check("unflatten", nn.Unflatten(1, [2, -1]), 1, one)
  check("reflection_pad1d", nn.ReflectionPad1d([3, 1]), 1, one)
  check("replication_pad3d", nn.ReplicationPad3d([1, 0, 2, 1, 0, 1]), 1, one)
  check("constant_pad3d", nn.ConstantPad3d(1, 2.5), 1, one)
  check("circular_pad2d", nn.CircularPad2d([2, 1, 1, 2]), 1, one)
  check("upsampling_bilinear", nn.UpsamplingBilinear2d(scale_factor=2), 1, one)
  check("upsampling_nearest", nn.UpsamplingNearest2d(size=[5, 7]), 1, one)
  let x = randn([2, 8, 3, 3])
  expect_close(nn.PixelUnshuffle(2)(nn.PixelShuffle(2)(x)), x)
  expect_error(fn() = nn.ZeroPad2d([1, 2, 3])(x), "padding must be an int or 4 ints")
}

test "ModuleList and ModuleDict hold layers whose parameters are the model's" {
  model Stack() {
    blocks = nn.ModuleList([nn.Linear(4, 4) for _ in range(3)])
    heads = nn.ModuleDict({"a": nn.Linear(4, 2), "b": nn.Linear(4, 1)})
    forward(x) {
      for b in self.blocks { x = relu(b(x)) }
      return (self.heads["a"](x), self.heads["b"](x))
    }
  }
  let m = Stack()
  expect(list(m.state_dict().keys()) == ["blocks.0.weight", "blocks.0.bias", "blocks.1.weight", "blocks.1.bias",
                                         "blocks.2.weight", "blocks.2.bias", "heads.a.weight", "heads.a.bias",
                                         "heads.b.weight", "heads.b.bias"])
  let (a, b) = m(randn([2, 4]))
  (a.sum() + b.sum()).backward()
  for p in m.parameters() { expect(p.grad != none) }
  let l = nn.ModuleList()
  l.append(nn.ReLU()).extend([nn.Tanh(), nn.Sigmoid()]).insert(1, nn.GELU())
  expect([type(x) for x in l] == ["ReLU", "GELU", "Tanh", "Sigmoid"] and len(l) == 4)
  expect(type(l[-1]) == "Sigmoid" and len(l[1:3]) == 2)
  expect(m.heads.keys() == ["a", "b"] and [k for k in m.heads] == ["a", "b"])
  expect_error(fn() = m.heads["c"], "no module named 'c'")
  expect_error(fn() = nn.ModuleList([relu]), "must be a layer")
}

test "ParameterList and ParameterDict hold tensors as the model's parameters, under PyTorch's state_dict keys" {
  model Mixer() {
    plist = nn.ParameterList([randn([2, 3]), randn([3])])
    pd = nn.ParameterDict({"scale": ones([3]), "shift": zeros([3])})
    forward(x) = (x @ self.plist[0] + self.plist[1]) * self.pd["scale"] + self.pd["shift"]
  }
  let m = Mixer()
  expect(list(m.state_dict().keys()) == ["plist.0", "plist.1", "pd.scale", "pd.shift"], f"{m.state_dict().keys()}")
  expect(len(m.parameters()) == 4 and len(m.plist) == 2 and len(m.pd) == 2)
  m(randn([4, 2])).sum().backward()
  for p in m.parameters() { expect(p.grad != none and p.is_leaf) }
  let shared = randn([5])
  m.plist.append(shared).extend([randn([1])])
  expect(len(m.plist) == 4 and list(m.plist[-2].shape) == [5] and [list(p.shape) for p in m.plist][3] == [1])
  expect(m.plist[2].requires_grad and not shared.requires_grad, "a parameter sharing the tensor's data")
  m.plist[2].data.fill_(7.0)
  expect(shared[0].item() == 7.0)
  m.pd.update({"shift": randn([3]), "bias": randn([3])})
  expect(m.pd.keys() == ["scale", "shift", "bias"] and [k for k in m.pd] == m.pd.keys() and len(m.pd.values()) == 3)
  let before = m.state_dict()
  let other = Mixer()
  other.plist.extend([randn([5]), randn([1])])
  other.pd.update({"bias": randn([3])})
  other.load_state_dict(before)
  expect(equal(other.pd["bias"], m.pd["bias"]) and equal(other.plist[3], m.plist[3]), "loads by key")
  expect_error(fn() = m.pd["gamma"], "nn.ParameterDict: no parameter named 'gamma'")
  expect_error(fn() = nn.ParameterList(randn([3])), "nn.ParameterList(): values must be a list of tensors, got one tensor")
  expect_error(fn() = nn.ParameterList([arange(3)]), "must be a floating-point tensor to be a parameter")
  expect_error(fn() = nn.ParameterDict({"a": 1.0}), "nn.ParameterDict(): parameters['a'] must be a tensor, got float")
}

test "Bilinear: x1^T W x2 + b over leading dims, PyTorch's init bound, values and gradients" {
  check("bilinear", nn.Bilinear(4, 3, 5), 2, one)
  check("bilinear_no_bias", nn.Bilinear(3, 2, 4, bias=false), 2, one)
  let b = nn.Bilinear(16, 3, 8)
  let bound = 1.0 / 4.0   # 1 / sqrt(in1_features), PyTorch's reset_parameters
  expect(b.weight.abs().max().item() <= bound and b.bias.abs().max().item() <= bound)
  expect(b.weight.abs().max().item() > 0.9 * bound)
  expect_error(fn() = b(randn([2, 15]), randn([2, 3])), "input1 has 15 features (its last dim), the weight [8, 16, 3] expects 16")
  expect_error(fn() = b(randn([2, 16]), randn([3, 3])), "must have the same leading (batch) dims")
}

test "EmbeddingBag: sum, mean and max of 2-D bags and of offsets, per_sample_weights, padding_idx, include_last_offset" {
  let bag = fn(m, xs) = [m(xs[0], xs[1])]
  check("embedding_bag_sum_2d", nn.EmbeddingBag(10, 3, mode="sum"), 1, one)
  check("embedding_bag_mean_offsets", nn.EmbeddingBag(10, 3), 2, bag)
  check("embedding_bag_max_offsets", nn.EmbeddingBag(10, 3, mode="max"), 2, bag)
  check("embedding_bag_sum_weighted", nn.EmbeddingBag(10, 3, mode="sum"), 3,
        fn(m, xs) = [m(xs[0], xs[1], per_sample_weights=xs[2])])
  check("embedding_bag_mean_padding", nn.EmbeddingBag(10, 3, padding_idx=2), 1, one)
  check("embedding_bag_max_padding", nn.EmbeddingBag(10, 3, mode="max", padding_idx=-1), 2, bag)
  check("embedding_bag_last_offset", nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=true), 2, bag)
  check("embedding_bag_last_offset_2d", nn.EmbeddingBag(10, 3, mode="sum", include_last_offset=true), 1, one)
  check("embedding_bag_max_norm", nn.EmbeddingBag(10, 3, max_norm=1.0, mode="sum"), 2, bag)
  let e = nn.EmbeddingBag(5, 2, padding_idx=1)
  expect(e.weight[1].abs().sum().item() == 0 and e.mode == "mean")
  let pre = nn.EmbeddingBag.from_pretrained(ref["embedding_bag_sum_2d.weight"], mode="sum")
  expect_close(pre(ref["embedding_bag_sum_2d.x0"]), ref["embedding_bag_sum_2d.y0"])
  expect(not pre.weight.requires_grad)
  expect_error(fn() = nn.EmbeddingBag(5, 2, mode="median"), "mode must be \"sum\", \"mean\" or \"max\", got 'median'")
  expect_error(fn() = nn.EmbeddingBag(5, 2)(tensor([[1, 2]]), tensor([0])), "offsets must be none")
  expect_error(fn() = nn.EmbeddingBag(5, 2)(tensor([1, 2])), "a 1-D input needs offsets")
  expect_error(fn() = nn.EmbeddingBag(5, 2)(tensor([1, 2]), tensor([1])), "offsets[0] must be 0")
  expect_error(fn() = nn.EmbeddingBag(5, 2)(tensor([1, 2]), tensor([0, 3])), "offsets[-1] must be at most the input's length 2, got 3")
  expect_error(fn() = nn.EmbeddingBag(5, 2)(tensor([[1, 2]]), per_sample_weights=ones([1, 2])), "only supported for mode \"sum\"")
  expect_error(fn() = nn.EmbeddingBag(5, 2, mode="sum")(tensor([[1, 2]]), per_sample_weights=ones([2])), "must have the input's shape")
  expect(nn.EmbeddingBag(5, 2, sparse=true).sparse, "sparse=true is taken, its gradient dense (optim.SparseAdam)")
}

test "Embedding's max_norm renormalizes the rows looked up, in place, as PyTorch's" {
  check("embedding_max_norm", nn.Embedding(8, 4, max_norm=1.5), 1, one)
  check("embedding_max_norm_l1", nn.Embedding(8, 4, max_norm=2.0, norm_type=1.0), 1, one)
  let e = nn.Embedding.from_pretrained(ref["embedding_max_norm.weight"], max_norm=1.5)
  e(ref["embedding_max_norm.x0"])
  expect_close(e.weight, ref["embedding_max_norm.after.weight"])
  expect(nn.Embedding(5, 2, scale_grad_by_freq=true).scale_grad_by_freq, "taken (test_embed_norm_vs_torch6.dsl)")
  expect(nn.Embedding(5, 2, sparse=true).sparse, "sparse=true is taken, its gradient dense (optim.SparseAdam)")
  expect(nn.Embedding(5, 2, sparse=false).sparse == false)
}

test "Softmax2d and ChannelShuffle give PyTorch's values" {
  check("softmax2d", nn.Softmax2d(), 1, one)
  check("softmax2d_unbatched", nn.Softmax2d(), 1, one)
  check("channel_shuffle", nn.ChannelShuffle(3), 1, one)
  check("channel_shuffle_1d", nn.ChannelShuffle(2), 1, one)
  # PyTorch 1.13 has no derivative for it; the gradient is the inverse shuffle: 3
  # groups of 2 channels shuffled, then 2 groups of 3, is the identity.
  let x = ref["channel_shuffle.x0"].clone().requires_grad_(true)
  let g = randn([2, 6, 2, 3])
  (nn.ChannelShuffle(3)(x) * g).sum().backward()
  expect_close(x.grad, nn.ChannelShuffle(2)(g))
  expect_error(fn() = nn.Softmax2d()(randn([2, 3])), "expected a 3-d or 4-d input")
  expect_error(fn() = nn.ChannelShuffle(4)(randn([1, 6, 2])), "the 6 channels must be divisible by groups (4)")
  expect_error(fn() = nn.ChannelShuffle(2)(randn([2, 4])), "more than 2 dims")
  expect_error(fn() = nn.ChannelShuffle(0), "groups must be an int > 0, got 0")
}

# Training draws its masks from nabla's RNG, not PyTorch's, so the training mode is
# checked by what PyTorch's outputs fix: every unit is a * x + b (kept) or c (dropped),
# with PyTorch's a, b, c (alpha_dropout.consts); about p of them are dropped, whole
# channels for the feature form; and a unit-Gaussian input keeps mean 0 and std 1.
test "AlphaDropout and FeatureAlphaDropout: the identity in eval, PyTorch's affine map in training" {
  check("alpha_dropout_eval", nn.AlphaDropout(0.3).eval(), 1, one)
  check("feature_alpha_dropout_eval", nn.FeatureAlphaDropout(0.3).eval(), 1, one)
  let (a, b, c) = tuple(ref["alpha_dropout.consts"].tolist())
  let x = randn([100000])
  let y = nn.AlphaDropout(0.3)(x)
  let dropped = (y - c).abs() < 1e-5
  expect(where(dropped, 0.0, (y - (a * x + b)).abs()).max().item() < 1e-5, "a kept unit is a * x + b")
  let rate = dropped.to(f32).mean().item()
  expect(abs(rate - 0.3) < 5 * math.sqrt(0.3 * 0.7 / 100000), f"dropped {rate} of the units, p = 0.3")
  expect(abs(y.mean().item()) < 0.02 and abs(y.std().item() - 1.0) < 0.02, f"mean {y.mean().item()}, std {y.std().item()}")
  let xc = randn([1000, 50, 8])
  let yc = nn.FeatureAlphaDropout(0.3)(xc)
  let kept_c = ((yc - (a * xc + b)).abs() < 1e-5).to(f32).mean(dim=2) == 1.0
  let dropped_c = ((yc - c).abs() < 1e-5).to(f32).mean(dim=2) == 1.0
  expect(logical_or(kept_c, dropped_c).all().item(), "a channel is dropped whole or kept whole")
  expect(abs(1.0 - kept_c.to(f32).mean().item() - 0.3) < 5 * math.sqrt(0.3 * 0.7 / 50000))
  expect(abs(yc.mean().item()) < 0.02 and abs(yc.std().item() - 1.0) < 0.02)
  let z = nn.AlphaDropout(1.0)(x)
  expect(z.abs().max().item() == 0)
  expect_close(nn.AlphaDropout(0.0)(x), x)
  expect_error(fn() = nn.AlphaDropout(1.5), "p must be in [0, 1], got 1.5")
  expect_error(fn() = nn.FeatureAlphaDropout(0.5)(randn([4])), "feature dropout needs at least 2 dims")
}
