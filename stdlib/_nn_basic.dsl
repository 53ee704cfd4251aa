# _nn_basic: nn.Linear, nn.Bilinear, nn.LayerNorm and nn.Dropout (and its channel-wise
# Dropout1d, Dropout2d, Dropout3d, and the self-normalizing AlphaDropout and
# FeatureAlphaDropout), which other layer files build on (stdlib/_nn_attention.dsl),
# and PyTorch's default init of Linear and the convolutions. nn re-exports them (and
# the functions bilinear, alpha_dropout, feature_alpha_dropout); import nn, not this
# module.
import math
import _nn_init

let kaiming_uniform_ = _nn_init.kaiming_uniform_
let uniform_ = _nn_init.uniform_
let calculate_fan_in_and_fan_out = _nn_init.calculate_fan_in_and_fan_out
let parameter = _nn_init.parameter

# PyTorch's reset_parameters() of Linear and Conv2d: kaiming-uniform with a=sqrt(5)
# (U(-1/sqrt(fan_in), 1/sqrt(fan_in))) for the weight, the same bound for the bias.
fn _default_init(w, b) {
  kaiming_uniform_(w, a=math.sqrt(5.0))
  if b != none {
    let fan_in = calculate_fan_in_and_fan_out(w)[0]
    let bound = 1.0 / math.sqrt(fan_in) if fan_in > 0 else 0.0  # as PyTorch's (nn.Linear(0, 3) has no inputs)
    uniform_(b, -bound, bound)
  }
}

model Linear(in_features, out_features, bias=true, device=none, dtype=none) {
  "Applies y = x W^T + b over the last dim (weight [out_features, in_features]). Example: nn.Linear(784, 256)(randn([32, 784]))"
  in_features = _nn_init._size_arg("Linear", "in_features", in_features)
  out_features = _nn_init._size_arg("Linear", "out_features", out_features)
  weight = parameter([out_features, in_features])
  bias = parameter([out_features]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = linear(x, self.weight, self.bias)
}

# y[..., o] = sum_ij x1[..., i] W[o, i, j] x2[..., j] + b[o], as torch.nn.functional.bilinear:
# the inputs' leading dims must be equal (no broadcasting, as PyTorch's).
fn bilinear(input1, input2, weight, bias=none) {
  "x1^T W x2 + b over the last dims (weight [out, in1, in2]), as torch.nn.functional.bilinear. Example: nn.bilinear(randn([4, 2]), randn([4, 3]), randn([5, 2, 3]))"
  let s1 = list(_nn_init._tensor_arg("bilinear()", "input1", input1).shape)
  let s2 = list(_nn_init._tensor_arg("bilinear()", "input2", input2).shape)
  let w = list(_nn_init._tensor_arg("bilinear()", "weight", weight).shape)
  assert(len(w) == 3, f"bilinear(): weight must be 3-D [out, in1, in2], got shape {w}")
  assert(len(s1) >= 1 and s1[:-1] == s2[:-1],
         f"bilinear(): input1 {s1} and input2 {s2} must have the same leading (batch) dims")
  assert(s1[-1] == w[1], f"bilinear(): input1 has {s1[-1]} features (its last dim), the weight {w} expects {w[1]}")
  assert(s2[-1] == w[2], f"bilinear(): input2 has {s2[-1]} features (its last dim), the weight {w} expects {w[2]}")
  let y = einsum("...i,oij,...j->...o", input1, weight, input2)
  return y if bias == none else y + bias
}

model Bilinear(in1_features, in2_features, out_features, bias=true, device=none, dtype=none) {
  "Applies y = x1^T W x2 + b over the last dims (weight [out_features, in1_features, in2_features]). Example: nn.Bilinear(4, 3, 2)(randn([8, 4]), randn([8, 3]))"
  in1_features = _nn_init._size_arg("Bilinear", "in1_features", in1_features)
  in2_features = _nn_init._size_arg("Bilinear", "in2_features", in2_features)
  out_features = _nn_init._size_arg("Bilinear", "out_features", out_features)
  weight = parameter([out_features, in1_features, in2_features])
  bias = parameter([out_features]) if bias else none
  let _ = _bilinear_init(self.weight, self.bias)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(input1, input2) = bilinear(input1, input2, self.weight, self.bias)
}

# PyTorch's Bilinear.reset_parameters(): U(-1/sqrt(in1), 1/sqrt(in1)) for the weight and
# the bias alike.
fn _bilinear_init(w, b) {
  let bound = 1.0 / math.sqrt(w.shape[1]) if w.shape[1] > 0 else 0.0
  uniform_(w, -bound, bound)
  if b != none { uniform_(b, -bound, bound) }
}

model LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=true, device=none, dtype=none) {
  "Layer normalization over the last dims (normalized_shape), with a learned scale and shift. Example: nn.LayerNorm(512)"
  normalized_shape = _nn_init._shape_arg("LayerNorm", "normalized_shape", normalized_shape)
  eps = eps
  weight = ones(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  bias = zeros(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = layer_norm(x, self.normalized_shape, weight=self.weight, bias=self.bias, eps=self.eps)
}

# Zeroes each element with probability p and scales the rest by 1/(1-p) in training;
# the identity in eval.
model Dropout(p=0.5, inplace=false) {
  "Zeroes each element with probability p in training (the rest scaled by 1 / (1 - p)); identity in eval. Example: nn.Dropout(0.5)"
  p = p
  inplace = inplace
  training = true
  let _c = _check_p("Dropout", p)  # as PyTorch's, at construction: a p < 0 was the identity
  forward(x) = dropout(x, p=self.p, training=self.training, inplace=self.inplace) if self.training and self.p > 0 else x
}

# Channel-wise dropout, as PyTorch's Dropout1d/2d/3d (the functions dropout1d, ...):
# each channel of each example zeroed whole with probability p in training; the
# identity in eval.
fn _check_p(name, p) {
  if not (type(p) in ["int", "float"]) { fail(f"{name}: p must be a number in [0, 1], got {type(p)}") }
  assert(p >= 0 and p <= 1, f"{name}: p must be in [0, 1], got {p}")
}

model Dropout1d(p=0.5, inplace=false) {
  "Zeroes whole channels of [N, C, L] with probability p in training. Example: nn.Dropout1d(0.2)"
  p = p
  training = true
  inplace = inplace
  let _c = _check_p("Dropout1d", p)
  forward(x) = dropout1d(x, self.p, training=self.training, inplace=self.inplace)
}
model Dropout2d(p=0.5, inplace=false) {
  "Zeroes whole channels of [N, C, H, W] with probability p in training. Example: nn.Dropout2d(0.2)"
  p = p
  training = true
  inplace = inplace
  let _c = _check_p("Dropout2d", p)
  forward(x) = dropout2d(x, self.p, training=self.training, inplace=self.inplace)
}
model Dropout3d(p=0.5, inplace=false) {
  "Zeroes whole channels of [N, C, D, H, W] with probability p in training. Example: nn.Dropout3d(0.2)"
  p = p
  training = true
  inplace = inplace
  let _c = _check_p("Dropout3d", p)
  forward(x) = dropout3d(x, self.p, training=self.training, inplace=self.inplace)
}

# ---- alpha dropout ----------------------------------------------------------------------
# Note [Alpha dropout]: PyTorch's _dropout_impl with alpha=true. A dropped unit takes
# SELU's negative saturation -alpha (alpha = 1.7580993408473766 = SELU's scale * alpha),
# then an affine map a * x + b restores the mean and variance of a unit-Gaussian input:
# a = 1 / sqrt((alpha^2 p + 1) (1 - p)), b = alpha a p, so kept units become a x + alpha a p
# and dropped ones alpha a (p - 1). The mask is drawn as dropout1d's (rand >= p, one
# draw per element; per channel for the feature form). p = 1 gives zeros; eval, p = 0
# and an empty input give the input.
let _selu_alpha = 1.7580993408473766

fn _alpha_dropout(x, p, training, mask_shape, who) {
  _check_p(who, p)
  if not training or p == 0 or x.numel() == 0 { return x }
  if p == 1 { return x * zeros([], dtype=x.dtype, device=x.device) }
  let keep = (rand(mask_shape, device=x.device) >= p).to(x.dtype)
  let a = 1.0 / math.sqrt((_selu_alpha * _selu_alpha * p + 1) * (1 - p))
  return x * (keep * a) + ((keep - 1) * (_selu_alpha * a) + _selu_alpha * a * p)
}

# inplace=true: f(input) written into input, which is returned, as the activations'
# inplace= (interp/builtins/builtins_ops.cpp): f runs on a clone, whose backward keeps
# the old values.
fn _into(who, input, inplace, f) {
  if not inplace { return f(input) }
  if input.requires_grad and input.is_leaf and is_grad_enabled() {
    fail(f"{who}: inplace=true writes into argument 'input', a leaf tensor that requires grad, which cannot be modified in place (pass inplace=false, or call it under no_grad)")
  }
  return input.copy_(f(input.clone()))
}

fn alpha_dropout(input, p=0.5, training=false, inplace=false) {
  "Alpha dropout (keeps a SELU network's mean and variance) of each element with probability p, as torch.nn.functional.alpha_dropout. Example: nn.alpha_dropout(selu(x), 0.1, training=true)"
  _nn_init._tensor_arg("alpha_dropout()", "input", input)
  return _into("alpha_dropout()", input, inplace, fn(x) = _alpha_dropout(x, p, training, list(x.shape), "alpha_dropout()"))
}

# Whole channels (dims 0 and 1 of [N, C, *]) dropped together.
fn feature_alpha_dropout(input, p=0.5, training=false, inplace=false) {
  "Alpha dropout of whole channels of [N, C, *] with probability p, as torch.nn.functional.feature_alpha_dropout. Example: nn.feature_alpha_dropout(x, 0.1, training=true)"
  _nn_init._tensor_arg("feature_alpha_dropout()", "input", input)
  assert(input.ndim >= 2, f"feature_alpha_dropout(): feature dropout needs at least 2 dims [N, C, *], got shape {list(input.shape)}")
  let mask_shape = list(input.shape[:2]) + [1] * (input.ndim - 2)
  return _into("feature_alpha_dropout()", input, inplace, fn(x) = _alpha_dropout(x, p, training, mask_shape, "feature_alpha_dropout()"))
}

model AlphaDropout(p=0.5, inplace=false) {
  "Alpha dropout (for SELU networks: keeps zero mean and unit variance) with probability p in training; identity in eval. Example: nn.AlphaDropout(0.1)"
  p = p
  training = true
  inplace = inplace
  let _c = _check_p("AlphaDropout", p)
  forward(x) = alpha_dropout(x, self.p, training=self.training, inplace=self.inplace)
}
model FeatureAlphaDropout(p=0.5, inplace=false) {
  "Alpha dropout of whole channels of [N, C, *] with probability p in training; identity in eval. Example: nn.FeatureAlphaDropout(0.1)"
  p = p
  training = true
  inplace = inplace
  let _c = _check_p("FeatureAlphaDropout", p)
  forward(x) = feature_alpha_dropout(x, self.p, training=self.training, inplace=self.inplace)
}
