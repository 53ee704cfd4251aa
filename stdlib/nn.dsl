# nn: layers, losses, initializers and training utilities, with PyTorch's names and
# semantics. `import nn`, then `nn.Linear(784, 256)`, `nn.Sequential([...])`,
# `nn.kaiming_uniform_(w)`, `nn.clip_grad_norm_(m.parameters(), 1.0)`.
# Parameters are f32 tensors that require grad; layers that behave differently in
# training read `self.training` (set by m.train() / m.eval(), recursively).
import math

# ---- helpers ----------------------------------------------------------------------

fn _pair(v) = [v, v] if type(v) == "int" else list(v)

fn _shape(t) = list(t.shape)

fn _prod(xs) {
  let n = 1
  for x in xs { n = n * x }
  return n
}

# A new parameter: an f32 tensor of `shape` that requires grad (zeros until an
# initializer fills it).
fn parameter(shape) = zeros(shape, requires_grad=true)

# ---- initializers (in place, under no_grad; each returns its tensor) -----------------

# (fan_in, fan_out) of a weight: dim 1 and dim 0 times the receptive field.
fn calculate_fan_in_and_fan_out(t) {
  let s = _shape(t)
  if len(s) < 2 { assert(false, "fan in and fan out need a tensor with at least 2 dims") }
  let receptive = _prod(s[2:])
  return (s[1] * receptive, s[0] * receptive)
}

fn calculate_gain(nonlinearity, param=none) {
  if nonlinearity == "linear" or nonlinearity == "sigmoid" or nonlinearity == "conv2d" { return 1.0 }
  if nonlinearity == "tanh" { return 5.0 / 3.0 }
  if nonlinearity == "relu" { return math.sqrt(2.0) }
  if nonlinearity == "leaky_relu" {
    let slope = 0.01 if param == none else param
    return math.sqrt(2.0 / (1.0 + slope * slope))
  }
  if nonlinearity == "selu" { return 0.75 }
  assert(false, f"unsupported nonlinearity {nonlinearity}")
}

fn _fan(t, mode) {
  let f = calculate_fan_in_and_fan_out(t)
  return f[0] if mode == "fan_in" else f[1]
}

fn uniform_(t, a=0.0, b=1.0) {
  no_grad { t.copy_(rand(_shape(t), dtype=t.dtype) * (b - a) + a) }
  return t
}

fn normal_(t, mean=0.0, std=1.0) {
  no_grad { t.copy_(randn(_shape(t), dtype=t.dtype) * std + mean) }
  return t
}

fn constant_(t, val) {
  no_grad { t.fill_(val) }
  return t
}

fn zeros_(t) = constant_(t, 0.0)
fn ones_(t) = constant_(t, 1.0)

fn kaiming_uniform_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu") {
  let std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode))
  let bound = math.sqrt(3.0) * std
  return uniform_(t, -bound, bound)
}

fn kaiming_normal_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu") {
  return normal_(t, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode)))
}

fn xavier_uniform_(t, gain=1.0) {
  let f = calculate_fan_in_and_fan_out(t)
  let bound = gain * math.sqrt(6.0 / (f[0] + f[1]))
  return uniform_(t, -bound, bound)
}

fn xavier_normal_(t, gain=1.0) {
  let f = calculate_fan_in_and_fan_out(t)
  return normal_(t, 0.0, gain * math.sqrt(2.0 / (f[0] + f[1])))
}

# ---- layers -------------------------------------------------------------------------

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
  in_features = in_features
  out_features = out_features
  weight = parameter([out_features, in_features])
  bias = parameter([out_features]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  forward(x) = linear(x, self.weight, self.bias)
}

model Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true) {
  in_channels = in_channels
  out_channels = out_channels
  kernel_size = _pair(kernel_size)
  stride = _pair(stride)
  padding = _pair(padding)
  dilation = _pair(dilation)
  groups = groups
  let _c = assert(in_channels % groups == 0 and out_channels % groups == 0,
                  "Conv2d: in_channels and out_channels must be divisible by groups")
  weight = parameter([out_channels, in_channels // groups] + _pair(kernel_size))
  bias = parameter([out_channels]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  forward(x) = conv2d(x, self.weight, self.bias, stride=self.stride, padding=self.padding,
                      dilation=self.dilation, groups=self.groups)
}

# Batch normalization over dim 1 ([N, C] or [N, C, L] for 1d, [N, C, H, W] for 2d).
# Training normalizes with the batch's statistics and moves running_mean/running_var
# (unbiased variance) by `momentum`; eval normalizes with the running statistics.
# track_running_stats=false always uses the batch's statistics and leaves the buffers
# (which exist anyway, unlike PyTorch's None) untouched.
fn _batch_norm(m, x) {
  if not m.track_running_stats {
    return batch_norm(x, none, none, weight=m.weight, bias=m.bias, training=true, eps=m.eps)
  }
  if m.training {
    no_grad { m.num_batches_tracked.add_(1) }
  }
  return batch_norm(x, m.running_mean, m.running_var, weight=m.weight, bias=m.bias,
                    training=m.training, momentum=m.momentum, eps=m.eps)
}

model BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true) {
  num_features = num_features
  eps = eps
  momentum = momentum
  track_running_stats = track_running_stats
  training = true
  weight = ones([num_features], requires_grad=true) if affine else none
  bias = zeros([num_features], requires_grad=true) if affine else none
  buffer running_mean = zeros([num_features])
  buffer running_var = ones([num_features])
  buffer num_batches_tracked = tensor(0)
  forward(x) {
    assert(x.ndim == 2 or x.ndim == 3, f"BatchNorm1d: expected a 2-d or 3-d input, got shape {x.shape}")
    return _batch_norm(self, x)
  }
}

model BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true) {
  num_features = num_features
  eps = eps
  momentum = momentum
  track_running_stats = track_running_stats
  training = true
  weight = ones([num_features], requires_grad=true) if affine else none
  bias = zeros([num_features], requires_grad=true) if affine else none
  buffer running_mean = zeros([num_features])
  buffer running_var = ones([num_features])
  buffer num_batches_tracked = tensor(0)
  forward(x) {
    assert(x.ndim == 4, f"BatchNorm2d: expected a 4-d input [N, C, H, W], got shape {x.shape}")
    return _batch_norm(self, x)
  }
}

model LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=true) {
  normalized_shape = [normalized_shape] if type(normalized_shape) == "int" else list(normalized_shape)
  eps = eps
  weight = ones(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  bias = zeros(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  forward(x) = layer_norm(x, self.normalized_shape, weight=self.weight, bias=self.bias, eps=self.eps)
}

# Normalizes each group of num_channels / num_groups channels over the group and the
# spatial dims, then scales and shifts per channel (weight [C] ones, bias [C] zeros).
fn _check_groups(num_groups, num_channels) {
  assert(num_groups > 0 and num_channels % num_groups == 0,
         f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
  return num_groups
}

model GroupNorm(num_groups, num_channels, eps=1e-5, affine=true) {
  num_groups = _check_groups(num_groups, num_channels)
  num_channels = num_channels
  eps = eps
  affine = affine
  weight = ones([num_channels], requires_grad=true) if affine else none
  bias = zeros([num_channels], requires_grad=true) if affine else none
  forward(x) = group_norm(x, self.num_groups, weight=self.weight, bias=self.bias, eps=self.eps)
}

# Normalizes each channel of each sample over its H x W values (batch statistics only:
# track_running_stats=true is not supported). A 3-D input [C, H, W] is one sample.
fn _no_running_stats(track) {
  assert(not track, "InstanceNorm2d: track_running_stats=true is not supported")
  return track
}

model InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false) {
  num_features = num_features
  eps = eps
  momentum = momentum
  track_running_stats = _no_running_stats(track_running_stats)
  weight = ones([num_features], requires_grad=true) if affine else none
  bias = zeros([num_features], requires_grad=true) if affine else none
  forward(x) {
    assert(x.ndim == 3 or x.ndim == 4, f"InstanceNorm2d: expected a 3-d or 4-d input, got shape {x.shape}")
    if x.ndim == 3 {
      return instance_norm(x.unsqueeze(0), weight=self.weight, bias=self.bias, eps=self.eps).squeeze(0)
    }
    return instance_norm(x, weight=self.weight, bias=self.bias, eps=self.eps)
  }
}

# x / sqrt(mean(x^2) + eps) over the last dims, times weight (ones); eps none is the
# dtype's machine epsilon, as PyTorch's.
model RMSNorm(normalized_shape, eps=none, elementwise_affine=true) {
  normalized_shape = [normalized_shape] if type(normalized_shape) == "int" else list(normalized_shape)
  eps = eps
  weight = ones(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  forward(x) = rms_norm(x, self.normalized_shape, weight=self.weight, eps=self.eps)
}

# Resizes the spatial dims (interpolate): give size or scale_factor.
model Upsample(size=none, scale_factor=none, mode="nearest", align_corners=none) {
  size = size
  scale_factor = scale_factor
  mode = mode
  align_corners = align_corners
  forward(x) = interpolate(x, size=self.size, scale_factor=self.scale_factor, mode=self.mode,
                           align_corners=self.align_corners)
}

# 2-d padding layers: padding is an int (every side) or [left, right, top, bottom].
fn _pad4(p) = [p, p, p, p] if type(p) == "int" else list(p)

model ZeroPad2d(padding) {
  padding = _pad4(padding)
  forward(x) = pad(x, self.padding)
}

model ConstantPad2d(padding, value) {
  padding = _pad4(padding)
  value = value
  forward(x) = pad(x, self.padding, value=self.value)
}

model ReflectionPad2d(padding) {
  padding = _pad4(padding)
  forward(x) = pad(x, self.padding, mode="reflect")
}

model ReplicationPad2d(padding) {
  padding = _pad4(padding)
  forward(x) = pad(x, self.padding, mode="replicate")
}

# Zeroes each element with probability p and scales the rest by 1/(1-p) in training;
# the identity in eval.
model Dropout(p=0.5) {
  p = p
  training = true
  forward(x) = dropout(x, p=self.p, training=self.training) if self.training and self.p > 0 else x
}

model Embedding(num_embeddings, embedding_dim) {
  num_embeddings = num_embeddings
  embedding_dim = embedding_dim
  weight = normal_(parameter([num_embeddings, embedding_dim]))
  forward(indices) = embedding(self.weight, indices)
}

# Multi-head attention with PyTorch's parameter layout (in_proj_weight [3E, E] holding
# the q, k, v projections stacked, in_proj_bias [3E], out_proj a Linear(E, E)) and
# init (xavier-uniform in_proj_weight, zero biases). Inputs are batch_first
# [batch, seq, E]; forward returns the output [batch, L, E] only (PyTorch's
# need_weights=False): the heads run through scaled_dot_product_attention, whose
# kernel never holds the whole score matrix. is_causal lets position i attend to
# keys j <= i.
model MultiheadAttention(embed_dim, num_heads, bias=true) {
  embed_dim = embed_dim
  num_heads = num_heads
  head_dim = embed_dim // num_heads
  let _c = assert(embed_dim % num_heads == 0, "MultiheadAttention: embed_dim must be divisible by num_heads")
  in_proj_weight = xavier_uniform_(parameter([3 * embed_dim, embed_dim]))
  in_proj_bias = parameter([3 * embed_dim]) if bias else none
  out_proj = Linear(embed_dim, embed_dim, bias=bias)
  let _b = zeros_(self.out_proj.bias) if bias else none
  # x [B, T, E] projected by rows [i*E, (i+1)*E) of in_proj, split into heads [B, H, T, D].
  _project(x, i) {
    let e = self.embed_dim
    let b = self.in_proj_bias[i * e:(i + 1) * e] if self.in_proj_bias != none else none
    let y = linear(x, self.in_proj_weight[i * e:(i + 1) * e], b)
    let s = _shape(x)
    return y.reshape([s[0], s[1], self.num_heads, self.head_dim]).transpose(1, 2)
  }
  forward(query, key, value, is_causal=false) {
    let q = self._project(query, 0)
    let k = self._project(key, 1)
    let v = self._project(value, 2)
    let o = scaled_dot_product_attention(q, k, v, is_causal=is_causal)
    let s = _shape(query)
    return self.out_proj(o.transpose(1, 2).reshape([s[0], s[1], self.embed_dim]))
  }
}

model MaxPool2d(kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false) {
  kernel_size = _pair(kernel_size)
  stride = _pair(kernel_size) if stride == none else _pair(stride)
  padding = _pair(padding)
  dilation = _pair(dilation)
  ceil_mode = ceil_mode
  forward(x) = max_pool2d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          dilation=self.dilation, ceil_mode=self.ceil_mode)
}

model AvgPool2d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true) {
  kernel_size = _pair(kernel_size)
  stride = _pair(kernel_size) if stride == none else _pair(stride)
  padding = _pair(padding)
  ceil_mode = ceil_mode
  count_include_pad = count_include_pad
  forward(x) = avg_pool2d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad)
}

# Flattens dims start_dim..end_dim into one.
model Flatten(start_dim=1, end_dim=-1) {
  start_dim = start_dim
  end_dim = end_dim
  forward(x) {
    let s = _shape(x)
    let n = len(s)
    let a = self.start_dim if self.start_dim >= 0 else self.start_dim + n
    let b = self.end_dim if self.end_dim >= 0 else self.end_dim + n
    return x.reshape(s[:a] + [_prod(s[a:b + 1])] + s[b + 1:])
  }
}

model Identity() {
  forward(x) = x
}

# Sequential([layer, ...]): calls its layers in order. Its fields are the layers,
# named "0", "1", ... as in PyTorch (so state_dict keys read "0.weight"); m[i] is
# layer i (negative i and slices work), len(m) their number. A layer given twice
# runs twice (children(remove_duplicate=false): every field, shared ones too).
model Sequential(layers) {
  let _ = _add_all(self, layers)
  forward(x) {
    for l in self.children(remove_duplicate=false) { x = l(x) }
    return x
  }
  __getitem__(i) {
    let ls = self.children(remove_duplicate=false)
    return Sequential(ls[i]) if type(i) != "int" else ls[i]
  }
  __len__() = len(self.children(remove_duplicate=false))
  append(layer) {
    setattr(self, str(len(self.children(remove_duplicate=false))), layer)
    return self
  }
}

fn _add_all(m, layers) {
  let k = 0
  for l in layers {
    setattr(m, str(k), l)
    k = k + 1
  }
}

# ---- activations --------------------------------------------------------------------

model ReLU() {
  forward(x) = relu(x)
}
model GELU() {
  forward(x) = gelu(x)
}
model SiLU() {
  forward(x) = silu(x)
}
model Tanh() {
  forward(x) = tanh(x)
}
model Sigmoid() {
  forward(x) = sigmoid(x)
}
model Softmax(dim=-1) {
  dim = dim
  forward(x) = softmax(x, dim=self.dim)
}
model LogSoftmax(dim=-1) {
  dim = dim
  forward(x) = log_softmax(x, dim=self.dim)
}

# ---- losses (reduction: "mean", "sum" or "none") --------------------------------------

model CrossEntropyLoss(reduction="mean", label_smoothing=0.0, ignore_index=-100) {
  reduction = reduction
  label_smoothing = label_smoothing
  ignore_index = ignore_index
  forward(input, target) = cross_entropy(input, target, reduction=self.reduction,
                                         label_smoothing=self.label_smoothing, ignore_index=self.ignore_index)
}
model NLLLoss(reduction="mean", ignore_index=-100) {
  reduction = reduction
  ignore_index = ignore_index
  forward(input, target) = nll_loss(input, target, reduction=self.reduction, ignore_index=self.ignore_index)
}
model MSELoss(reduction="mean") {
  reduction = reduction
  forward(input, target) = mse_loss(input, target, reduction=self.reduction)
}
model BCELoss(reduction="mean") {
  reduction = reduction
  forward(input, target) = binary_cross_entropy(input, target, reduction=self.reduction)
}
model BCEWithLogitsLoss(reduction="mean") {
  reduction = reduction
  forward(input, target) = binary_cross_entropy_with_logits(input, target, reduction=self.reduction)
}

# The Kullback-Leibler divergence KL(target || input) as PyTorch's F.kl_div: `input`
# holds log-probabilities, `target` probabilities (log-probabilities with
# log_target=true); pointwise target * (log(target) - input), 0 where target is 0.
# reduction "batchmean" (the sum over the batch's first dimension divided by its
# size: the true KL per item) is the one that matches the math; "mean" (PyTorch's
# default) divides by every element.
fn kl_div(input, target, reduction="mean", log_target=false) {
  let pointwise = none
  if log_target {
    pointwise = exp(target) * (target - input)
  } else {
    let positive = target > 0
    pointwise = where(positive, target * (log(where(positive, target, 1.0)) - input), 0.0)
  }
  if reduction == "none" { return pointwise }
  if reduction == "sum" { return pointwise.sum() }
  if reduction == "mean" { return pointwise.mean() }
  if reduction == "batchmean" { return pointwise.sum() / input.shape[0] }
  assert(false, f"kl_div: reduction must be \"none\", \"sum\", \"mean\" or \"batchmean\", got {repr(reduction)}")
}
model KLDivLoss(reduction="mean", log_target=false) {
  reduction = reduction
  log_target = log_target
  forward(input, target) = kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
}

# ---- utilities ----------------------------------------------------------------------

fn _params_of(parameters) {
  if type(parameters) == "list" or type(parameters) == "tuple" { return parameters }
  if type(parameters) == "tensor" { return [parameters] }
  return parameters.parameters()
}

# Scales every gradient in place (well: replaces p.grad) so that their total norm is
# at most max_norm; returns the total norm before clipping, as a 0-dim tensor.
fn clip_grad_norm_(parameters, max_norm, norm_type=2.0) {
  let grads = []
  for p in _params_of(parameters) {
    if p.grad != none { grads.append(p.grad) }
  }
  if len(grads) == 0 { return tensor(0.0) }
  let total = tensor(0.0)
  no_grad {
    if norm_type == math.inf or norm_type == "inf" {
      for g in grads { total = maximum(total, g.abs().max().to(f32)) }
    } else {
      for g in grads { total = total + (g.abs() ** norm_type).sum().to(f32) }
      total = total ** (1.0 / norm_type)
    }
    let coef = max_norm / (total.item() + 1e-6)
    if coef < 1.0 {
      for p in _params_of(parameters) {
        if p.grad != none { p.grad = p.grad * coef }
      }
    }
  }
  return total
}

# Clamps every gradient to [-value, value].
fn clip_grad_value_(parameters, clip_value) {
  no_grad {
    for p in _params_of(parameters) {
      if p.grad != none { p.grad = clamp(p.grad, min=-clip_value, max=clip_value) }
    }
  }
}

# The number of trainable parameter elements of a model (or a list of tensors).
fn count_parameters(m) {
  let n = 0
  for p in _params_of(m) {
    if p.requires_grad { n = n + p.numel() }
  }
  return n
}

# ---- activation checkpointing ----------------------------------------------------------

# checkpoint(f, args...): f(args...) without keeping f's intermediate activations;
# backward runs f again to rebuild them (PyTorch's reentrant torch.utils.checkpoint).
# Trades compute for memory. f may return a tensor or a tuple of tensors; arguments
# that are not tensors pass through. As in PyTorch's reentrant variant, at least one
# tensor argument must require grad (the recorded node hangs off it); parameters that
# f uses get their gradients during the recomputation.
function _Checkpoint {
  forward(ctx, f, *args) {
    ctx.save(f, *args)
    return f(*args)
  }
  backward(ctx, *grads) {
    let f = ctx.saved[0]
    let inputs = []
    for x in ctx.saved[1:] {
      inputs.append(x.detach().requires_grad_(x.requires_grad) if isinstance(x, "tensor") else x)
    }
    enable_grad {
      let out = f(*inputs)
      backward(out, list(grads))
    }
    let input_grads = [none]
    for x in inputs {
      input_grads.append(x.grad if isinstance(x, "tensor") else none)
    }
    return tuple(input_grads)
  }
}
fn checkpoint(f, *args) {
  let any_requires_grad = false
  for x in args {
    any_requires_grad = any_requires_grad or (isinstance(x, "tensor") and x.requires_grad)
  }
  if not any_requires_grad and is_grad_enabled() {
    assert(false, "checkpoint(): no tensor argument requires grad, so backward would not reach f's parameters (pass the input with requires_grad_(true))")
  }
  return _Checkpoint(f, *args)
}
