# nn: layers, losses, initializers and training utilities, with PyTorch's names and
# semantics. `import nn`, then `nn.Linear(784, 256)`, `nn.Sequential([...])`,
# `nn.kaiming_uniform_(w)`, `nn.clip_grad_norm_(m.parameters(), 1.0)`.
# Parameters are f32 tensors that require grad; layers that behave differently in
# training read `self.training` (set by m.train() / m.eval(), recursively).
import math

import _nn_attention
import _nn_basic
import _nn_init
import _nn_recurrent

# ---- helpers and initializers (stdlib/_nn_init.dsl) -------------------------------------
# nn.parameter and the nn.init functions live in _nn_init, which the layer files share.
let _pair = _nn_init._pair
let _shape = _nn_init._shape
let _prod = _nn_init._prod
let _fan = _nn_init._fan
let parameter = _nn_init.parameter
let calculate_fan_in_and_fan_out = _nn_init.calculate_fan_in_and_fan_out
let calculate_gain = _nn_init.calculate_gain
let uniform_ = _nn_init.uniform_
let normal_ = _nn_init.normal_
let constant_ = _nn_init.constant_
let zeros_ = _nn_init.zeros_
let ones_ = _nn_init.ones_
let kaiming_uniform_ = _nn_init.kaiming_uniform_
let kaiming_normal_ = _nn_init.kaiming_normal_
let xavier_uniform_ = _nn_init.xavier_uniform_
let xavier_normal_ = _nn_init.xavier_normal_

# ---- layers -------------------------------------------------------------------------
# Linear, LayerNorm and Dropout live in stdlib/_nn_basic.dsl (the attention layers build
# on them); PyTorch's default init of Linear and the convolutions with them.
let _default_init = _nn_basic._default_init
let Linear = _nn_basic.Linear
let LayerNorm = _nn_basic.LayerNorm
let Dropout = _nn_basic.Dropout

model Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true) {
  "2-D convolution over [N, C, H, W] (weight [out_channels, in_channels / groups, kH, kW]). Example: nn.Conv2d(3, 16, 3, padding=1)"
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

# ---- 1-D, 3-D and transposed convolutions (PyTorch's init: kaiming-uniform a=sqrt(5) on the
# weight, whose dim 1 times the kernel is the fan-in; the bias in the same bound) ------

fn _single(v) = [v] if type(v) == "int" else list(v)

# Over [N, C, L]: weight [out_channels, in_channels / groups, kernel_size].
model Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true) {
  "1-D convolution over [N, C, L]. Example: nn.Conv1d(8, 16, 5, padding=2)"
  in_channels = in_channels
  out_channels = out_channels
  kernel_size = _single(kernel_size)
  stride = _single(stride)
  padding = _single(padding)
  dilation = _single(dilation)
  groups = groups
  let _c = assert(in_channels % groups == 0 and out_channels % groups == 0,
                  "Conv1d: in_channels and out_channels must be divisible by groups")
  weight = parameter([out_channels, in_channels // groups] + _single(kernel_size))
  bias = parameter([out_channels]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  forward(x) = conv1d(x, self.weight, self.bias, stride=self.stride, padding=self.padding,
                      dilation=self.dilation, groups=self.groups)
}

fn _triple(v) = [v, v, v] if type(v) == "int" else list(v)

# Over [N, C, D, H, W]: weight [out_channels, in_channels / groups, kD, kH, kW].
model Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true) {
  "3-D convolution over [N, C, D, H, W]. Example: nn.Conv3d(1, 4, 3)"
  in_channels = in_channels
  out_channels = out_channels
  kernel_size = _triple(kernel_size)
  stride = _triple(stride)
  padding = _triple(padding)
  dilation = _triple(dilation)
  groups = groups
  let _c = assert(in_channels % groups == 0 and out_channels % groups == 0,
                  "Conv3d: in_channels and out_channels must be divisible by groups")
  weight = parameter([out_channels, in_channels // groups] + _triple(kernel_size))
  bias = parameter([out_channels]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  _conv(x) = conv3d(x, self.weight, self.bias, stride=self.stride, padding=self.padding,
                    dilation=self.dilation, groups=self.groups)
  # As PyTorch, an unbatched [C, D, H, W] input is a batch of one.
  forward(x) = self._conv(x.unsqueeze(0)).squeeze(0) if x.ndim == 4 else self._conv(x)
}

# The adjoint of Conv1d in its input: weight [in_channels, out_channels / groups,
# kernel_size]; the output is (L - 1) * stride - 2 * padding + dilation * (kernel_size - 1)
# + output_padding + 1 long.
model ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                      bias=true, dilation=1) {
  "1-D transposed convolution (the gradient of Conv1d) over [N, C, L]. Example: nn.ConvTranspose1d(16, 8, 4, stride=2)"
  in_channels = in_channels
  out_channels = out_channels
  kernel_size = _single(kernel_size)
  stride = _single(stride)
  padding = _single(padding)
  output_padding = _single(output_padding)
  dilation = _single(dilation)
  groups = groups
  let _c = assert(in_channels % groups == 0 and out_channels % groups == 0,
                  "ConvTranspose1d: in_channels and out_channels must be divisible by groups")
  weight = parameter([in_channels, out_channels // groups] + _single(kernel_size))
  bias = parameter([out_channels]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  forward(x) = conv_transpose1d(x, self.weight, self.bias, stride=self.stride, padding=self.padding,
                                output_padding=self.output_padding, groups=self.groups, dilation=self.dilation)
}

# The adjoint of Conv2d in its input: weight [in_channels, out_channels / groups, kH, kW].
model ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                      bias=true, dilation=1) {
  "2-D transposed convolution (the gradient of Conv2d) over [N, C, H, W]. Example: nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)"
  in_channels = in_channels
  out_channels = out_channels
  kernel_size = _pair(kernel_size)
  stride = _pair(stride)
  padding = _pair(padding)
  output_padding = _pair(output_padding)
  dilation = _pair(dilation)
  groups = groups
  let _c = assert(in_channels % groups == 0 and out_channels % groups == 0,
                  "ConvTranspose2d: in_channels and out_channels must be divisible by groups")
  weight = parameter([in_channels, out_channels // groups] + _pair(kernel_size))
  bias = parameter([out_channels]) if bias else none
  let _ = _default_init(self.weight, self.bias)
  forward(x) = conv_transpose2d(x, self.weight, self.bias, stride=self.stride, padding=self.padding,
                                output_padding=self.output_padding, groups=self.groups, dilation=self.dilation)
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
  "Batch normalization over [N, C] or [N, C, L], with running statistics for eval. Example: nn.BatchNorm1d(256)"
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
  "Batch normalization over [N, C, H, W] per channel, with running statistics for eval. Example: nn.BatchNorm2d(16)"
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

# Normalizes each group of num_channels / num_groups channels over the group and the
# spatial dims, then scales and shifts per channel (weight [C] ones, bias [C] zeros).
fn _check_groups(num_groups, num_channels) {
  assert(num_groups > 0 and num_channels % num_groups == 0,
         f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
  return num_groups
}

model GroupNorm(num_groups, num_channels, eps=1e-5, affine=true) {
  "Group normalization: channels split into num_groups groups, each normalized. Example: nn.GroupNorm(4, 32)"
  num_groups = _check_groups(num_groups, num_channels)
  num_channels = num_channels
  eps = eps
  affine = affine
  weight = ones([num_channels], requires_grad=true) if affine else none
  bias = zeros([num_channels], requires_grad=true) if affine else none
  forward(x) = group_norm(x, self.num_groups, weight=self.weight, bias=self.bias, eps=self.eps)
}

# InstanceNorm1d, InstanceNorm2d and InstanceNorm3d as PyTorch's: each channel of each
# sample normalizes over its spatial values ([N, C, L], [N, C, H, W], [N, C, D, H, W];
# without the batch dim, one sample). affine adds weight (ones) and bias (zeros);
# track_running_stats keeps running_mean and running_var, moved by momentum in
# training (toward the batch's average of the per-sample mean and unbiased variance)
# and used in eval, and num_batches_tracked, which PyTorch's InstanceNorm keeps at 0
# (so this does too). State_dict keys are PyTorch's: only those that exist.
fn _instance_norm_fields(m, num_features, eps, momentum, affine, track_running_stats) {
  m.num_features = num_features
  m.eps = eps
  m.momentum = momentum
  m.affine = affine
  m.track_running_stats = track_running_stats
  m.training = true
  m.weight = ones([num_features], requires_grad=true) if affine else none
  m.bias = zeros([num_features], requires_grad=true) if affine else none
  m.running_mean = none
  m.running_var = none
  if track_running_stats {
    m.register_buffer("running_mean", zeros([num_features]))
    m.register_buffer("running_var", ones([num_features]))
    m.register_buffer("num_batches_tracked", tensor(0))
  }
  return m
}

fn _instance_norm(m, x, name, spatial) {
  assert(x.ndim == spatial + 1 or x.ndim == spatial + 2,
         f"{name}: expected a {spatial + 1}-d or {spatial + 2}-d input, got shape {list(x.shape)}")
  if x.ndim == spatial + 1 { return _instance_norm(m, x.unsqueeze(0), name, spatial).squeeze(0) }
  return instance_norm(x, m.running_mean, m.running_var, weight=m.weight, bias=m.bias,
                       use_input_stats=m.training or not m.track_running_stats, momentum=m.momentum, eps=m.eps)
}

model InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false) {
  "Instance normalization over [N, C, L]: each channel of each example normalized. Example: nn.InstanceNorm1d(8)"
  let _f = _instance_norm_fields(self, num_features, eps, momentum, affine, track_running_stats)
  forward(x) = _instance_norm(self, x, "InstanceNorm1d", 1)
}

model InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false) {
  "Instance normalization over [N, C, H, W]: each channel of each example normalized. Example: nn.InstanceNorm2d(8)"
  let _f = _instance_norm_fields(self, num_features, eps, momentum, affine, track_running_stats)
  forward(x) = _instance_norm(self, x, "InstanceNorm2d", 2)
}

model InstanceNorm3d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false) {
  "Instance normalization over [N, C, D, H, W]. Example: nn.InstanceNorm3d(8)"
  let _f = _instance_norm_fields(self, num_features, eps, momentum, affine, track_running_stats)
  forward(x) = _instance_norm(self, x, "InstanceNorm3d", 3)
}

# x / sqrt(mean(x^2) + eps) over the last dims, times weight (ones); eps none is the
# dtype's machine epsilon, as PyTorch's.
model RMSNorm(normalized_shape, eps=none, elementwise_affine=true) {
  "Root-mean-square normalization over the last dims, with a learned scale. Example: nn.RMSNorm(512)"
  normalized_shape = [normalized_shape] if type(normalized_shape) == "int" else list(normalized_shape)
  eps = eps
  weight = ones(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  forward(x) = rms_norm(x, self.normalized_shape, weight=self.weight, eps=self.eps)
}

# Resizes the spatial dims (interpolate): give size or scale_factor.
model Upsample(size=none, scale_factor=none, mode="nearest", align_corners=none) {
  "Upsamples [N, C, H, W] to size or by scale_factor (nearest, bilinear, ...). Example: nn.Upsample(scale_factor=2)"
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
  "Pads the last two dims with zeros. Example: nn.ZeroPad2d(1)"
  padding = _pad4(padding)
  forward(x) = pad(x, self.padding)
}

model ConstantPad2d(padding, value) {
  "Pads the last two dims with value. Example: nn.ConstantPad2d(1, 0.5)"
  padding = _pad4(padding)
  value = value
  forward(x) = pad(x, self.padding, value=self.value)
}

model ReflectionPad2d(padding) {
  "Pads the last two dims with their reflection. Example: nn.ReflectionPad2d(2)"
  padding = _pad4(padding)
  forward(x) = pad(x, self.padding, mode="reflect")
}

model ReplicationPad2d(padding) {
  "Pads the last two dims by repeating the edge values. Example: nn.ReplicationPad2d(2)"
  padding = _pad4(padding)
  forward(x) = pad(x, self.padding, mode="replicate")
}

model Embedding(num_embeddings, embedding_dim) {
  "A lookup table of num_embeddings vectors of embedding_dim; called with i64 indices. Example: nn.Embedding(10000, 128)(tensor([1, 5], dtype=i64))"
  num_embeddings = num_embeddings
  embedding_dim = embedding_dim
  weight = normal_(parameter([num_embeddings, embedding_dim]))
  forward(indices) = embedding(self.weight, indices)
}

# ---- recurrent layers (stdlib/_nn_recurrent.dsl) ----------------------------------------
let RNN = _nn_recurrent.RNN
let LSTM = _nn_recurrent.LSTM
let GRU = _nn_recurrent.GRU
let RNNCell = _nn_recurrent.RNNCell
let LSTMCell = _nn_recurrent.LSTMCell
let GRUCell = _nn_recurrent.GRUCell

# ---- attention and transformer layers (stdlib/_nn_attention.dsl) ------------------------
let MultiheadAttention = _nn_attention.MultiheadAttention
let TransformerEncoderLayer = _nn_attention.TransformerEncoderLayer
let TransformerDecoderLayer = _nn_attention.TransformerDecoderLayer

model MaxPool2d(kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false) {
  "2-D max pooling over [N, C, H, W] (stride defaults to kernel_size). Example: nn.MaxPool2d(2)"
  kernel_size = _pair(kernel_size)
  stride = _pair(kernel_size) if stride == none else _pair(stride)
  padding = _pair(padding)
  dilation = _pair(dilation)
  ceil_mode = ceil_mode
  forward(x) = max_pool2d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          dilation=self.dilation, ceil_mode=self.ceil_mode)
}

model AvgPool2d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true) {
  "2-D average pooling over [N, C, H, W] (stride defaults to kernel_size). Example: nn.AvgPool2d(2)"
  kernel_size = _pair(kernel_size)
  stride = _pair(kernel_size) if stride == none else _pair(stride)
  padding = _pair(padding)
  ceil_mode = ceil_mode
  count_include_pad = count_include_pad
  forward(x) = avg_pool2d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad)
}

# ---- 1-D and adaptive pooling ------------------------------------------------------------

model MaxPool1d(kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false) {
  "1-D max pooling over [N, C, L]. Example: nn.MaxPool1d(2)"
  kernel_size = _single(kernel_size)
  stride = _single(kernel_size) if stride == none else _single(stride)
  padding = _single(padding)
  dilation = _single(dilation)
  ceil_mode = ceil_mode
  forward(x) = max_pool1d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          dilation=self.dilation, ceil_mode=self.ceil_mode)
}

model AvgPool1d(kernel_size, stride=none, padding=0, ceil_mode=false, count_include_pad=true) {
  "1-D average pooling over [N, C, L]. Example: nn.AvgPool1d(2)"
  kernel_size = _single(kernel_size)
  stride = _single(kernel_size) if stride == none else _single(stride)
  padding = _single(padding)
  ceil_mode = ceil_mode
  count_include_pad = count_include_pad
  forward(x) = avg_pool1d(x, kernel_size=self.kernel_size, stride=self.stride, padding=self.padding,
                          ceil_mode=self.ceil_mode, count_include_pad=self.count_include_pad)
}

# Adaptive pools: output_size windows tile each pooled dim (cell i covers
# [floor(i * in / out), ceil((i + 1) * in / out))), whatever the input's size.
model AdaptiveAvgPool1d(output_size) {
  "Average pooling of [N, C, L] to output_size positions. Example: nn.AdaptiveAvgPool1d(1)"
  output_size = _single(output_size)
  forward(x) = adaptive_avg_pool1d(x, self.output_size)
}

model AdaptiveAvgPool2d(output_size) {
  "Average pooling of [N, C, H, W] to an output_size grid. Example: nn.AdaptiveAvgPool2d([1, 1])"
  output_size = _pair(output_size)
  forward(x) = adaptive_avg_pool2d(x, self.output_size)
}

# return_indices=true: forward returns (values, indices), indices flat over each H*W plane.
model AdaptiveMaxPool2d(output_size, return_indices=false) {
  "Max pooling of [N, C, H, W] to an output_size grid. Example: nn.AdaptiveMaxPool2d(1)"
  output_size = _pair(output_size)
  return_indices = return_indices
  forward(x) = adaptive_max_pool2d(x, self.output_size, return_indices=self.return_indices)
}

# Flattens dims start_dim..end_dim into one.
model Flatten(start_dim=1, end_dim=-1) {
  "Flattens dims start_dim..end_dim into one. Example: nn.Flatten()(zeros([2, 3, 4])).shape"
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
  "Returns its input unchanged (a placeholder layer). Example: nn.Identity()(x)"
  forward(x) = x
}

# Sequential([layer, ...]): calls its layers in order. Its fields are the layers,
# named "0", "1", ... as in PyTorch (so state_dict keys read "0.weight"); m[i] is
# layer i (negative i and slices work), len(m) their number. A layer given twice
# runs twice (children(remove_duplicate=false): every field, shared ones too).
model Sequential(layers) {
  "Calls its layers in order; fields named 0, 1, ... as in PyTorch. Example: nn.Sequential([nn.Linear(4, 8), nn.ReLU(), nn.Linear(8, 2)])"
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
    setattr(self, str(len(self.children(remove_duplicate=false))), _checked_layer("nn.Sequential.append()", "layer", layer))
    return self
  }
}

fn _add_all(m, layers) {
  if not (type(layers) in ["list", "tuple"]) {
    let hint = " (a single layer: wrap it, nn.Sequential([layer]))" if _is_module(layers) else ""
    fail(f"nn.Sequential(): layers must be a list of layers, got {type(layers)}{hint}")
  }
  let k = 0
  for l in layers {
    setattr(m, str(k), _checked_layer("nn.Sequential()", f"layers[{k}]", l))
    k = k + 1
  }
}

# Whether x is a model instance (a layer or a whole model). A tensor answers every
# attribute name with a method, so it is ruled out first.
fn _is_module(x) = type(x) != "tensor" and getattr(x, "named_children", none) != none

# l, checked to be a layer, a model instance: Sequential calls its children, and a
# function is no child. A model class, the usual slip, gets its own message.
fn _checked_layer(who, what, l) {
  if type(l) == "model" { fail(f"{who}: {what} is the model class {l.name}, not a layer (construct it: {l.name}(...))") }
  if not _is_module(l) {
    let hint = " (a function is not a layer: use its layer, nn.ReLU() for relu, or a model of your own)" if type(l) in ["function", "builtin", "method"] else ""
    fail(f"{who}: {what} must be a layer (a model instance), got {type(l)}{hint}")
  }
  return l
}

# ---- activations --------------------------------------------------------------------

model ReLU() {
  "max(x, 0), elementwise. Example: nn.ReLU()(x)"
  forward(x) = relu(x)
}
model GELU() {
  "The Gaussian error linear unit, elementwise. Example: nn.GELU()(x)"
  forward(x) = gelu(x)
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

# ---- losses (reduction: "mean", "sum" or "none") --------------------------------------

model CrossEntropyLoss(reduction="mean", label_smoothing=0.0, ignore_index=-100) {
  "Cross entropy of logits [N, C] against class indices [N] (or probabilities). Example: nn.CrossEntropyLoss()(logits, y)"
  reduction = reduction
  label_smoothing = label_smoothing
  ignore_index = ignore_index
  forward(input, target) = cross_entropy(input, target, reduction=self.reduction,
                                         label_smoothing=self.label_smoothing, ignore_index=self.ignore_index)
}
model NLLLoss(reduction="mean", ignore_index=-100) {
  "Negative log likelihood of log-probabilities [N, C] against class indices [N]. Example: nn.NLLLoss()(log_softmax(logits, 1), y)"
  reduction = reduction
  ignore_index = ignore_index
  forward(input, target) = nll_loss(input, target, reduction=self.reduction, ignore_index=self.ignore_index)
}
model MSELoss(reduction="mean") {
  "The mean (or sum) of squared differences. Example: nn.MSELoss()(pred, target)"
  reduction = reduction
  forward(input, target) = mse_loss(input, target, reduction=self.reduction)
}
model BCELoss(reduction="mean") {
  "Binary cross entropy of probabilities in [0, 1] against targets. Example: nn.BCELoss()(sigmoid(z), y)"
  reduction = reduction
  forward(input, target) = binary_cross_entropy(input, target, reduction=self.reduction)
}
model BCEWithLogitsLoss(reduction="mean") {
  "Binary cross entropy of logits (a sigmoid applied stably) against targets. Example: nn.BCEWithLogitsLoss()(z, y)"
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
  "The Kullback-Leibler divergence of target from input (log-probabilities), as PyTorch's. Example: nn.kl_div(log_softmax(z, 1), p, reduction='batchmean')"
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
  "The Kullback-Leibler divergence loss (input log-probabilities), as PyTorch's. Example: nn.KLDivLoss(reduction='batchmean')(log_q, p)"
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
  "Scales the gradients of parameters so that their total norm is at most max_norm; returns the norm before. Example: nn.clip_grad_norm_(m.parameters(), 1.0)"
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
  "Clamps every gradient of parameters to [-clip_value, clip_value]. Example: nn.clip_grad_value_(m.parameters(), 0.5)"
  no_grad {
    for p in _params_of(parameters) {
      if p.grad != none { p.grad = clamp(p.grad, min=-clip_value, max=clip_value) }
    }
  }
}

# The number of trainable parameter elements of a model (or a list of tensors).
fn count_parameters(m) {
  "The number of parameter elements of a model (shared tensors once). Example: nn.count_parameters(nn.Linear(3, 4))"
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
  "Runs f(*args) without keeping its activations; backward runs f again to rebuild them. Example: nn.checkpoint(block, x)"
  # Inside compile() f runs as it is: the recomputation writes .grad through a nested
  # backward(), which a graph cannot replay, and the graph's memory plan decides what
  # stays alive (the values and gradients are the same either way).
  if is_compiling() { return f(*args) }
  let any_requires_grad = false
  for x in args {
    any_requires_grad = any_requires_grad or (isinstance(x, "tensor") and x.requires_grad)
  }
  if not any_requires_grad and is_grad_enabled() {
    assert(false, "checkpoint(): no tensor argument requires grad, so backward would not reach f's parameters (pass the input with requires_grad_(true))")
  }
  return _Checkpoint(f, *args)
}
