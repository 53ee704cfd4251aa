# _quant_modules: the layers quantization puts in a model: FakeQuantize and its
# defaults, DynamicQuantizedLinear and QATLinear (dynamic quantization and
# quantization-aware training), static quantization's QConfig and its observed and
# quantized layers (ObservedLinear, ObservedConv2d, QuantizedLinear, QuantizedConv2d),
# and what makes the int8 layers from float ones. quant re-exports them, and its model
# transforms (stdlib/quant.dsl) swap them in; import quant, not this module.
import nn
import _quant_observers

let MovingAverageMinMaxObserver = _quant_observers.MovingAverageMinMaxObserver
let MovingAveragePerChannelMinMaxObserver = _quant_observers.MovingAveragePerChannelMinMaxObserver
let PerChannelMinMaxObserver = _quant_observers.PerChannelMinMaxObserver
let _bounds = _quant_observers._bounds
let _checked_observer = _quant_observers._checked_observer
let _is_per_channel = _quant_observers._is_per_channel

# ---- fake quantization -------------------------------------------------------------------

# PyTorch's FakeQuantize: in training, the observer sees x and the quantization
# parameters follow it; x is then quantized and dequantized (fake_quantize_per_tensor or
# _per_channel), so the model trains against the rounding it will meet as int8.
# Gradients pass straight through where x is inside the range (docs/quantization.md).
model FakeQuantize(observer) {
  """Fake quantization: in training the observer follows x, which is then quantized and dequantized
  with its parameters, the gradient passing straight through, as
  torch.ao.quantization.FakeQuantize.

  Example: quant.FakeQuantize(quant.MinMaxObserver())(randn(8))
  """
  activation_post_process = _checked_observer("FakeQuantize", observer)
  observer_enabled = true
  fake_quant_enabled = true
  buffer scale = tensor(1.0)
  buffer zero_point = tensor(0)
  enable_observer(enabled=true) {
    """Turns the observer on (off with false), so that forward updates the quantization parameters;
    returns this module.

    Example: quant.FakeQuantize(quant.MinMaxObserver()).enable_observer(false)
    """
    self.observer_enabled = enabled
    return self
  }
  disable_observer() {
    """Freezes the quantization parameters (enable_observer(false)); returns this module.

    Example: quant.FakeQuantize(quant.MinMaxObserver()).disable_observer()
    """
    return self.enable_observer(false)
  }
  enable_fake_quant(enabled=true) {
    """Turns fake quantization on (off with false: forward is the identity); returns this module.

    Example: quant.FakeQuantize(quant.MinMaxObserver()).enable_fake_quant(false)
    """
    self.fake_quant_enabled = enabled
    return self
  }
  disable_fake_quant() {
    """Makes forward the identity (enable_fake_quant(false)); returns this module.

    Example: quant.FakeQuantize(quant.MinMaxObserver()).disable_fake_quant()
    """
    return self.enable_fake_quant(false)
  }
  calculate_qparams() {
    """The observer's (scale, zero_point).

    Example: let fq = quant.FakeQuantize(quant.MinMaxObserver()); fq(randn(8)); fq.calculate_qparams()
    """
    return self.activation_post_process.calculate_qparams()
  }
  forward(x) {
    let obs = self.activation_post_process
    if self.observer_enabled {
      obs(x)
      let (s, z) = obs.calculate_qparams()
      self.scale = s
      self.zero_point = z
    }
    if not self.fake_quant_enabled { return x }
    let (qmin, qmax) = _bounds(obs)
    if _is_per_channel(obs) {
      return fake_quantize_per_channel(x, self.scale, self.zero_point, axis=obs.ch_axis, quant_min=qmin, quant_max=qmax)
    }
    return fake_quantize_per_tensor(x, self.scale.item(), int(self.zero_point.item()), quant_min=qmin, quant_max=qmax)
  }
}

fn default_dynamic_fake_quant() {
  """The fake quantization dynamic quantization applies to an activation: u8 over the current batch's
  range, as PyTorch's default_dynamic_fake_quant.

  Example: quant.default_dynamic_fake_quant()(randn(8))
  """
  return FakeQuantize(MovingAverageMinMaxObserver(averaging_constant=1.0, dtype=u8))
}
fn default_per_channel_weight_fake_quant() {
  """The fake quantization of a weight in quantization-aware training: symmetric i8 per output
  channel, as PyTorch's default_per_channel_weight_fake_quant.

  Example: quant.default_per_channel_weight_fake_quant()(randn(4, 8))
  """
  return FakeQuantize(MovingAveragePerChannelMinMaxObserver(ch_axis=0, dtype=i8))
}
fn default_weight_observer() {
  """The observer that chooses a weight's scales: symmetric i8 per output channel, as PyTorch's
  default_per_channel_weight_observer.

  Example: let obs = quant.default_weight_observer(); obs(randn(4, 8)); obs.calculate_qparams()
  """
  return PerChannelMinMaxObserver(ch_axis=0, dtype=i8, qscheme="per_channel_symmetric")
}

# ---- quantized modules -------------------------------------------------------------------

# PyTorch's nn.quantized.dynamic.Linear: an i8 weight quantized per output channel
# (symmetric, so no zero points are kept), an f32 bias; each call quantizes its input
# to u8 with that batch's range and runs the int8 GEMM (dynamic_quantized_linear).
model DynamicQuantizedLinear(in_features, out_features, weight, weight_scale, bias=none, reduce_range=false) {
  """A Linear with an i8 weight quantized per output channel that quantizes each input to u8 over
  that batch's range, as torch.ao.nn.quantized.dynamic.Linear (quantize_dynamic makes them).

  Example: quant.DynamicQuantizedLinear(4, 2, quantize_per_channel(randn(2, 4), full([2], 0.05), zeros(2, dtype=i64), 0, i8), full([2], 0.05))(randn(3, 4))
  """
  in_features = in_features
  out_features = out_features
  reduce_range = reduce_range
  buffer weight = weight
  buffer weight_scale = weight_scale
  buffer bias = bias if bias != none else zeros([0])
  has_bias = bias != none
  let _c = _check_weight("DynamicQuantizedLinear", weight, [out_features, in_features])
  forward(x) = dynamic_quantized_linear(x, self.weight, self.weight_scale, self.bias if self.has_bias else none,
                                        reduce_range=self.reduce_range)
  # The weight as f32 values (what the int8 GEMM multiplies by).
  dequantized_weight() {
    """The f32 weight that the i8 weight and its scales stand for.

    Example: quant.DynamicQuantizedLinear(4, 2, quantize_per_channel(randn(2, 4), full([2], 0.05), zeros(2, dtype=i64), 0, i8), full([2], 0.05)).dequantized_weight()
    """
    return dequantize_per_channel(self.weight, self.weight_scale, zeros([self.out_features], dtype=i64), 0)
  }
}

fn _check_weight(what, weight, shape) =
  assert(weight.dtype == i8 and list(weight.shape) == shape,
         f"{what}: expected an i8 weight of shape {shape}, got {weight.dtype} {list(weight.shape)}")

# A float weight quantized to i8 per output channel (dim 0) with the scales `observer`
# chooses: (the i8 weight, its f32 scales). The int8 kernels take symmetric weights
# only (zero point 0).
fn _quantize_weight(weight, observer) {
  let w = weight.detach()
  let n = w.shape[0]
  observer(w)
  let (scale, zero_point) = observer.calculate_qparams()
  # A per-tensor observer's one scale serves every channel.
  scale = scale.to(f32).reshape([-1]).expand([n]).contiguous()
  zero_point = zero_point.reshape([-1]).expand([n]).contiguous()
  if (zero_point != 0).sum().item() > 0 {
    assert(false, "quant: the int8 GEMM takes symmetric weights (zero point 0), but the weight observer chose nonzero zero points; use a symmetric one")
  }
  return (quantize_per_channel(w, scale, zero_point, 0, i8), scale)
}

fn _detached(t) = t.detach().clone() if t != none else none

# A DynamicQuantizedLinear from a float weight (and bias), its scales chosen by
# `observer` (per output channel, symmetric i8 by default).
fn _dynamic_linear_from(weight, bias, observer, reduce_range) {
  let (q, scale) = _quantize_weight(weight, observer)
  return DynamicQuantizedLinear(q.shape[1], q.shape[0], q, scale, _detached(bias), reduce_range=reduce_range)
}

# Quantization-aware Linear (PyTorch's nn.qat.Linear, with the input's dynamic
# fake quantization too): the forward sees the rounding of int8 weights and u8
# activations; the weight and bias are the float ones and keep training.
model QATLinear(in_features, out_features, weight, bias, activation_fake_quant, weight_fake_quant) {
  """A Linear for quantization-aware training, whose forward sees the rounding of its fake-quantized
  input and weight while the float weight trains, as torch.ao.nn.qat.Linear (prepare_qat makes
  them).

  Example: quant.QATLinear(4, 2, randn(2, 4, requires_grad=true), zeros(2), quant.default_dynamic_fake_quant(), quant.default_per_channel_weight_fake_quant())(randn(3, 4))
  """
  in_features = in_features
  out_features = out_features
  weight = weight
  bias = bias
  activation_post_process = activation_fake_quant
  weight_fake_quant = weight_fake_quant
  forward(x) = linear(self.activation_post_process(x), self.weight_fake_quant(self.weight), self.bias)
}

# ---- static quantization: observed and quantized layers --------------------------------
#
# Static (post-training) quantization fixes each layer's input scale and zero point
# once, from calibration batches, where dynamic quantization measures every batch.
# prepare() swaps every Linear and Conv2d for an Observed one, which computes in f32
# while its activation observer watches its input; convert() turns those into
# QuantizedLinear / QuantizedConv2d, which quantize their input with the calibrated
# parameters and run the int8 kernel (f32 out). No stubs are placed by hand: each int8
# layer quantizes its own input (and compile() + the lower_quant pass keep the
# activations u8 between layers).

model QConfig(activation, weight) {
  """Makers (functions of no arguments) of the observers that static quantization puts on a layer's input (activation) and
  weight, as torch.ao.quantization.QConfig.

  Example: quant.prepare(nn.Sequential([nn.Linear(8, 4)]), qconfig=quant.QConfig(fn() = quant.MinMaxObserver(), quant.default_weight_observer))
  """
  activation = _checked_maker("activation", activation)
  weight = _checked_maker("weight", weight)
}

# A fresh observer from a QConfig's maker, checked when prepare() places it: a maker
# returning 5 failed only at calibration ("'int' object is not callable"), one
# returning a Linear only in convert().
fn _made_observer(qconfig, which) {
  let made = qconfig.activation() if which == "activation" else qconfig.weight()
  if not (nn._is_module(made) and hasattr(made, "calculate_qparams")) {
    fail(f"quant.prepare(): the qconfig's {which} maker must make an observer (a module with calculate_qparams(), such as quant.MinMaxObserver()), got {type(made)}")
  }
  return made
}

# A QConfig field: a function of no arguments (or a model class) making a fresh
# observer for each layer; an observer instance would be shared by every layer.
fn _checked_maker(what, maker) {
  if not (type(maker) in ["function", "builtin", "method", "model"]) {
    let hint = " (an observer: pass a function making one, fn() = ...)" if nn._is_module(maker) else ""
    fail(f"quant.QConfig(): {what} must be a function that makes an observer, got {type(maker)}{hint}")
  }
  return maker
}

model ObservedLinear(float_linear, qconfig) {
  """A Linear during calibration, computing in f32 while its qconfig's activation observer watches
  its input (prepare makes them).

  Example: quant.ObservedLinear(nn.Linear(4, 2), quant.default_qconfig)(randn(3, 4))
  """
  in_features = float_linear.in_features
  out_features = float_linear.out_features
  weight = float_linear.weight
  bias = float_linear.bias
  activation_post_process = _made_observer(qconfig, "activation")
  weight_observer = _made_observer(qconfig, "weight")
  forward(x) = linear(self.activation_post_process(x), self.weight, self.bias)
}

model ObservedConv2d(conv, qconfig) {
  """A Conv2d during calibration, computing in f32 while its qconfig's activation observer watches
  its input (prepare makes them).

  Example: quant.ObservedConv2d(nn.Conv2d(3, 4, 3), quant.default_qconfig)(randn(1, 3, 8, 8))
  """
  in_channels = conv.in_channels
  out_channels = conv.out_channels
  kernel_size = conv.kernel_size
  stride = conv.stride
  padding = conv.padding
  dilation = conv.dilation
  groups = conv.groups
  weight = conv.weight
  bias = conv.bias
  activation_post_process = _made_observer(qconfig, "activation")
  weight_observer = _made_observer(qconfig, "weight")
  forward(x) = conv2d(self.activation_post_process(x), self.weight, self.bias, stride=self.stride,
                      padding=self.padding, dilation=self.dilation, groups=self.groups)
}

# Static quantization's Linear (PyTorch's nn.quantized.Linear, with an f32 output):
# the input is quantized with the calibrated input_scale and input_zero_point, then
# multiplied by the i8 weight (per output channel scales) on the int8 GEMM.
# The input's parameters are plain numbers, so that compile() records them in the
# graph as constants; the buffer input_qparams ([scale, zero point], f64) carries
# them in the state_dict (after loading a state, sync_input_qparams(model)).
model QuantizedLinear(in_features, out_features, weight, weight_scale, bias, input_scale, input_zero_point,
                      input_dtype=u8) {
  """Static quantization's Linear: its input quantized with the calibrated scale and zero point,
  multiplied by an i8 weight on the int8 GEMM, f32 out, as torch.ao.nn.quantized.Linear (convert
  makes them).

  Example: quant.quantize_static(nn.Sequential([nn.Linear(8, 4)]), [randn(16, 8)])
  """
  in_features = in_features
  out_features = out_features
  input_scale = input_scale
  input_zero_point = input_zero_point
  input_dtype = input_dtype
  buffer weight = weight
  buffer weight_scale = weight_scale
  buffer bias = bias if bias != none else zeros([0])
  buffer input_qparams = tensor([input_scale, input_zero_point], dtype=f64)
  has_bias = bias != none
  let _c = _check_weight("QuantizedLinear", weight, [out_features, in_features])
  forward(x) = quantized_linear(quantize_per_tensor(x, self.input_scale, self.input_zero_point, self.input_dtype),
                                self.weight, self.weight_scale, self.bias if self.has_bias else none,
                                input_scale=self.input_scale, input_zero_point=self.input_zero_point)
}

# Static quantization's Conv2d (PyTorch's nn.quantized.Conv2d, with an f32 output):
# as QuantizedLinear, on the int8 convolution; weight is i8 [out, in / groups, kh, kw].
model QuantizedConv2d(in_channels, out_channels, kernel_size, stride, padding, dilation, groups, weight,
                      weight_scale, bias, input_scale, input_zero_point, input_dtype=u8) {
  """Static quantization's Conv2d: QuantizedLinear's scheme on the int8 convolution, as
  torch.ao.nn.quantized.Conv2d (convert makes them).

  Example: quant.quantize_static(nn.Sequential([nn.Conv2d(3, 4, 3)]), [randn(2, 3, 8, 8)])
  """
  in_channels = in_channels
  out_channels = out_channels
  kernel_size = kernel_size
  stride = stride
  padding = padding
  dilation = dilation
  groups = groups
  input_scale = input_scale
  input_zero_point = input_zero_point
  input_dtype = input_dtype
  buffer weight = weight
  buffer weight_scale = weight_scale
  buffer bias = bias if bias != none else zeros([0])
  buffer input_qparams = tensor([input_scale, input_zero_point], dtype=f64)
  has_bias = bias != none
  let _c = _check_weight("QuantizedConv2d", weight, [out_channels, in_channels // groups] + list(kernel_size))
  forward(x) = quantized_conv2d(quantize_per_tensor(x, self.input_scale, self.input_zero_point, self.input_dtype),
                                self.weight, self.weight_scale, self.bias if self.has_bias else none,
                                input_scale=self.input_scale, input_zero_point=self.input_zero_point,
                                stride=self.stride, padding=self.padding, dilation=self.dilation, groups=self.groups)
}

# The calibrated (scale, zero point) of an observed layer's input, as plain numbers.
fn _input_qparams(observer) {
  let (scale, zero_point) = observer.calculate_qparams()
  assert(scale.numel() == 1, f"quant: an activation observer must be per tensor, got {scale.numel()} scales")
  return (scale.reshape([-1])[0].item(), int(zero_point.reshape([-1])[0].item()))
}

fn _quantized_linear_from(l) {
  let (q, scale) = _quantize_weight(l.weight, l.weight_observer)
  let (s, z) = _input_qparams(l.activation_post_process)
  return QuantizedLinear(l.in_features, l.out_features, q, scale, _detached(l.bias), s, z,
                         l.activation_post_process.dtype)
}

fn _quantized_conv2d_from(c) {
  let (q, scale) = _quantize_weight(c.weight, c.weight_observer)
  let (s, z) = _input_qparams(c.activation_post_process)
  return QuantizedConv2d(c.in_channels, c.out_channels, c.kernel_size, c.stride, c.padding, c.dilation, c.groups,
                         q, scale, _detached(c.bias), s, z, c.activation_post_process.dtype)
}
