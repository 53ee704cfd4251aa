# nn: layers, losses, initializers and training utilities, with PyTorch's names and
# semantics. `import nn`, then `nn.Linear(784, 256)`, `nn.Sequential([...])`,
# `nn.kaiming_uniform_(w)`, `nn.clip_grad_norm_(m.parameters(), 1.0)`.
# Parameters are f32 tensors that require grad (another dtype or device with the
# factory arguments dtype= and device= every layer with tensors takes: Note [Factory
# arguments] in stdlib/_nn_init.dsl); layers that behave differently in training read
# `self.training` (set by m.train() / m.eval(), recursively).
import math

import _nn_activation
import _nn_attention
import _nn_basic
import _nn_containers
import _nn_conv
import _nn_extra
import _nn_functional_namespace
import _nn_init
import _nn_pool
import _nn_fractional
import _nn_recurrent
import _nn_shape
import _nn_sparse
import _nn_adaptive
import _nn_utils

# ---- helpers and initializers (stdlib/_nn_init.dsl) -------------------------------------
# nn.parameter and the nn.init functions live in _nn_init, which the layer files share.
let _shape = _nn_init._shape
let _prod = _nn_init._prod
let _fan = _nn_init._fan
let parameter = _nn_init.parameter
let Parameter = _nn_init.Parameter
# nn.functional.relu, nn.functional.cross_entropy, ...: the global functions, under
# PyTorch's path.
let functional = _nn_functional_namespace
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
# Linear, Bilinear, LayerNorm and the dropouts live in stdlib/_nn_basic.dsl (the attention
# layers build on them); PyTorch's default init of Linear and the convolutions with them.
let _default_init = _nn_basic._default_init
let Linear = _nn_basic.Linear
let LayerNorm = _nn_basic.LayerNorm
let Dropout = _nn_basic.Dropout
let Dropout1d = _nn_basic.Dropout1d
let Dropout2d = _nn_basic.Dropout2d
let Dropout3d = _nn_basic.Dropout3d
let AlphaDropout = _nn_basic.AlphaDropout
let FeatureAlphaDropout = _nn_basic.FeatureAlphaDropout
let alpha_dropout = _nn_basic.alpha_dropout
let feature_alpha_dropout = _nn_basic.feature_alpha_dropout
let Bilinear = _nn_basic.Bilinear
let bilinear = _nn_basic.bilinear

# ---- convolutions (stdlib/_nn_conv.dsl) ----------------------------------------------
let Conv1d = _nn_conv.Conv1d
let Conv2d = _nn_conv.Conv2d
let Conv3d = _nn_conv.Conv3d
let ConvTranspose1d = _nn_conv.ConvTranspose1d
let ConvTranspose2d = _nn_conv.ConvTranspose2d
let ConvTranspose3d = _nn_conv.ConvTranspose3d

# Batch normalization over dim 1 ([N, C] or [N, C, L] for 1d, [N, C, H, W] for 2d).
# Training normalizes with the batch's statistics and moves running_mean/running_var
# (unbiased variance) by `momentum`, or by 1 / num_batches_tracked (the cumulative
# average) when momentum is none; eval normalizes with the running statistics.
# track_running_stats=false always uses the batch's statistics and has no running
# statistics (none, outside the state_dict, as PyTorch's).
fn _batch_norm_fields(m, name, num_features, eps, momentum, affine, track_running_stats) {
  m.num_features = _nn_init._size_arg(name, "num_features", num_features)
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

fn _batch_norm(m, x) {
  if not m.track_running_stats {
    return batch_norm(x, none, none, weight=m.weight, bias=m.bias, training=true, eps=m.eps)
  }
  let factor = 0.0 if m.momentum == none else m.momentum
  if m.training {
    no_grad { m.num_batches_tracked.add_(1) }
    if m.momentum == none { return _nn_extra._cumulative_batch_norm(m, x) }
  }
  return batch_norm(x, m.running_mean, m.running_var, weight=m.weight, bias=m.bias,
                    training=m.training, momentum=factor, eps=m.eps)
}

model BatchNorm1d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none,
                 dtype=none) {
  "Batch normalization over [N, C] or [N, C, L], with running statistics for eval. Example: nn.BatchNorm1d(256)"
  let _f = _batch_norm_fields(self, "BatchNorm1d", num_features, eps, momentum, affine, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _nn_extra._reset_running_stats(self)
  reset_parameters() = _nn_extra._reset_norm_parameters(self)
  forward(x) {
    assert(x.ndim == 2 or x.ndim == 3, f"BatchNorm1d: expected a 2-d or 3-d input, got shape {x.shape}")
    return _batch_norm(self, x)
  }
}

model BatchNorm2d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none,
                 dtype=none) {
  "Batch normalization over [N, C, H, W] per channel, with running statistics for eval. Example: nn.BatchNorm2d(16)"
  let _f = _batch_norm_fields(self, "BatchNorm2d", num_features, eps, momentum, affine, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _nn_extra._reset_running_stats(self)
  reset_parameters() = _nn_extra._reset_norm_parameters(self)
  forward(x) {
    assert(x.ndim == 4, f"BatchNorm2d: expected a 4-d input [N, C, H, W], got shape {x.shape}")
    return _batch_norm(self, x)
  }
}

model BatchNorm3d(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, device=none,
                 dtype=none) {
  "Batch normalization over [N, C, D, H, W] per channel, with running statistics for eval. Example: nn.BatchNorm3d(16)"
  let _f = _batch_norm_fields(self, "BatchNorm3d", num_features, eps, momentum, affine, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _nn_extra._reset_running_stats(self)
  reset_parameters() = _nn_extra._reset_norm_parameters(self)
  forward(x) {
    assert(x.ndim == 5, f"BatchNorm3d: expected a 5-d input [N, C, D, H, W], got shape {x.shape}")
    return _batch_norm(self, x)
  }
}

# Normalizes each group of num_channels / num_groups channels over the group and the
# spatial dims, then scales and shifts per channel (weight [C] ones, bias [C] zeros).
fn _check_groups(num_groups, num_channels) {
  assert(type(num_groups) == "int" and num_groups > 0, f"GroupNorm: num_groups must be an int > 0, got {repr(num_groups)}")
  assert(num_channels % num_groups == 0,
         f"GroupNorm: num_channels ({num_channels}) must be divisible by num_groups ({num_groups})")
  return num_groups
}

model GroupNorm(num_groups, num_channels, eps=1e-5, affine=true, device=none, dtype=none) {
  "Group normalization: channels split into num_groups groups, each normalized. Example: nn.GroupNorm(4, 32)"
  num_channels = _nn_init._size_arg("GroupNorm", "num_channels", num_channels)
  num_groups = _check_groups(num_groups, num_channels)
  eps = eps
  affine = affine
  weight = ones([num_channels], requires_grad=true) if affine else none
  bias = zeros([num_channels], requires_grad=true) if affine else none
  let _fk = _nn_init._factory(self, device, dtype)
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
  m.num_features = _nn_init._size_arg(type(m), "num_features", num_features)
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

model InstanceNorm1d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false,
                    device=none, dtype=none) {
  "Instance normalization over [N, C, L]: each channel of each example normalized. Example: nn.InstanceNorm1d(8)"
  let _f = _instance_norm_fields(self, num_features, eps, momentum, affine, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _nn_extra._reset_running_stats(self)
  reset_parameters() = _nn_extra._reset_norm_parameters(self)
  forward(x) = _instance_norm(self, x, "InstanceNorm1d", 1)
}

model InstanceNorm2d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false,
                    device=none, dtype=none) {
  "Instance normalization over [N, C, H, W]: each channel of each example normalized. Example: nn.InstanceNorm2d(8)"
  let _f = _instance_norm_fields(self, num_features, eps, momentum, affine, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _nn_extra._reset_running_stats(self)
  reset_parameters() = _nn_extra._reset_norm_parameters(self)
  forward(x) = _instance_norm(self, x, "InstanceNorm2d", 2)
}

model InstanceNorm3d(num_features, eps=1e-5, momentum=0.1, affine=false, track_running_stats=false,
                    device=none, dtype=none) {
  "Instance normalization over [N, C, D, H, W]. Example: nn.InstanceNorm3d(8)"
  let _f = _instance_norm_fields(self, num_features, eps, momentum, affine, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _nn_extra._reset_running_stats(self)
  reset_parameters() = _nn_extra._reset_norm_parameters(self)
  forward(x) = _instance_norm(self, x, "InstanceNorm3d", 3)
}

# x / sqrt(mean(x^2) + eps) over the last dims, times weight (ones); eps none is the
# dtype's machine epsilon, as PyTorch's.
model RMSNorm(normalized_shape, eps=none, elementwise_affine=true, device=none, dtype=none) {
  "Root-mean-square normalization over the last dims, with a learned scale. Example: nn.RMSNorm(512)"
  normalized_shape = _nn_init._shape_arg("RMSNorm", "normalized_shape", normalized_shape)
  eps = eps
  weight = ones(self.normalized_shape, requires_grad=true) if elementwise_affine else none
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = rms_norm(x, self.normalized_shape, weight=self.weight, eps=self.eps)
}

# ---- lookup tables (stdlib/_nn_sparse.dsl) -------------------------------------------
let Embedding = _nn_sparse.Embedding
let EmbeddingBag = _nn_sparse.EmbeddingBag
let embedding_bag = _nn_sparse.embedding_bag
let embedding_renorm_ = _nn_sparse.embedding_renorm_
# the adaptive softmax (stdlib/_nn_adaptive.dsl, round 8b)
let AdaptiveLogSoftmaxWithLoss = _nn_adaptive.AdaptiveLogSoftmaxWithLoss

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
let TransformerEncoder = _nn_attention.TransformerEncoder
let TransformerDecoder = _nn_attention.TransformerDecoder
let Transformer = _nn_attention.Transformer
let generate_square_subsequent_mask = _nn_attention.generate_square_subsequent_mask

# ---- pooling (stdlib/_nn_pool.dsl) ---------------------------------------------------
let MaxPool1d = _nn_pool.MaxPool1d
let MaxPool2d = _nn_pool.MaxPool2d
let MaxPool3d = _nn_pool.MaxPool3d
let AvgPool1d = _nn_pool.AvgPool1d
let AvgPool2d = _nn_pool.AvgPool2d
let AvgPool3d = _nn_pool.AvgPool3d
let AdaptiveAvgPool1d = _nn_pool.AdaptiveAvgPool1d
let AdaptiveAvgPool2d = _nn_pool.AdaptiveAvgPool2d
let AdaptiveAvgPool3d = _nn_pool.AdaptiveAvgPool3d
let AdaptiveMaxPool1d = _nn_pool.AdaptiveMaxPool1d
let AdaptiveMaxPool2d = _nn_pool.AdaptiveMaxPool2d
let AdaptiveMaxPool3d = _nn_pool.AdaptiveMaxPool3d
let MaxUnpool1d = _nn_pool.MaxUnpool1d
let MaxUnpool2d = _nn_pool.MaxUnpool2d
let MaxUnpool3d = _nn_pool.MaxUnpool3d
let FractionalMaxPool2d = _nn_fractional.FractionalMaxPool2d  # round 9 (stdlib/_nn_fractional.dsl)
let FractionalMaxPool3d = _nn_fractional.FractionalMaxPool3d

# ---- resampling, padding and reshaping (stdlib/_nn_shape.dsl) -------------------------
let Upsample = _nn_shape.Upsample
let UpsamplingNearest2d = _nn_shape.UpsamplingNearest2d
let UpsamplingBilinear2d = _nn_shape.UpsamplingBilinear2d
let Flatten = _nn_shape.Flatten
let Unflatten = _nn_shape.Unflatten
let Identity = _nn_shape.Identity
let PixelShuffle = _nn_shape.PixelShuffle
let PixelUnshuffle = _nn_shape.PixelUnshuffle
let ChannelShuffle = _nn_shape.ChannelShuffle
let channel_shuffle = _nn_shape.channel_shuffle
let Unfold = _nn_shape.Unfold
let Fold = _nn_shape.Fold
let ZeroPad1d = _nn_shape.ZeroPad1d
let ConstantPad1d = _nn_shape.ConstantPad1d
let ReflectionPad1d = _nn_shape.ReflectionPad1d
let ReplicationPad1d = _nn_shape.ReplicationPad1d
let CircularPad1d = _nn_shape.CircularPad1d
let ZeroPad2d = _nn_shape.ZeroPad2d
let ConstantPad2d = _nn_shape.ConstantPad2d
let ReflectionPad2d = _nn_shape.ReflectionPad2d
let ReplicationPad2d = _nn_shape.ReplicationPad2d
let CircularPad2d = _nn_shape.CircularPad2d
let ZeroPad3d = _nn_shape.ZeroPad3d
let ConstantPad3d = _nn_shape.ConstantPad3d
let ReflectionPad3d = _nn_shape.ReflectionPad3d
let ReplicationPad3d = _nn_shape.ReplicationPad3d
let CircularPad3d = _nn_shape.CircularPad3d

# ---- containers (stdlib/_nn_containers.dsl) ------------------------------------------
let Sequential = _nn_containers.Sequential
let ModuleList = _nn_containers.ModuleList
let ModuleDict = _nn_containers.ModuleDict
let ParameterList = _nn_containers.ParameterList
let ParameterDict = _nn_containers.ParameterDict
let _is_module = _nn_containers._is_module

# ---- activations (stdlib/_nn_activation.dsl) ----------------------------------------
let ReLU = _nn_activation.ReLU
let ReLU6 = _nn_activation.ReLU6
let GELU = _nn_activation.GELU
let SiLU = _nn_activation.SiLU
let Tanh = _nn_activation.Tanh
let Sigmoid = _nn_activation.Sigmoid
let Softmax = _nn_activation.Softmax
let Softmin = _nn_activation.Softmin
let LogSoftmax = _nn_activation.LogSoftmax
let Softmax2d = _nn_activation.Softmax2d
let LeakyReLU = _nn_activation.LeakyReLU
let PReLU = _nn_activation.PReLU
let ELU = _nn_activation.ELU
let CELU = _nn_activation.CELU
let SELU = _nn_activation.SELU
let GLU = _nn_activation.GLU
let Softplus = _nn_activation.Softplus
let Softsign = _nn_activation.Softsign
let Hardswish = _nn_activation.Hardswish
let Hardsigmoid = _nn_activation.Hardsigmoid
let Mish = _nn_activation.Mish
let Hardtanh = _nn_activation.Hardtanh
let Hardshrink = _nn_activation.Hardshrink
let Softshrink = _nn_activation.Softshrink
let Tanhshrink = _nn_activation.Tanhshrink
let LogSigmoid = _nn_activation.LogSigmoid
let Threshold = _nn_activation.Threshold

# ---- losses (reduction: "mean", "sum" or "none") --------------------------------------

model CrossEntropyLoss(weight=none, reduction="mean", label_smoothing=0.0, ignore_index=-100) {
  "Cross entropy of logits [N, C] against class indices [N] or class probabilities, with class weights. Example: nn.CrossEntropyLoss(weight=tensor([1.0, 3.0]))(logits, y)"
  let _w = self.register_buffer("weight", weight) if weight != none else none
  reduction = reduction
  label_smoothing = label_smoothing
  ignore_index = ignore_index
  forward(input, target) = cross_entropy(input, target, reduction=self.reduction, label_smoothing=self.label_smoothing,
                                         ignore_index=self.ignore_index, weight=_loss_weight(self))
}
model NLLLoss(weight=none, reduction="mean", ignore_index=-100) {
  "Negative log likelihood of log-probabilities [N, C] against class indices [N], with class weights. Example: nn.NLLLoss()(log_softmax(logits, 1), y)"
  let _w = self.register_buffer("weight", weight) if weight != none else none
  reduction = reduction
  ignore_index = ignore_index
  forward(input, target) = nll_loss(input, target, reduction=self.reduction, ignore_index=self.ignore_index,
                                    weight=_loss_weight(self))
}
# A loss layer's weight buffer, or none (PyTorch registers it only when given).
fn _loss_weight(m) = getattr(m, "weight", none)
model MSELoss(reduction="mean") {
  "The mean (or sum) of squared differences. Example: nn.MSELoss()(pred, target)"
  reduction = reduction
  forward(input, target) = mse_loss(input, target, reduction=self.reduction)
}
model BCELoss(weight=none, reduction="mean") {
  "Binary cross entropy of probabilities in [0, 1] against targets, each element times weight. Example: nn.BCELoss()(sigmoid(z), y)"
  let _w = self.register_buffer("weight", weight) if weight != none else none
  reduction = reduction
  forward(input, target) = binary_cross_entropy(input, target, reduction=self.reduction, weight=_loss_weight(self))
}
model BCEWithLogitsLoss(weight=none, reduction="mean", pos_weight=none) {
  "Binary cross entropy of logits (a sigmoid applied stably) against targets, with weight and pos_weight. Example: nn.BCEWithLogitsLoss(pos_weight=tensor([3.0]))(z, y)"
  let _w = self.register_buffer("weight", weight) if weight != none else none
  let _p = self.register_buffer("pos_weight", pos_weight) if pos_weight != none else none
  reduction = reduction
  forward(input, target) = binary_cross_entropy_with_logits(
      input, target, reduction=self.reduction, weight=_loss_weight(self),
      pos_weight=getattr(self, "pos_weight", none))
}

# kl_div is a global builtin (stdlib/_nn_functional.dsl).
model KLDivLoss(reduction="mean", log_target=false) {
  "The Kullback-Leibler divergence loss (input log-probabilities), as PyTorch's. Example: nn.KLDivLoss(reduction='batchmean')(log_q, p)"
  reduction = reduction
  log_target = log_target
  forward(input, target) = kl_div(input, target, reduction=self.reduction, log_target=self.log_target)
}
# The connectionist temporal classification loss (ctc_loss, Note [CTC as a scan of
# rows] in interp/builtins/composites/loss_conventions.cpp): log_probs [T, N, C], targets padded
# [N, S] or concatenated, each sequence at its input and target length.
model CTCLoss(blank=0, reduction="mean", zero_infinity=false) {
  "The CTC loss of log-probabilities [T, N, C] against unaligned targets, as torch.nn.CTCLoss. Example: nn.CTCLoss()(log_softmax(randn(6, 2, 4), 2), tensor([[1, 2], [3, 3]]), [6, 5], [2, 2])"
  blank = blank
  reduction = reduction
  zero_infinity = zero_infinity
  forward(log_probs, targets, input_lengths, target_lengths) = ctc_loss(
      log_probs, targets, input_lengths, target_lengths, blank=self.blank, reduction=self.reduction,
      zero_infinity=self.zero_infinity)
}

# The losses made of ops (interp/builtins/composites/composite_nn.cpp), as PyTorch's layers.
model L1Loss(reduction="mean") {
  "The mean (or sum) of |input - target|. Example: nn.L1Loss()(pred, target)"
  reduction = reduction
  forward(input, target) = l1_loss(input, target, reduction=self.reduction)
}
model SmoothL1Loss(reduction="mean", beta=1.0) {
  "Squared below beta, absolute above. Example: nn.SmoothL1Loss()(pred, target)"
  reduction = reduction
  beta = beta
  forward(input, target) = smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)
}
model HuberLoss(reduction="mean", delta=1.0) {
  "0.5 d^2 below delta, delta (d - 0.5 delta) above. Example: nn.HuberLoss(delta=0.5)(pred, target)"
  reduction = reduction
  delta = delta
  forward(input, target) = huber_loss(input, target, reduction=self.reduction, delta=self.delta)
}
model SoftMarginLoss(reduction="mean") {
  "log(1 + exp(-target * input)), targets +1 or -1. Example: nn.SoftMarginLoss()(scores, signs)"
  reduction = reduction
  forward(input, target) = soft_margin_loss(input, target, reduction=self.reduction)
}
model MarginRankingLoss(margin=0.0, reduction="mean") {
  "max(0, -target (input1 - input2) + margin). Example: nn.MarginRankingLoss(0.1)(a, b, signs)"
  margin = margin
  reduction = reduction
  forward(input1, input2, target) = margin_ranking_loss(input1, input2, target, margin=self.margin, reduction=self.reduction)
}
model HingeEmbeddingLoss(margin=1.0, reduction="mean") {
  "input where target is 1, max(0, margin - input) where it is -1. Example: nn.HingeEmbeddingLoss()(d, signs)"
  margin = margin
  reduction = reduction
  forward(input, target) = hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)
}
model CosineEmbeddingLoss(margin=0.0, reduction="mean") {
  "1 - cos where target is 1, max(0, cos - margin) where it is -1. Example: nn.CosineEmbeddingLoss()(a, b, signs)"
  margin = margin
  reduction = reduction
  forward(input1, input2, target) = cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                                          reduction=self.reduction)
}
model TripletMarginLoss(margin=1.0, p=2.0, eps=1e-6, swap=false, reduction="mean") {
  "max(d(anchor, positive) - d(anchor, negative) + margin, 0). Example: nn.TripletMarginLoss()(a, p, n)"
  margin = margin
  p = p
  eps = eps
  swap = swap
  reduction = reduction
  forward(anchor, positive, negative) = triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                                            eps=self.eps, swap=self.swap, reduction=self.reduction)
}
model PoissonNLLLoss(log_input=true, full=false, eps=1e-8, reduction="mean") {
  "The Poisson negative log likelihood. Example: nn.PoissonNLLLoss()(log_rate, counts)"
  log_input = log_input
  full = full
  eps = eps
  reduction = reduction
  forward(input, target) = poisson_nll_loss(input, target, log_input=self.log_input, full=self.full, eps=self.eps,
                                            reduction=self.reduction)
}
model GaussianNLLLoss(full=false, eps=1e-6, reduction="mean") {
  "The Gaussian negative log likelihood; forward(input, target, var). Example: nn.GaussianNLLLoss()(mu, y, var)"
  full = full
  eps = eps
  reduction = reduction
  forward(input, target, var) = gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                                  reduction=self.reduction)
}
model MultiLabelSoftMarginLoss(weight=none, reduction="mean") {
  "Binary cross entropy of each class from logits, averaged over the classes. Example: nn.MultiLabelSoftMarginLoss()(logits, labels)"
  weight = weight
  reduction = reduction
  forward(input, target) = multilabel_soft_margin_loss(input, target, weight=self.weight, reduction=self.reduction)
}

# Similarities and distances between two batches, as PyTorch's layers.
model CosineSimilarity(dim=1, eps=1e-8) {
  "The cosine of the angle between x1 and x2 along dim. Example: nn.CosineSimilarity()(a, b)"
  dim = dim
  eps = eps
  forward(x1, x2) = cosine_similarity(x1, x2, dim=self.dim, eps=self.eps)
}
model PairwiseDistance(p=2.0, eps=1e-6, keepdim=false) {
  "||x1 - x2 + eps||_p over the last dim. Example: nn.PairwiseDistance()(a, b)"
  p = p
  eps = eps
  keepdim = keepdim
  forward(x1, x2) = pairwise_distance(x1, x2, p=self.p, eps=self.eps, keepdim=self.keepdim)
}

# ---- more layers (stdlib/_nn_extra.dsl) -----------------------------------------------
# Their functions (local_response_norm, lp_pool1d, rrelu, multi_margin_loss, ...) are
# global builtins written in stdlib/_nn_functional.dsl, so nn.local_response_norm is
# the global one.
let LocalResponseNorm = _nn_extra.LocalResponseNorm
let LPPool1d = _nn_extra.LPPool1d
let LPPool2d = _nn_extra.LPPool2d
let RReLU = _nn_extra.RReLU
let MultiMarginLoss = _nn_extra.MultiMarginLoss
let MultiLabelMarginLoss = _nn_extra.MultiLabelMarginLoss
let TripletMarginWithDistanceLoss = _nn_extra.TripletMarginWithDistanceLoss
let LazyLinear = _nn_extra.LazyLinear
let LazyConv1d = _nn_extra.LazyConv1d
let LazyConv2d = _nn_extra.LazyConv2d
let LazyConv3d = _nn_extra.LazyConv3d
let SyncBatchNorm = _nn_extra.SyncBatchNorm

# ---- utilities (stdlib/_nn_utils.dsl; also nn.utils, PyTorch's torch.nn.utils) ---------
let utils = _nn_utils
let clip_grad_norm_ = _nn_utils.clip_grad_norm_
let clip_grad_value_ = _nn_utils.clip_grad_value_
let count_parameters = _nn_utils.count_parameters
# PyTorch's path to the initializers: nn.init.xavier_uniform_(w), nn.init.zeros_(b).
let init = _nn_init
let trunc_normal_ = _nn_init.trunc_normal_

# ---- activation checkpointing ----------------------------------------------------------

# checkpoint(f, args...): f(args...) without keeping f's intermediate activations;
# backward runs f again to rebuild them (PyTorch's reentrant torch.utils.checkpoint).
# Trades compute for memory. f may return a tensor or a tuple of tensors; arguments
# that are not tensors pass through. As in PyTorch's reentrant variant, at least one
# tensor argument must require grad (the recorded node hangs off it); parameters that
# f uses get their gradients during the recomputation. The recomputation starts from the
# random generator's state of the first run (PyTorch's preserve_rng_state), so dropout or
# randn inside f draw the same values, and the generator is left where it was; and
# under the autocast of the first run (autocast_dtype()), as PyTorch's, so that a
# backward outside the autocast block recomputes in bf16 as the forward did, not in f32.
# use_reentrant=false (PyTorch's other variant) lifts the rule above: with no input that
# requires grad, f runs as it is, keeping its activations, so that the parameters still
# get their gradients. preserve_rng_state=false reruns f from the generator as it is.
function _Checkpoint {
  forward(ctx, f, preserve_rng_state, *args) {
    ctx.save(f, get_rng_state() if preserve_rng_state else none, autocast_dtype(), *args)
    let out = f(*args)
    let parts = list(out) if type(out) == "tuple" else [out]
    if not all([type(t) == "tensor" for t in parts]) {
      fail(f"checkpoint(): f must return a tensor or a tuple of tensors, got {type(out)}")
    }
    return out
  }
  backward(ctx, *grads) {
    let f = ctx.saved[0]
    let rng_then = ctx.saved[1]
    let cast = ctx.saved[2]
    let inputs = []
    for x in ctx.saved[3:] {
      inputs.append(x.detach().requires_grad_(x.requires_grad) if isinstance(x, "tensor") else x)
    }
    let rng_now = get_rng_state()
    if rng_then != none { set_rng_state(rng_then) }
    enable_grad {
      let out = none
      # f16 autocast runs on CUDA's lists only (CPU's is bf16: Note [CPU autocast in f16])
      autocast("cuda" if cast == f16 else "cpu", dtype=cast or bf16, enabled=cast != none) { out = f(*inputs) }
      if rng_then != none { set_rng_state(rng_now) }
      backward(out, list(grads))
    }
    let input_grads = [none, none]
    for x in inputs {
      input_grads.append(x.grad if isinstance(x, "tensor") else none)
    }
    return tuple(input_grads)
  }
}
fn checkpoint(f, *args, use_reentrant=none, preserve_rng_state=true) {
  "Runs f(*args) without keeping its activations; backward runs f again to rebuild them (torch.utils.checkpoint.checkpoint). Example: nn.checkpoint(block, x)"
  if not (use_reentrant == none or type(use_reentrant) == "bool") {
    fail(f"checkpoint(): use_reentrant must be true, false or none, got {type(use_reentrant)}")
  }
  if type(preserve_rng_state) != "bool" {
    fail(f"checkpoint(): preserve_rng_state must be true or false, got {type(preserve_rng_state)}")
  }
  # Inside compile() f runs as it is: the recomputation writes .grad through a nested
  # backward(), which a graph cannot replay, and the graph's memory plan decides what
  # stays alive (the values and gradients are the same either way).
  if is_compiling() { return f(*args) }
  let any_requires_grad = false
  for x in args {
    any_requires_grad = any_requires_grad or (isinstance(x, "tensor") and x.requires_grad)
  }
  if not any_requires_grad and is_grad_enabled() {
    if use_reentrant == false { return f(*args) }
    assert(false, "checkpoint(): no tensor argument requires grad, so backward would not reach f's parameters (pass the input with requires_grad_(true), or use_reentrant=false)")
  }
  return _Checkpoint(f, preserve_rng_state, *args)
}

# checkpoint_sequential(functions, segments, input): PyTorch's split of a Sequential
# (or a list of modules) into `segments` runs of len // segments modules, each but
# the last checkpointed.
fn checkpoint_sequential(functions, segments, input, use_reentrant=none, preserve_rng_state=true) {
  "Runs a Sequential in segments, every segment but the last checkpointed (torch.utils.checkpoint.checkpoint_sequential). Example: nn.checkpoint_sequential(net, 2, x)"
  if not (type(functions) in ["list", "tuple", "Sequential", "ModuleList"]) {
    fail(f"checkpoint_sequential(): functions must be an nn.Sequential or a list of modules, got {type(functions)}")
  }
  let layers = [m for m in functions]
  if len(layers) == 0 { fail("checkpoint_sequential(): functions is empty (no module to run)") }
  if type(segments) != "int" or segments < 1 or segments > len(layers) {
    fail(f"checkpoint_sequential(): segments must be an int in [1, {len(layers)}] (the number of modules), got {segments}")
  }
  fn run_segment(start, end) {
    fn run(x) {
      for k in range(start, end) { x = layers[k](x) }
      return x
    }
    return run
  }
  let size = len(layers) // segments
  let end = 0
  for start in range(0, size * (segments - 1), size) {
    end = start + size
    input = checkpoint(run_segment(start, end), input, use_reentrant=use_reentrant, preserve_rng_state=preserve_rng_state)
  }
  return run_segment(end, len(layers))(input)
}
