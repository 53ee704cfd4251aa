# Static (post-training) quantization: fuse_conv_bn, prepare, calibrate, convert,
# quantize_static and the QuantizedLinear they make (tests/stdlib/quant/test_static_conv.dsl
# has the convolutions). Run by `nabla test tests/stdlib`.
import nn
import quant

fn mlp() = nn.Sequential([nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4)])

model TwoPart() {
  body = nn.Sequential([nn.Linear(4, 4)])
  head = nn.Linear(4, 2)
  forward(x) = self.head(self.body(x))
}

# A prepared TwoPart whose body saw a batch and whose head did not.
fn half_calibrated() {
  let p = quant.prepare(TwoPart())
  no_grad { p.body(randn([2, 4])) }
  return p
}

# Activations observed per channel: static quantization needs one scale per input.
let per_channel_inputs = quant.QConfig(fn() = quant.PerChannelMinMaxObserver(ch_axis=1, dtype=u8,
                                                                             qscheme="per_channel_affine"),
                                       quant.default_weight_observer)

# Symmetric i8 weights per output channel, computed here from their definition
# (scale = max |w| / 127.5 per row, PyTorch's symmetric qparams).
fn per_channel_i8(w) {
  let s = w.detach().abs().reshape([w.shape[0], -1]).max(dim=1)[0] / 127.5
  return (quantize_per_channel(w.detach(), s, zeros([w.shape[0]], dtype=i64), 0, i8), s)
}

test "prepare makes observed copies in eval mode that watch each layer's input" {
  manual_seed(10)
  let m = nn.Sequential([nn.Linear(12, 16), nn.ReLU(), nn.Dropout(0.5), nn.Linear(16, 4)])
  let p = quant.prepare(m, quant.minmax_qconfig)
  expect(isinstance(m[0], nn.Linear) and m[2].training)
  expect(isinstance(p[0], quant.ObservedLinear) and isinstance(p[3], quant.ObservedLinear) and not p[2].training)
  m.eval()
  expect(p[0].activation_post_process.min_val.numel() == 0)
  let x = randn([32, 12])
  let y = none
  no_grad { y = p(x) }
  expect_close(y, m(x).detach(), rtol=0.0, atol=0.0)   # observing changes nothing
  expect(p[0].activation_post_process.min_val.item() == x.min().item())
  expect(p[0].activation_post_process.max_val.item() == x.max().item())
  let h = relu(m[0](x)).detach()
  expect(p[3].activation_post_process.max_val.item() == h.max().item())
  expect(isinstance(quant.prepare(m)[0].activation_post_process, quant.HistogramObserver))
}

test "calibration fixes the input scales: wider batches give larger ones" {
  manual_seed(11)
  let m = mlp()
  let x = randn([64, 12])
  let narrow = quant.quantize_static(m, [x], qconfig=quant.minmax_qconfig)
  let wide = quant.quantize_static(m, [x, (x * 3.0, none)], qconfig=quant.minmax_qconfig)
  expect(isinstance(narrow[0], quant.QuantizedLinear) and isinstance(narrow[2], quant.QuantizedLinear))
  # MinMax: the scale maps [min(x, 0), max(x, 0)] onto 0..255.
  let expected = (maximum(x.max(), tensor(0.0)) - minimum(x.min(), tensor(0.0))) / 255.0
  expect_close(tensor(narrow[0].input_scale), expected, rtol=1e-6, atol=0.0)
  expect_close(tensor(wide[0].input_scale), expected * 3.0, rtol=1e-5, atol=0.0)
  expect(wide[2].input_scale > narrow[2].input_scale)
  # The default HistogramObserver clips the tails that MinMax keeps.
  let hist = quant.quantize_static(m, [x])
  expect(hist[0].input_scale < narrow[0].input_scale, f"{hist[0].input_scale} vs {narrow[0].input_scale}")
}

test "QuantizedLinear computes quantize + quantized_linear, within the quantization steps of f32" {
  manual_seed(12)
  let m = mlp()
  let x = randn([40, 12])
  let q = quant.quantize_static(m, [x], qconfig=quant.minmax_qconfig)
  let l = q[0]
  let (wq, ws) = per_channel_i8(m[0].weight)
  expect(l.weight.tolist() == wq.tolist())
  expect_close(l.weight_scale, ws, rtol=1e-6, atol=0.0)
  let (s, z) = (l.input_scale, l.input_zero_point)
  let explicit = quantized_linear(quantize_per_tensor(x, s, z, u8), wq, ws, m[0].bias.detach(), input_scale=s,
                                  input_zero_point=z)
  expect_close(l(x), explicit, rtol=0.0, atol=0.0)
  # Inside the calibrated range each input is off by at most s/2 and each weight by
  # ws/2: |y_q - y| <= sum_k (s/2 |w_jk| + |x_nk| ws_j/2 + s/2 ws_j/2).
  let w = m[0].weight.detach()
  let bound = (s / 2) * w.abs().sum(dim=1)[none, :] + x.abs().sum(dim=1, keepdim=true) * (ws / 2)[none, :] +
              12 * (s / 2) * (ws / 2)[none, :]
  let err = (l(x) - m[0](x).detach()).abs()
  expect((err <= bound * 1.0001 + 1e-6).sum().item() == err.numel(), f"error {err.max().item()} over the bound")
  expect(err.max().item() > 0)   # it did quantize
  # The whole model: close to f32 relative to its outputs' spread.
  let y = m(x).detach()
  expect((q(x) - y).abs().max().item() < 0.05 * y.std().item())
}

test "convert refuses a model that was never calibrated, naming the layers" {
  expect_error("quant.convert(quant.prepare(mlp()))",
               "quant.convert: 2 observed layer(s) never saw a calibration batch (0, 2): run batches through the prepared model")
  expect_error("quant.quantize_static(mlp(), [])", "never saw a calibration batch")
  expect_error("quant.convert(half_calibrated())", "1 observed layer(s) never saw a calibration batch (head)")
  expect_error("quant.convert(quant.prepare(nn.Linear(3, 2)))", "((the model itself))")
}

test "a statically quantized model is about 4x smaller" {
  manual_seed(13)
  let m = nn.Sequential([nn.Linear(256, 128), nn.ReLU(), nn.Linear(128, 10)])
  let q = quant.quantize_static(m, [randn([16, 256])])
  expect(quant.model_size_bytes(m) == (256 * 128 + 128 + 128 * 10 + 10) * 4)
  # i8 weights; f32 scales and biases; [input scale, zero point] in f64 per layer.
  expect(quant.model_size_bytes(q) == 256 * 128 + 128 * 10 + (128 + 128 + 10 + 10) * 4 + 2 * 16)
  expect(quant.model_size_bytes(m) / quant.model_size_bytes(q) > 3.85)
  expect(list(q.state_dict().keys()) == ["0.weight", "0.weight_scale", "0.bias", "0.input_qparams", "2.weight",
                                         "2.weight_scale", "2.bias", "2.input_qparams"])
}

test "a statically quantized model saves and loads, input scales included" {
  manual_seed(14)
  let x = randn([8, 12])
  let q = quant.quantize_static(mlp(), [x])
  let path = "/tmp/nabla_quant_static_test.safetensors"
  save(q, path)
  let other = quant.quantize_static(mlp(), [x * 2.0])
  expect(other[0].input_scale != q[0].input_scale)
  quant.sync_input_qparams(load(path, into=other))
  expect(other[0].input_scale == q[0].input_scale and other[2].input_zero_point == q[2].input_zero_point)
  expect_close(other(x), q(x), rtol=0.0, atol=0.0)
  expect(load(path)["0.weight"].dtype == i8)
}

test "compile() records a statically quantized model; the graph computes what eager does" {
  manual_seed(15)
  let m = mlp()
  let x = randn([16, 12])
  let q = quant.quantize_static(m, [x])
  let gm = compile(q, x)
  expect("quantized_linear(" in gm.ir() and "quantize_per_tensor(" in gm.ir(), gm.ir())
  expect_close(gm(x), q(x), rtol=0.0, atol=0.0)
  gm.optimize()
  # lower_quant keeps the activations in u8 between the layers, exactly
  expect(gm.ir().count("quantize_per_tensor(") == 1 and "output_scale=" in gm.ir(), gm.ir())
  let x2 = randn([16, 12]) * 2.0
  expect_close(gm(x2), q(x2), rtol=0.0, atol=0.0)
}

test "fuse_conv_bn folds eval-mode batch norms into their convs" {
  manual_seed(16)
  let m = nn.Sequential([nn.Conv2d(3, 8, 3, padding=1), nn.BatchNorm2d(8), nn.ReLU(),
                         nn.Sequential([nn.Conv2d(8, 4, 3, stride=2, bias=false), nn.BatchNorm2d(4)]),
                         nn.Conv2d(4, 4, 1), nn.BatchNorm2d(4, track_running_stats=false)])
  # Running statistics and affine parameters that are not the identity.
  for _ in range(3) { m(randn([6, 3, 9, 9]) * 2.0 + 0.5) }
  no_grad {
    m[1].weight.copy_(rand([8]) + 0.5)
    m[1].bias.copy_(randn([8]))
  }
  m.eval()
  let f = quant.fuse_conv_bn(m)
  expect(isinstance(f[1], nn.Identity) and isinstance(f[3][1], nn.Identity) and isinstance(f[3][0].bias, "tensor"))
  expect(isinstance(f[5], nn.BatchNorm2d))   # batch statistics: not foldable
  expect(isinstance(m[1], nn.BatchNorm2d) and m[3][0].bias == none)   # the original is untouched
  let x = randn([2, 3, 9, 9])
  expect_close(f(x), m(x), rtol=1e-5, atol=1e-5)
  expect((f[0].weight - m[0].weight).abs().max().item() > 0)
}

test "errors say what was expected and what was found" {
  expect_error("quant.QuantizedLinear(4, 2, zeros([2, 4]), ones([2]), none, 0.1, 0)",
               "QuantizedLinear: expected an i8 weight of shape [2, 4], got f32 [2, 4]")
  expect_error("quant.quantize_static(nn.Linear(3, 2), [randn([4, 3])], qconfig=per_channel_inputs)",
               "quant: an activation observer must be per tensor, got 3 scales")
  expect_error("quant.HistogramObserver(qscheme=\"per_channel_affine\")", "qscheme must be one of")
}
