# Small functions and layers that together reach most rows of the ONNX op mapping
# (graph/onnx/op_mapping*.cpp, quantized.cpp), each exported as OUT/ops_<name>.onnx with
# its inputs and nabla's outputs (export_case.dsl) for tests/onnx/check_models.sh.
#   nabla tests/onnx/export_ops.dsl OUT
import nn
import "export_case.dsl" as cases

let out = args[0]
manual_seed(1)

fn case(name, f, inputs) {
  if type(f) != "function" { f.eval() }
  cases.export_case(out, "ops_" + name, f, inputs)
}

let x = randn([3, 4, 5])
let a = randn([4, 5])
let b = randn([4, 5])
let images = randn([2, 4, 8, 8])

case("unary", fn(x) = x.exp() + x.abs().sqrt() + (x.abs() + 0.5).rsqrt() + x.sin() + x.cos() + x.tanh() +
                     x.sigmoid() + relu(x) + gelu(x) + silu(x) + erf(x) + x.sign() - x.neg() + hardswish(x) + mish(x),
     [x])
case("rounding", fn(x) = (x * 3.0).floor() + (x * 3.0).ceil() + (x * 3.0).round() + (x * 3.0).trunc() +
                        (x.abs() + 0.1).log() + x.abs().log1p() + x.expm1(), [x])
case("parametric", fn(x) = softplus(x, beta=2.0, threshold=1.0) + elu(x, alpha=0.7) + leaky_relu(x, 0.2) +
                          hardtanh(x, -0.5, 0.5) + logit(x.sigmoid(), eps=0.01), [x])
case("binary", fn(a, b) = a + b - a * b / (b.abs() + 1.0) + pow(a.abs() + 0.1, b) + maximum(a, b) + minimum(a, b) +
                         remainder(a, b + 3.0) + atan2(a, b) + logaddexp(a, b), [a, b])
case("compare", fn(a, b) = where(a > b, a, b) + (a >= b).float() + (a < b).float() * 2.0 + (a <= 0.5).float() +
                          (a == a).float() + (a != b).float() + clamp(a, -0.5, 0.5) + masked_fill(a, a < 0.0, 0.25),
     [a, b])
case("reduce", fn(x) = (x.sum(1), x.mean([0, 2], keepdim=true), x.max(), x.min(), x.argmax(1), x.argmin(),
                       x.var(1), x.std([1, 2]), logsumexp(x, 2), softmax(x, 1), log_softmax(x, -1)), [x])
case("views", fn(x) = (x.reshape([12, 5]), x.transpose(0, 2), x.permute([2, 0, 1]), x[1], x[:, 1:3], x[:, :, 0:5:2],
                      x[0:1].expand([2, 4, 5]), x.unsqueeze(1), x[0:1].squeeze(0), x.flip(1), x.roll(2, 1),
                      x.tril(), x.triu(1), x.repeat([1, 2, 1]), x.contiguous()), [x])
# The random draws become RandomUniform / RandomNormal, which draw other numbers than
# nabla's generator: the draws here are certain (scaled by 0, std 0, one integer).
case("random", fn(x) = x + rand_like(x) * 0.0 + randn_like(x) * 0.0 + random_normal(size=[3, 4, 5], mean=0.5, std=0.0) +
                      random_integers(size=[3, 4, 5], low=2, high=3, dtype=f32), [x])
case("join", fn(x) = (cat([x, x * 2.0], 1), stack([x, x], 0), x.split(2, 1)[1], x.cumsum(2), x.sort(2)[0],
                     x.topk(2, 2)[0], x.topk(2, 2)[1], unbind(x, dim=1)[2], unbind(x, dim=-1)[0]), [x])
case("det", fn(m) = det(m) * 2.0, [randn([2, 3, 3]) + eye(3) * 3.0])
case("index", fn(x, i) = (x.gather(2, i), x.index_select(2, i[0, 0]), one_hot(i, 5), x.scatter_add(2, i, x)),
     [x, randint(0, 5, [3, 4, 5])])
case("conv", nn.Sequential([nn.Conv2d(4, 6, 3, stride=2, padding=1, groups=2), nn.ConvTranspose2d(6, 3, 3, stride=2,
                                                                                                 padding=1, output_padding=1)]),
     [images])
case("conv1d", nn.Sequential([nn.Conv1d(4, 6, 3, padding=2, dilation=2), nn.MaxPool1d(2), nn.AvgPool1d(2)]),
     [randn([2, 4, 16])])
case("pool", fn(x) = (max_pool2d(x, 3, stride=2, padding=1), avg_pool2d(x, 2), adaptive_avg_pool2d(x, [2, 2]),
                     adaptive_avg_pool2d(x, [1, 1])), [images])
case("norm", nn.Sequential([nn.GroupNorm(2, 4), nn.LayerNorm([8]), nn.RMSNorm([8])]), [images])
case("resample", fn(x) = (interpolate(x, scale_factor=2.0, mode="nearest"),
                         interpolate(x, size=[12, 12], mode="bilinear"),
                         interpolate(x, size=[12, 12], mode="bilinear", align_corners=true),
                         pad(x, [1, 2, 0, 1], value=0.5), pad(x, [1, 1, 2, 2], mode="reflect"),
                         pad(x, [2, 1, 1, 0], mode="replicate")), [images])
case("loss", fn(a, t, p) = (cross_entropy(a, t), nll_loss(log_softmax(a, 1), t, reduction="sum"),
                           mse_loss(a, p, reduction="none"), binary_cross_entropy(p.sigmoid(), (p > 0.0).float()),
                           binary_cross_entropy_with_logits(a, p.sigmoid())),
     [a, randint(0, 5, [4]), b])
case("quant", fn(x) = (dequantize_per_tensor(quantize_per_tensor(x, 0.05, 3, "u8"), 0.05, 3),
                      fake_quantize_per_tensor(x, 0.1, 2, -128, 127)), [a])
