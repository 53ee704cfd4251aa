# _nn_basic: nn.Linear, nn.LayerNorm and nn.Dropout (and its channel-wise Dropout1d,
# Dropout2d, Dropout3d), which other layer files build on
# (stdlib/_nn_attention.dsl), and PyTorch's default init of Linear and the
# convolutions. nn re-exports them; import nn, not this module.
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
    let bound = 1.0 / math.sqrt(calculate_fan_in_and_fan_out(w)[0])
    uniform_(b, -bound, bound)
  }
}

model Linear(in_features, out_features, bias=true) {
  "Applies y = x W^T + b over the last dim (weight [out_features, in_features]). Example: nn.Linear(784, 256)(randn([32, 784]))"
  in_features = in_features
  out_features = out_features
  weight = parameter([out_features, in_features])
  bias = parameter([out_features]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  forward(x) = linear(x, self.weight, self.bias)
}

model LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=true) {
  "Layer normalization over the last dims (normalized_shape), with a learned scale and shift. Example: nn.LayerNorm(512)"
  normalized_shape = [normalized_shape] if type(normalized_shape) == "int" else list(normalized_shape)
  eps = eps
  weight = ones(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  bias = zeros(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  forward(x) = layer_norm(x, self.normalized_shape, weight=self.weight, bias=self.bias, eps=self.eps)
}

# Zeroes each element with probability p and scales the rest by 1/(1-p) in training;
# the identity in eval.
model Dropout(p=0.5) {
  "Zeroes each element with probability p in training (the rest scaled by 1 / (1 - p)); identity in eval. Example: nn.Dropout(0.5)"
  p = p
  training = true
  forward(x) = dropout(x, p=self.p, training=self.training) if self.training and self.p > 0 else x
}

# Channel-wise dropout, as PyTorch's Dropout1d/2d/3d (the functions dropout1d, ...):
# each channel of each example zeroed whole with probability p in training; the
# identity in eval.
fn _check_p(name, p) = assert(p >= 0 and p <= 1, f"{name}: p must be in [0, 1], got {p}")

model Dropout1d(p=0.5) {
  "Zeroes whole channels of [N, C, L] with probability p in training. Example: nn.Dropout1d(0.2)"
  p = p
  training = true
  let _c = _check_p("Dropout1d", p)
  forward(x) = dropout1d(x, self.p, training=self.training)
}
model Dropout2d(p=0.5) {
  "Zeroes whole channels of [N, C, H, W] with probability p in training. Example: nn.Dropout2d(0.2)"
  p = p
  training = true
  let _c = _check_p("Dropout2d", p)
  forward(x) = dropout2d(x, self.p, training=self.training)
}
model Dropout3d(p=0.5) {
  "Zeroes whole channels of [N, C, D, H, W] with probability p in training. Example: nn.Dropout3d(0.2)"
  p = p
  training = true
  let _c = _check_p("Dropout3d", p)
  forward(x) = dropout3d(x, self.p, training=self.training)
}
