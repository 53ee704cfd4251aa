# _nn_activation: the activation layers, elementwise (and GLU, Softmax, Softmin and
# LogSoftmax along a dim), with PyTorch's names, arguments and semantics. Each is its
# op (relu, gelu, elu, ...) or a few table ops, so gradients of any order flow through
# it. nn re-exports them; import nn, not this module.

model ReLU() {
  "max(x, 0), elementwise. Example: nn.ReLU()(x)"
  forward(x) = relu(x)
}
model GELU(approximate="none") {
  "The Gaussian error linear unit, elementwise (approximate=\"tanh\": PyTorch's tanh form). Example: nn.GELU()(x)"
  approximate = approximate
  let _c = assert(approximate == "none" or approximate == "tanh",
                  f"GELU: approximate must be \"none\" or \"tanh\", got \"{approximate}\"")
  forward(x) = gelu(x, approximate=self.approximate)
}
model SiLU() {
  "x * sigmoid(x), elementwise (swish). Example: nn.SiLU()(x)"
  forward(x) = silu(x)
}
model Tanh() {
  "tanh(x), elementwise. Example: nn.Tanh()(x)"
  forward(x) = tanh(x)
}
model Sigmoid() {
  "1 / (1 + exp(-x)), elementwise. Example: nn.Sigmoid()(x)"
  forward(x) = sigmoid(x)
}
model Softmax(dim=-1) {
  "exp(x) normalized to sum to 1 along dim. Example: nn.Softmax(dim=1)(logits)"
  dim = dim
  forward(x) = softmax(x, dim=self.dim)
}
model LogSoftmax(dim=-1) {
  "The log of softmax along dim, computed stably. Example: nn.LogSoftmax(dim=1)(logits)"
  dim = dim
  forward(x) = log_softmax(x, dim=self.dim)
}
model LeakyReLU(negative_slope=0.01) {
  "x where x > 0, else negative_slope * x. Example: nn.LeakyReLU(0.2)(x)"
  negative_slope = negative_slope
  forward(x) = leaky_relu(x, negative_slope=self.negative_slope)
}
model ELU(alpha=1.0) {
  "x where x > 0, else alpha * (exp(x) - 1). Example: nn.ELU()(x)"
  alpha = alpha
  forward(x) = elu(x, alpha=self.alpha)
}
model Softplus(beta=1.0, threshold=20.0) {
  "log(1 + exp(beta * x)) / beta (linear above threshold). Example: nn.Softplus()(x)"
  beta = beta
  threshold = threshold
  forward(x) = softplus(x, beta=self.beta, threshold=self.threshold)
}
model Hardswish() {
  "x * relu6(x + 3) / 6, elementwise. Example: nn.Hardswish()(x)"
  forward(x) = hardswish(x)
}
model Mish() {
  "x * tanh(softplus(x)), elementwise. Example: nn.Mish()(x)"
  forward(x) = mish(x)
}
model Hardtanh(min_val=-1.0, max_val=1.0) {
  "x clamped to [min_val, max_val]. Example: nn.Hardtanh(-2.0, 2.0)(x)"
  min_val = min_val
  max_val = max_val
  forward(x) = hardtanh(x, min_val=self.min_val, max_val=self.max_val)
}
model ReLU6() {
  "x clamped to [0, 6]. Example: nn.ReLU6()(x)"
  forward(x) = hardtanh(x, min_val=0.0, max_val=6.0)
}
# relu6(x + 3) / 6: 0 below -3, 1 above 3; the gradient is 1/6 strictly inside, as PyTorch's.
model Hardsigmoid() {
  "relu6(x + 3) / 6, elementwise. Example: nn.Hardsigmoid()(x)"
  forward(x) = (hardtanh(x, min_val=-3.0, max_val=3.0) + 3.0) / 6.0
}
model SELU() {
  "scale * elu(x, alpha) with the self-normalizing constants. Example: nn.SELU()(x)"
  forward(x) = 1.0507009873554804934193349852946 * elu(x, alpha=1.6732632423543772848170429916717)
}
model CELU(alpha=1.0) {
  "max(0, x) + min(0, alpha * (exp(x / alpha) - 1)), elementwise. Example: nn.CELU(0.5)(x)"
  alpha = alpha
  let _c = assert(alpha != 0, "CELU: alpha must not be 0")
  forward(x) = self.alpha * elu(x / self.alpha)
}
# weight: one slope (num_parameters=1) or one per channel (dim 1 of the input).
model PReLU(num_parameters=1, init=0.25) {
  "x where x > 0, else a learned slope times x (one, or one per channel). Example: nn.PReLU()(x)"
  num_parameters = num_parameters
  weight = full([num_parameters], init).requires_grad_(true)
  forward(x) {
    let w = self.weight
    if self.num_parameters > 1 {
      assert(x.ndim >= 2 and x.shape[1] == self.num_parameters,
             f"PReLU: {self.num_parameters} slopes need {self.num_parameters} channels in dim 1, got shape {list(x.shape)}")
      w = w.reshape([self.num_parameters] + [1] * (x.ndim - 2))
    }
    return where(x > 0, x, w * x)
  }
}
model GLU(dim=-1) {
  "a * sigmoid(b), a and b the halves of the input along dim. Example: nn.GLU()(randn([2, 8]))"
  dim = dim
  forward(x) {
    let n = x.shape[self.dim]
    assert(n % 2 == 0, f"GLU: dim {self.dim} must have an even size, got shape {list(x.shape)}")
    let (a, b) = split(x, n // 2, dim=self.dim)
    return a * sigmoid(b)
  }
}
model Softmin(dim=-1) {
  "softmax(-x) along dim. Example: nn.Softmin(dim=1)(x)"
  dim = dim
  forward(x) = softmax(-x, dim=self.dim)
}
model Softsign() {
  "x / (1 + |x|), elementwise. Example: nn.Softsign()(x)"
  forward(x) = x / (1.0 + abs(x))
}
model Hardshrink(lambd=0.5) {
  "x where |x| > lambd, else 0. Example: nn.Hardshrink()(x)"
  lambd = lambd
  forward(x) = where(abs(x) > self.lambd, x, 0.0)
}
model Softshrink(lambd=0.5) {
  "x - lambd above lambd, x + lambd below -lambd, else 0. Example: nn.Softshrink()(x)"
  lambd = lambd
  forward(x) = where(x > self.lambd, x - self.lambd, where(x < -self.lambd, x + self.lambd, 0.0))
}
model Tanhshrink() {
  "x - tanh(x), elementwise. Example: nn.Tanhshrink()(x)"
  forward(x) = x - tanh(x)
}
model LogSigmoid() {
  "log(sigmoid(x)), computed stably as -softplus(-x). Example: nn.LogSigmoid()(x)"
  forward(x) = -softplus(-x)
}
model Threshold(threshold, value) {
  "x where x > threshold, else value. Example: nn.Threshold(0.1, 20.0)(x)"
  threshold = threshold
  value = value
  forward(x) = where(x > self.threshold, x, self.value)
}
