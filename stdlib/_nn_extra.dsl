# _nn_extra: more of PyTorch's layers, with its constructor arguments, defaults and
# state_dict keys: LocalResponseNorm, LPPool1d, LPPool2d, RReLU, the losses
# MultiMarginLoss, MultiLabelMarginLoss and TripletMarginWithDistanceLoss, the lazy
# layers LazyLinear, LazyConv1d, LazyConv2d and LazyConv3d, and SyncBatchNorm (with
# SyncBatchNorm.convert_sync_batchnorm). Each calls its function of
# stdlib/_nn_functional.dsl (also a global builtin). nn re-exports them; import nn, not
# this module.
import _dist
import _nn_basic
import _nn_conv
import _nn_functional
import _nn_init

let F = _nn_functional
let parameter = _nn_init.parameter
let _per_dim = _nn_init._per_dim

# ---- normalization, pooling and activation -------------------------------------------

model LocalResponseNorm(size, alpha=0.0001, beta=0.75, k=1.0) {
  "Each channel of [N, C, *] divided by (k + alpha * the mean square over size neighbouring channels) ** beta. Example: nn.LocalResponseNorm(3)(randn([1, 6, 4, 4]))"
  size = size
  alpha = alpha
  beta = beta
  k = k
  forward(input) = F.local_response_norm(input, self.size, alpha=self.alpha, beta=self.beta, k=self.k)
}

model LPPool1d(norm_type, kernel_size, stride=none, ceil_mode=false) {
  "Power-average pooling over [N, C, L]: the norm_type-norm of each kernel_size window. Example: nn.LPPool1d(2, 3)(randn([1, 2, 9]))"
  norm_type = norm_type
  kernel_size = kernel_size
  stride = stride
  ceil_mode = ceil_mode
  forward(input) = F.lp_pool1d(input, self.norm_type, self.kernel_size, stride=self.stride, ceil_mode=self.ceil_mode)
}

model LPPool2d(norm_type, kernel_size, stride=none, ceil_mode=false) {
  "Power-average pooling over [N, C, H, W]: the norm_type-norm of each kernel_size window. Example: nn.LPPool2d(2, 2)(randn([1, 2, 4, 4]))"
  norm_type = norm_type
  kernel_size = kernel_size
  stride = stride
  ceil_mode = ceil_mode
  forward(input) = F.lp_pool2d(input, self.norm_type, self.kernel_size, stride=self.stride, ceil_mode=self.ceil_mode)
}

model RReLU(lower=0.125, upper=0.3333333333333333, inplace=false) {
  "Leaky ReLU with a random slope in [lower, upper] per element in training, the mean slope in eval. Example: nn.RReLU(0.1, 0.3)(randn([4]))"
  lower = lower
  upper = upper
  inplace = inplace
  training = true
  forward(input) = F.rrelu(input, self.lower, self.upper, training=self.training, inplace=self.inplace)
}

# ---- losses ----------------------------------------------------------------------------

model MultiMarginLoss(p=1, margin=1.0, weight=none, reduction="mean") {
  "The multi-class hinge loss of scores [N, C] against class indices [N], with class weights. Example: nn.MultiMarginLoss()(randn([3, 5]), tensor([0, 4, 2]))"
  let _w = self.register_buffer("weight", weight) if weight != none else none
  p = p
  margin = margin
  reduction = reduction
  forward(input, target) = F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                               weight=getattr(self, "weight", none), reduction=self.reduction)
}

model MultiLabelMarginLoss(reduction="mean") {
  "The multi-label hinge loss of scores [N, C] against target classes [N, C] (each row up to its first -1). Example: nn.MultiLabelMarginLoss()(randn([1, 4]), tensor([[3, 0, -1, 1]]))"
  reduction = reduction
  forward(input, target) = F.multilabel_margin_loss(input, target, reduction=self.reduction)
}

model TripletMarginWithDistanceLoss(distance_function=none, margin=1.0, swap=false, reduction="mean") {
  "max(d(anchor, positive) - d(anchor, negative) + margin, 0) for any distance function d. Example: nn.TripletMarginWithDistanceLoss(distance_function=fn(a, b) = 1.0 - cosine_similarity(a, b))(a, p, n)"
  distance_function = distance_function
  margin = margin
  swap = swap
  reduction = reduction
  forward(anchor, positive, negative) = F.triplet_margin_with_distance_loss(
      anchor, positive, negative, distance_function=self.distance_function, margin=self.margin, swap=self.swap,
      reduction=self.reduction)
}

# ---- lazy layers -----------------------------------------------------------------------
# As PyTorch's lazy modules: in_features (in_channels) is 0 and the parameters do not
# exist until the first call, which reads the input's size, makes them and initializes
# them as Linear (Conv) does; an optimizer made before that call has nothing to train
# (make one after a first call, as PyTorch's documentation says). state_dict() is
# empty until then (PyTorch's holds uninitialized parameters, which have no values).
# device and dtype are checked when the layer is made and applied to the parameters the
# first call makes, as PyTorch's (Note [Factory arguments] in stdlib/_nn_init.dsl).

# How an input is shown in an error: a tensor by its shape, anything else by its type.
fn _found(x) = f"shape {list(x.shape)}" if type(x) == "tensor" else type(x)

fn _check_lazy_out(who, what, n) {
  if type(n) != "int" or n < 1 { fail(f"{who}: argument '{what}' must be an int >= 1, got {repr(n) if type(n) in ['int', 'float', 'str', 'none'] else type(n)}") }
  return n
}

model LazyLinear(out_features, bias=true, device=none, dtype=none) {
  "A Linear whose in_features is the last dim of its first input (weight and bias made and initialized then). Example: nn.LazyLinear(10)(randn([4, 7]))"
  in_features = 0
  out_features = _check_lazy_out("LazyLinear", "out_features", out_features)
  use_bias = bias
  weight = none
  bias = none
  let _fk = _nn_init._check_factory("LazyLinear", device, dtype)
  _device = device
  _dtype = dtype
  has_uninitialized_params() = self.in_features == 0 and self.weight == none
  forward(x) {
    if self.weight == none {
      if type(x) != "tensor" or x.ndim < 1 { fail(f"LazyLinear: the first input must be a tensor of at least 1 dim, got {_found(x)}") }
      self.in_features = x.shape[-1]
      self.weight = parameter([self.out_features, self.in_features])
      self.bias = parameter([self.out_features]) if self.use_bias else none
      _nn_basic._default_init(self.weight, self.bias)
      _nn_init._factory(self, self._device, self._dtype)
    }
    return linear(x, self.weight, self.bias)
  }
}

# The fields of a lazy convolution before its first call (PyTorch's, in_channels 0).
fn _lazy_conv_fields(m, name, n, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                     device, dtype) {
  _check_lazy_out(name, "out_channels", out_channels)
  if type(groups) != "int" or groups < 1 or out_channels % groups != 0 {
    fail(f"{name}: argument 'groups' must be an int >= 1 that divides out_channels ({out_channels}), got {repr(groups) if type(groups) in ['int', 'float', 'str', 'none'] else type(groups)}")
  }
  if not (padding_mode in _nn_conv._padding_modes) {
    fail(f"{name}: argument 'padding_mode' must be one of {_nn_conv._padding_modes}, got {repr(padding_mode)}")
  }
  _nn_conv._check_conv_args(name, n, kernel_size, stride, padding, dilation, groups)
  m.in_channels = 0
  m.out_channels = out_channels
  m.kernel_size = _per_dim(kernel_size, n)
  m.stride = _per_dim(stride, n)
  m.padding = _nn_conv._conv_padding(name, padding, m.stride)
  m.dilation = _per_dim(dilation, n)
  m.groups = groups
  m.padding_mode = padding_mode
  m.use_bias = bias
  m._args = [kernel_size, stride, padding, dilation]
  m.weight = none
  m.bias = none
  _nn_init._check_factory(name, device, dtype)
  m._device = device  # the factory arguments of the weight and bias the first call makes
  m._dtype = dtype
  return m
}

# The first call: in_channels from the input (dim 1 of a batch, dim 0 of one sample),
# the weight and bias made and initialized as the ConvNd's, then the convolution.
fn _lazy_conv_forward(m, name, n, x, conv) {
  if m.weight == none {
    if type(x) != "tensor" or not (x.ndim in [n + 1, n + 2]) {
      fail(f"{name}: the first input must be {n + 1}-D or {n + 2}-D (a batch), got {_found(x)}")
    }
    let c = x.shape[1] if x.ndim == n + 2 else x.shape[0]
    if c % m.groups != 0 { fail(f"{name}: the input's {c} channels must be divisible by groups ({m.groups})") }
    _nn_conv._conv_fields(m, name, n, c, m.out_channels, m._args[0], m._args[1], m._args[2], m._args[3], m.groups,
                          m.use_bias, m.padding_mode, false, 0)
    _nn_init._factory(m, m._device, m._dtype)
  }
  return _nn_conv._conv_forward(m, x, conv, n)
}

model LazyConv1d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode="zeros",
                 device=none, dtype=none) {
  "A Conv1d whose in_channels is read from its first input [N, C, L] (weight and bias made then). Example: nn.LazyConv1d(8, 3)(randn([2, 4, 10]))"
  let _f = _lazy_conv_fields(self, "LazyConv1d", 1, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                             device, dtype)
  has_uninitialized_params() = self.weight == none
  forward(x) = _lazy_conv_forward(self, "LazyConv1d", 1, x, conv1d)
}

model LazyConv2d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode="zeros",
                 device=none, dtype=none) {
  "A Conv2d whose in_channels is read from its first input [N, C, H, W] (weight and bias made then). Example: nn.LazyConv2d(8, 3)(randn([2, 4, 10, 10]))"
  let _f = _lazy_conv_fields(self, "LazyConv2d", 2, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                             device, dtype)
  has_uninitialized_params() = self.weight == none
  forward(x) = _lazy_conv_forward(self, "LazyConv2d", 2, x, conv2d)
}

model LazyConv3d(out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true, padding_mode="zeros",
                 device=none, dtype=none) {
  "A Conv3d whose in_channels is read from its first input [N, C, D, H, W] (weight and bias made then). Example: nn.LazyConv3d(8, 3)(randn([1, 2, 5, 5, 5]))"
  let _f = _lazy_conv_fields(self, "LazyConv3d", 3, out_channels, kernel_size, stride, padding, dilation, groups, bias, padding_mode,
                             device, dtype)
  has_uninitialized_params() = self.weight == none
  forward(x) = _lazy_conv_forward(self, "LazyConv3d", 3, x, conv3d)
}

# ---- SyncBatchNorm ---------------------------------------------------------------------
# PyTorch's batch norm with statistics over every process's batch. On one process (no
# dist.init, or a world of 1) that is BatchNorm over the input's dims [N, C, *]: batch
# statistics in training (moving running_mean/running_var by momentum, or by a
# cumulative average when momentum is none), running ones in eval. State_dict keys are
# PyTorch's (the running statistics only with track_running_stats). Synchronizing the
# statistics over several processes is not supported: training there is an error
# (evaluation uses the running statistics and needs no synchronization).

# PyTorch's _NormBase.reset_running_stats() (running_mean 0, running_var 1,
# num_batches_tracked 0, in place) and reset_parameters() (that, and weight 1, bias 0),
# for the BatchNorm and InstanceNorm layers and SyncBatchNorm.
fn _reset_running_stats(m) {
  if m.track_running_stats {
    no_grad {
      m.running_mean.zero_()
      m.running_var.fill_(1.0)
      m.num_batches_tracked.zero_()
    }
  }
}
fn _reset_norm_parameters(m) {
  _reset_running_stats(m)
  if m.affine {
    no_grad {
      m.weight.fill_(1.0)
      m.bias.zero_()
    }
  }
}

let _batch_norms = ["BatchNorm1d", "BatchNorm2d", "BatchNorm3d", "SyncBatchNorm"]

model SyncBatchNorm(num_features, eps=1e-5, momentum=0.1, affine=true, track_running_stats=true, process_group=none,
                    device=none, dtype=none) {
  "Batch normalization over [N, C, *] with the batch statistics of every process (on one process, BatchNorm). Example: nn.SyncBatchNorm(16)(randn([4, 16, 8, 8]))"
  num_features = _check_lazy_out("SyncBatchNorm", "num_features", num_features)
  eps = eps
  momentum = momentum
  affine = affine
  track_running_stats = track_running_stats
  process_group = process_group
  training = true
  weight = ones([num_features], requires_grad=true) if affine else none
  bias = zeros([num_features], requires_grad=true) if affine else none
  running_mean = none
  running_var = none
  let _b = _sync_buffers(self, num_features, track_running_stats)
  let _fk = _nn_init._factory(self, device, dtype)
  reset_running_stats() = _reset_running_stats(self)
  reset_parameters() = _reset_norm_parameters(self)
  # PyTorch's classmethod: module with every BatchNorm1d/2d/3d (itself or inside it)
  # replaced by a SyncBatchNorm holding the same parameters, buffers and mode.
  static convert_sync_batchnorm(module, process_group=none) {
    if type(module) in _batch_norms {
      let affine = module.weight != none
      let tracked = getattr(module, "track_running_stats", true)
      let out = SyncBatchNorm(module.num_features, eps=module.eps, momentum=module.momentum, affine=affine,
                              track_running_stats=tracked, process_group=process_group)
      if affine {
        out.weight = module.weight
        out.bias = module.bias
      }
      if tracked {
        out.running_mean = module.running_mean
        out.running_var = module.running_var
        out.num_batches_tracked = module.num_batches_tracked
      }
      out.training = module.training
      return out
    }
    if type(module) == "tensor" or getattr(module, "named_children", none) == none {
      fail(f"SyncBatchNorm.convert_sync_batchnorm(): argument 'module' must be a model, got {type(module)}")
    }
    for (name, child) in module.named_children() {
      if type(child) in _batch_norms {
        setattr(module, name, SyncBatchNorm.convert_sync_batchnorm(child, process_group))
      } else {
        SyncBatchNorm.convert_sync_batchnorm(child, process_group)
      }
    }
    return module
  }
  forward(x) = _sync_batch_norm(self, x)
}

fn _sync_buffers(m, num_features, track_running_stats) {
  if track_running_stats {
    m.register_buffer("running_mean", zeros([num_features]))
    m.register_buffer("running_var", ones([num_features]))
    m.register_buffer("num_batches_tracked", tensor(0))
  }
}

# Note [The cumulative average as tensor ops]
# momentum=none moves the running statistics by f = 1 / num_batches_tracked (the
# cumulative average). PyTorch 1.13 reads the count on the host (1.0 /
# float(num_batches_tracked), a Python double) and passes f as batch_norm's momentum;
# reading it here with item() is a value read that compile() cannot replay (the graph
# would keep the count of its capture, or refuse). So f stays a tensor, in f64 (1.0 /
# an i64 count would round it to f32): batch_norm runs with momentum 1 into zeroed f64
# statistics, which then hold the batch's mean and unbiased variance as the kernel
# keeps them (0 * 0 + 1 * stat, in double), and each running statistic becomes
# (1 - f) * running + f * stat in f64, rounded once to its dtype: the kernel's own
# expression (update_running, tensor/cpu/norm.cpp), so eager's values are unchanged.
# (m.num_batches_tracked was advanced by the caller; x is normalized with the batch's
# statistics.)
fn _cumulative_batch_norm(m, x) {
  let f = 1.0 / m.num_batches_tracked.double()
  let mean = zeros(m.running_mean.shape, dtype=f64, device=m.running_mean.device)
  let var = zeros(m.running_var.shape, dtype=f64, device=m.running_var.device)
  let y = batch_norm(x, mean, var, weight=m.weight, bias=m.bias, training=true, momentum=1.0, eps=m.eps)
  no_grad {
    m.running_mean.copy_(m.running_mean.double() * (1.0 - f) + mean * f)
    m.running_var.copy_(m.running_var.double() * (1.0 - f) + var * f)
  }
  return y
}

fn _sync_batch_norm(m, x) {
  if type(x) != "tensor" or x.ndim < 2 {
    fail(f"SyncBatchNorm: expected an input of at least 2 dims [N, C, *], got {_found(x)}")
  }
  if x.shape[1] != m.num_features {
    fail(f"SyncBatchNorm: expected an input with {m.num_features} channels (dim 1), got shape {list(x.shape)}")
  }
  if m.training and _dist.is_initialized() and _dist.world_size() > 1 {
    fail(f"SyncBatchNorm: synchronizing batch statistics over {_dist.world_size()} processes is not supported; use BatchNorm (per-process statistics) or train on one process")
  }
  let factor = 0.0 if m.momentum == none else m.momentum
  if m.training and m.track_running_stats {
    no_grad { m.num_batches_tracked.add_(1) }
    if m.momentum == none { return _cumulative_batch_norm(m, x) }
  }
  let batch_stats = m.training or not m.track_running_stats
  if not m.track_running_stats {
    return batch_norm(x, none, none, weight=m.weight, bias=m.bias, training=true, eps=m.eps)
  }
  return batch_norm(x, m.running_mean, m.running_var, weight=m.weight, bias=m.bias, training=batch_stats,
                    momentum=factor, eps=m.eps)
}
