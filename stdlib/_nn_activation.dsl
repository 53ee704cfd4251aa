# _nn_activation: the activation layers, elementwise (and GLU, Softmax, Softmin and
# LogSoftmax along a dim, Softmax2d over the channels), with PyTorch's names, arguments and semantics
# (inplace=true writes the activation into the input, which is returned). Each calls
# its function: an op (relu, gelu, elu, ...) or a composite of ops (relu6, selu, glu,
# ...: interp/builtins/composites/composite_nn.cpp), so gradients of any order flow through it. nn
# re-exports them; import nn, not this module.
import _nn_init

model ReLU(inplace=false) {
  "max(x, 0), elementwise (inplace=true writes it into x). Example: nn.ReLU()(x)"
  inplace = inplace
  forward(x) = relu(x, inplace=self.inplace)
}
model GELU(approximate="none") {
  "The Gaussian error linear unit, elementwise (approximate=\"tanh\": PyTorch's tanh form). Example: nn.GELU()(x)"
  approximate = approximate
  let _c = assert(approximate == "none" or approximate == "tanh",
                  f"GELU: approximate must be \"none\" or \"tanh\", got \"{approximate}\"")
  forward(x) = gelu(x, approximate=self.approximate)
}
model SiLU(inplace=false) {
  "x * sigmoid(x), elementwise (swish). Example: nn.SiLU()(x)"
  inplace = inplace
  forward(x) = silu(x, inplace=self.inplace)
}
model Tanh() {
  "tanh(x), elementwise. Example: nn.Tanh()(x)"
  forward(x) = tanh(x)
}
model Sigmoid() {
  "1 / (1 + exp(-x)), elementwise. Example: nn.Sigmoid()(x)"
  forward(x) = sigmoid(x)
}
# Note [A softmax layer without dim]
# PyTorch's Softmax, LogSoftmax and Softmin default to dim=None, and then pick the dim
# from the input's rank (_get_softmax_dim: dim 0 of a 0-, 1- or 3-dim input, else dim 1;
# deprecated there, with a warning, but still what nn.Softmax() computes). These layers
# default to none too and pick the same dim: dim -1, the default they had, differs for
# 3- and 4-dim inputs ([N, C, H, W] takes the softmax over the channels). The
# functions (softmax(x)) keep their documented dim=-1.
fn _layer_softmax_dim(dim, x) = dim if dim != none else (0 if x.ndim in [0, 1, 3] else 1)

model Softmax(dim=none) {
  "exp(x) normalized to sum to 1 along dim (none: PyTorch's choice by the input's rank). Example: nn.Softmax(dim=1)(logits)"
  dim = dim
  forward(x) = softmax(x, dim=_layer_softmax_dim(self.dim, x))
}
# Softmax over the channels (dim -3) at every location of [N, C, H, W] or [C, H, W].
model Softmax2d() {
  "Softmax over the channels at every spatial location of [N, C, H, W] or [C, H, W]. Example: nn.Softmax2d()(randn([2, 3, 4, 4]))"
  forward(x) {
    assert(x.ndim == 3 or x.ndim == 4, f"Softmax2d: expected a 3-d or 4-d input [N, C, H, W], got shape {list(x.shape)}")
    return softmax(x, dim=-3)
  }
}
model LogSoftmax(dim=none) {
  "The log of softmax along dim (none: PyTorch's choice by the input's rank), computed stably. Example: nn.LogSoftmax(dim=1)(logits)"
  dim = dim
  forward(x) = log_softmax(x, dim=_layer_softmax_dim(self.dim, x))
}
model LeakyReLU(negative_slope=0.01, inplace=false) {
  "x where x > 0, else negative_slope * x. Example: nn.LeakyReLU(0.2)(x)"
  negative_slope = negative_slope
  inplace = inplace
  forward(x) = leaky_relu(x, negative_slope=self.negative_slope, inplace=self.inplace)
}
model ELU(alpha=1.0, inplace=false) {
  "x where x > 0, else alpha * (exp(x) - 1). Example: nn.ELU()(x)"
  alpha = alpha
  inplace = inplace
  forward(x) = elu(x, alpha=self.alpha, inplace=self.inplace)
}
model Softplus(beta=1.0, threshold=20.0) {
  "log(1 + exp(beta * x)) / beta (linear above threshold). Example: nn.Softplus()(x)"
  beta = beta
  threshold = threshold
  forward(x) = softplus(x, beta=self.beta, threshold=self.threshold)
}
model Hardswish(inplace=false) {
  "x * relu6(x + 3) / 6, elementwise. Example: nn.Hardswish()(x)"
  inplace = inplace
  forward(x) = hardswish(x, inplace=self.inplace)
}
model Mish(inplace=false) {
  "x * tanh(softplus(x)), elementwise. Example: nn.Mish()(x)"
  inplace = inplace
  forward(x) = mish(x, inplace=self.inplace)
}
model Hardtanh(min_val=-1.0, max_val=1.0, inplace=false) {
  "x clamped to [min_val, max_val]. Example: nn.Hardtanh(-2.0, 2.0)(x)"
  min_val = min_val
  max_val = max_val
  inplace = inplace
  forward(x) = hardtanh(x, min_val=self.min_val, max_val=self.max_val, inplace=self.inplace)
}
model ReLU6(inplace=false) {
  "x clamped to [0, 6]. Example: nn.ReLU6()(x)"
  inplace = inplace
  forward(x) = relu6(x, inplace=self.inplace)
}
model Hardsigmoid(inplace=false) {
  "relu6(x + 3) / 6, elementwise. Example: nn.Hardsigmoid()(x)"
  inplace = inplace
  forward(x) = hardsigmoid(x, inplace=self.inplace)
}
model SELU(inplace=false) {
  "scale * elu(x, alpha) with the self-normalizing constants. Example: nn.SELU()(x)"
  inplace = inplace
  forward(x) = selu(x, inplace=self.inplace)
}
model CELU(alpha=1.0, inplace=false) {
  "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise. Example: nn.CELU(0.5)(x)"
  alpha = alpha
  inplace = inplace
  let _c = assert(alpha != 0, "CELU: alpha must not be 0")
  forward(x) = celu(x, self.alpha, inplace=self.inplace)
}
# weight: one slope (num_parameters=1) or one per channel (dim 1 of the input).
model PReLU(num_parameters=1, init=0.25, device=none, dtype=none) {
  "x where x > 0, else a learned slope times x (one, or one per channel). Example: nn.PReLU()(x)"
  num_parameters = num_parameters
  weight = full([num_parameters], init).requires_grad_(true)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = prelu(x, self.weight)
}
model GLU(dim=-1) {
  "a * sigmoid(b), a and b the halves of the input along dim. Example: nn.GLU()(randn([2, 8]))"
  dim = dim
  forward(x) = glu(x, dim=self.dim)
}
model Softmin(dim=none) {
  "softmax(-x) along dim (none: PyTorch's choice by the input's rank). Example: nn.Softmin(dim=1)(x)"
  dim = dim
  forward(x) = softmin(x, dim=_layer_softmax_dim(self.dim, x))
}
model Softsign() {
  "x / (1 + |x|), elementwise. Example: nn.Softsign()(x)"
  forward(x) = softsign(x)
}
model Hardshrink(lambd=0.5) {
  "x where |x| > lambd, else 0. Example: nn.Hardshrink()(x)"
  lambd = lambd
  forward(x) = hardshrink(x, self.lambd)
}
model Softshrink(lambd=0.5) {
  "x - lambd above lambd, x + lambd below -lambd, else 0. Example: nn.Softshrink()(x)"
  lambd = lambd
  forward(x) = softshrink(x, self.lambd)
}
model Tanhshrink() {
  "x - tanh(x), elementwise. Example: nn.Tanhshrink()(x)"
  forward(x) = tanhshrink(x)
}
model LogSigmoid() {
  "log(sigmoid(x)), computed stably. Example: nn.LogSigmoid()(x)"
  forward(x) = logsigmoid(x)
}
# (The field `threshold` hides the function of that name inside the model's methods,
# where a bare name reads a field first.)
let _threshold = threshold
model Threshold(threshold, value, inplace=false) {
  "x where x > threshold, else value. Example: nn.Threshold(0.1, 20.0)(x)"
  threshold = threshold
  value = value
  inplace = inplace
  forward(x) = _threshold(x, self.threshold, self.value, inplace=self.inplace)
}
