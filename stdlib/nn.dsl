# nn: layers, losses, initializers and training utilities, with PyTorch's names and
# semantics. `import nn`, then `nn.Linear(784, 256)`, `nn.Sequential([...])`,
# `nn.kaiming_uniform_(w)`, `nn.clip_grad_norm_(m.parameters(), 1.0)`.
# Parameters are f32 tensors that require grad; layers that behave differently in
# training read `self.training` (set by m.train() / m.eval(), recursively).
import math

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

model LayerNorm(normalized_shape, eps=1e-5, elementwise_affine=true) {
  "Layer normalization over the last dims (normalized_shape), with a learned scale and shift. Example: nn.LayerNorm(512)"
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

# Zeroes each element with probability p and scales the rest by 1/(1-p) in training;
# the identity in eval.
model Dropout(p=0.5) {
  "Zeroes each element with probability p in training (the rest scaled by 1 / (1 - p)); identity in eval. Example: nn.Dropout(0.5)"
  p = p
  training = true
  forward(x) = dropout(x, p=self.p, training=self.training) if self.training and self.p > 0 else x
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

# Multi-head attention as PyTorch's nn.MultiheadAttention: its arguments, parameter
# layout (in_proj_weight [3E, E] holding the q, k, v projections stacked, in_proj_bias
# [3E], out_proj a Linear(E, E)) and init (xavier-uniform in_proj_weight, zero biases).
# A key of kdim features or a value of vdim features other than E takes separate
# projections instead, as PyTorch's: q_proj_weight [E, E], k_proj_weight [E, kdim] and
# v_proj_weight [E, vdim] (no in_proj_weight). After the projections add_bias_kv
# appends the learned key bias_k and value bias_v ([1, 1, E], xavier-normal), then
# add_zero_attn a zero key and value; every query may attend these (the masks get
# columns that allow them), so weights have S + 1 or S + 2 columns, as PyTorch's.
# Inputs are [L, B, E] ([B, L, E] with batch_first) or unbatched [L, E]; forward
# returns (output, weights): the weights [B, L, S] averaged over heads ([B, H, L, S]
# with average_attn_weights=false) when need_weights, else none. Masks as PyTorch's:
# a bool attn_mask [L, S] or [B * H, L, S] and key_padding_mask [B, S] are true where
# attention is NOT allowed; float masks are added to the scores. is_causal applies
# the causal mask (query i sees keys j <= i) on top of any other. Without
# need_weights the heads run through scaled_dot_product_attention, whose kernel
# never holds the whole score matrix; with it the weights are made explicitly.
model MultiheadAttention(embed_dim, num_heads, dropout=0.0, bias=true, add_bias_kv=false, add_zero_attn=false,
                         kdim=none, vdim=none, batch_first=false) {
  "Multi-head attention as PyTorch's; forward(query, key, value) returns (output, weights). Example: nn.MultiheadAttention(512, 8, batch_first=true)"
  embed_dim = embed_dim
  kdim = kdim if kdim != none else embed_dim
  vdim = vdim if vdim != none else embed_dim
  num_heads = num_heads
  dropout = dropout
  add_zero_attn = add_zero_attn
  batch_first = batch_first
  training = true
  head_dim = embed_dim // num_heads
  let _c = assert(embed_dim % num_heads == 0,
                  f"MultiheadAttention: embed_dim ({embed_dim}) must be divisible by num_heads ({num_heads})")
  let same = self.kdim == embed_dim and self.vdim == embed_dim
  in_proj_weight = xavier_uniform_(parameter([3 * embed_dim, embed_dim])) if same else none
  q_proj_weight = none if same else xavier_uniform_(parameter([embed_dim, embed_dim]))
  k_proj_weight = none if same else xavier_uniform_(parameter([embed_dim, self.kdim]))
  v_proj_weight = none if same else xavier_uniform_(parameter([embed_dim, self.vdim]))
  in_proj_bias = parameter([3 * embed_dim]) if bias else none
  bias_k = xavier_normal_(parameter([1, 1, embed_dim])) if add_bias_kv else none
  bias_v = xavier_normal_(parameter([1, 1, embed_dim])) if add_bias_kv else none
  out_proj = Linear(embed_dim, embed_dim, bias=bias)
  let _b = zeros_(self.out_proj.bias) if bias else none
  # The keys (and values) appended after the projected ones: bias_k and a zero key.
  extra_keys = (1 if add_bias_kv else 0) + (1 if add_zero_attn else 0)
  # x [B, T, features] projected for q (i = 0), k (1) or v (2): by rows [i*E, (i+1)*E)
  # of in_proj or by its own weight, keys and values followed by the extra ones;
  # split into heads [B, H, T', D].
  _project(x, i) {
    let e = self.embed_dim
    let b = self.in_proj_bias[i * e:(i + 1) * e] if self.in_proj_bias != none else none
    let w = [self.q_proj_weight, self.k_proj_weight, self.v_proj_weight][i]
    if self.in_proj_weight != none { w = self.in_proj_weight[i * e:(i + 1) * e] }
    let y = linear(x, w, b)
    let B = x.shape[0]
    if i > 0 and self.bias_k != none { y = cat([y, [self.bias_k, self.bias_v][i - 1].expand([B, 1, e])], dim=1) }
    if i > 0 and self.add_zero_attn { y = cat([y, zeros([B, 1, e], dtype=y.dtype)], dim=1) }
    return y.reshape([B, y.shape[1], self.num_heads, self.head_dim]).transpose(1, 2)
  }
  forward(query, key, value, key_padding_mask=none, need_weights=true, attn_mask=none,
          average_attn_weights=true, is_causal=false) {
    _check_features(query, "query", "embed_dim", self.embed_dim)
    _check_features(key, "key", "kdim", self.kdim)
    _check_features(value, "value", "vdim", self.vdim)
    let unbatched = query.dim() == 2
    let q_in = _batch_major(query, unbatched, self.batch_first)
    let k_in = _batch_major(key, unbatched, self.batch_first)
    let v_in = _batch_major(value, unbatched, self.batch_first)
    let shape = _shape(q_in)
    let B = shape[0]
    let L = shape[1]
    let S = _shape(k_in)[1]
    let kpm = key_padding_mask.unsqueeze(0) if unbatched and key_padding_mask != none else key_padding_mask
    let mask = _attention_mask(attn_mask, kpm, is_causal, B, self.num_heads, L, S)
    if mask != none and self.extra_keys > 0 { mask = _allow_extra_keys(mask, self.extra_keys) }
    let q = self._project(q_in, 0)
    let k = self._project(k_in, 1)
    let v = self._project(v_in, 2)
    let p = self.dropout if self.training else 0.0
    let weights = none
    let o = none
    if need_weights {
      let scores = q @ k.transpose(2, 3) * (1.0 / math.sqrt(self.head_dim))
      if mask != none {
        scores = where(mask, scores, float("-inf")) if str(mask.dtype) == "bool" else scores + mask
      }
      weights = softmax(scores, dim=-1)
      if p > 0.0 { weights = dropout(weights, p=p) }
      o = weights @ v
      weights = weights.mean(dim=1) if average_attn_weights else weights
      if unbatched { weights = weights[0] }
    } else {
      o = scaled_dot_product_attention(q, k, v, attn_mask=mask, dropout_p=p)
    }
    let out = self.out_proj(o.transpose(1, 2).reshape([B, L, self.embed_dim]))
    return (_batch_restore(out, unbatched, self.batch_first), weights)
  }
}

fn _check_features(x, name, arg, n) {
  assert(x.shape[x.dim() - 1] == n,
         f"MultiheadAttention: {name} of shape {list(x.shape)} must have {arg} = {n} features in its last dim")
}

# [B, T, E] from an attention input: [T, B, E] unless batch_first, [T, E] unbatched.
fn _batch_major(x, unbatched, batch_first) {
  if unbatched { return x.unsqueeze(0) }
  return x if batch_first else x.transpose(0, 1)
}
fn _batch_restore(x, unbatched, batch_first) {
  if unbatched { return x[0] }
  return x if batch_first else x.transpose(0, 1)
}

# One mask for scaled_dot_product_attention's convention (bool: true attends; float:
# added), broadcasting to [B, H, L, S], from PyTorch MultiheadAttention's masks (bool:
# true is masked out) and a causal flag; none when there is none.
fn _attention_mask(attn_mask, key_padding_mask, is_causal, B, H, L, S) {
  let masks = []
  if attn_mask != none {
    let m = attn_mask
    if m.dim() == 3 {
      assert(list(m.shape) == [B * H, L, S],
             f"MultiheadAttention: a 3-D attn_mask must have shape [batch * heads, L, S] = [{B * H}, {L}, {S}], got {list(m.shape)}")
      m = m.reshape([B, H, L, S])
    } else {
      assert(m.dim() == 2 and list(m.shape) == [L, S],
             f"MultiheadAttention: a 2-D attn_mask must have shape [L, S] = [{L}, {S}], got {list(m.shape)}")
    }
    masks.append(_allowed(m))
  }
  if key_padding_mask != none {
    assert(list(key_padding_mask.shape) == [B, S],
           f"MultiheadAttention: key_padding_mask must have shape [batch, S] = [{B}, {S}], got {list(key_padding_mask.shape)}")
    masks.append(_allowed(key_padding_mask.reshape([B, 1, 1, S])))
  }
  if is_causal { masks.append(arange(S).reshape([1, S]) <= arange(L).reshape([L, 1])) }
  if len(masks) == 0 { return none }
  let out = masks[0]
  for m in masks[1:] { out = _merge_masks(out, m) }
  return out
}
# mask with n more key columns that every query may attend (bias_k, the zero key).
fn _allow_extra_keys(mask, n) = pad(mask, [0, n], value=1.0 if str(mask.dtype) == "bool" else 0.0)
# PyTorch's "true is masked out" as "true attends"; a float mask stays additive.
fn _allowed(m) = m == false if str(m.dtype) == "bool" else m
fn _additive(m) = where(m, 0.0, float("-inf")) if str(m.dtype) == "bool" else m
fn _merge_masks(a, b) {
  if str(a.dtype) == "bool" and str(b.dtype) == "bool" { return where(a, b, a) }
  return _additive(a) + _additive(b)
}

# The layers of nn.Transformer, as PyTorch's TransformerEncoderLayer and
# TransformerDecoderLayer: arguments, sublayer names (self_attn, multihead_attn,
# linear1, linear2, norm1..3, dropout1..3) and so state_dict keys; norm_first puts
# each LayerNorm before its sublayer; activation is "relu", "gelu" or a function.
fn _activation(a) {
  if a == "relu" { return relu }
  if a == "gelu" { return gelu }
  assert(type(a) != "str", f"Transformer layers: activation must be \"relu\", \"gelu\" or a function, got \"{a}\"")
  return a
}

model TransformerEncoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                              layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true) {
  "Self-attention then a feed-forward block, each with residual and layer norm. Example: nn.TransformerEncoderLayer(512, 8, batch_first=true)"
  self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
  linear1 = Linear(d_model, dim_feedforward, bias=bias)
  dropout = Dropout(dropout)
  linear2 = Linear(dim_feedforward, d_model, bias=bias)
  norm_first = norm_first
  norm1 = LayerNorm(d_model, eps=layer_norm_eps)
  norm2 = LayerNorm(d_model, eps=layer_norm_eps)
  dropout1 = Dropout(dropout)
  dropout2 = Dropout(dropout)
  activation = _activation(activation)
  _sa(x, mask, kpm, causal) {
    let r = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=false, is_causal=causal)
    return self.dropout1(r[0])
  }
  _ff(x) = self.dropout2(self.linear2(self.dropout(self.activation(self.linear1(x)))))
  forward(src, src_mask=none, src_key_padding_mask=none, is_causal=false) {
    let x = src
    if self.norm_first {
      x = x + self._sa(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
      return x + self._ff(self.norm2(x))
    }
    x = self.norm1(x + self._sa(x, src_mask, src_key_padding_mask, is_causal))
    return self.norm2(x + self._ff(x))
  }
}

model TransformerDecoderLayer(d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                              layer_norm_eps=1e-5, batch_first=false, norm_first=false, bias=true) {
  "Self-attention, attention over the encoder's memory, then a feed-forward block. Example: nn.TransformerDecoderLayer(512, 8)"
  self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
  multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias, batch_first=batch_first)
  linear1 = Linear(d_model, dim_feedforward, bias=bias)
  dropout = Dropout(dropout)
  linear2 = Linear(dim_feedforward, d_model, bias=bias)
  norm_first = norm_first
  norm1 = LayerNorm(d_model, eps=layer_norm_eps)
  norm2 = LayerNorm(d_model, eps=layer_norm_eps)
  norm3 = LayerNorm(d_model, eps=layer_norm_eps)
  dropout1 = Dropout(dropout)
  dropout2 = Dropout(dropout)
  dropout3 = Dropout(dropout)
  activation = _activation(activation)
  _sa(x, mask, kpm, causal) {
    let r = self.self_attn(x, x, x, attn_mask=mask, key_padding_mask=kpm, need_weights=false, is_causal=causal)
    return self.dropout1(r[0])
  }
  _mha(x, mem, mask, kpm, causal) {
    let r = self.multihead_attn(x, mem, mem, attn_mask=mask, key_padding_mask=kpm, need_weights=false,
                                is_causal=causal)
    return self.dropout2(r[0])
  }
  _ff(x) = self.dropout3(self.linear2(self.dropout(self.activation(self.linear1(x)))))
  forward(tgt, memory, tgt_mask=none, memory_mask=none, tgt_key_padding_mask=none, memory_key_padding_mask=none,
          tgt_is_causal=false, memory_is_causal=false) {
    let x = tgt
    if self.norm_first {
      x = x + self._sa(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
      x = x + self._mha(self.norm2(x), memory, memory_mask, memory_key_padding_mask, memory_is_causal)
      return x + self._ff(self.norm3(x))
    }
    x = self.norm1(x + self._sa(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
    x = self.norm2(x + self._mha(x, memory, memory_mask, memory_key_padding_mask, memory_is_causal))
    return self.norm3(x + self._ff(x))
  }
}

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
