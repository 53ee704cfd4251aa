# _quant_observers: quantized tensors (qrange, QuantizedTensor, quantize) and the
# min/max observers, which watch values go by and choose a scale and zero point
# (MinMaxObserver, MovingAverageMinMaxObserver, PerChannelMinMaxObserver,
# MovingAveragePerChannelMinMaxObserver), with the checks and the qparams formulas
# every observer shares (HistogramObserver's are stdlib/_quant_histogram.dsl). quant
# re-exports them; import quant, not this module.
import nn

# ---- quantized tensors -------------------------------------------------------------------

# float32's machine epsilon: the smallest scale an observer returns (PyTorch's eps).
let eps_f32 = 1.1920928955078125e-07

fn qrange(dtype, reduce_range=false) {
  """(quant_min, quant_max) of a quantized dtype (u8, i8 or i32); reduce_range drops one bit, as
  PyTorch does for activations.

  Example: quant.qrange(u8, reduce_range=true)
  """
  if dtype == u8 { return (0, 127) if reduce_range else (0, 255) }
  if dtype == i8 { return (-64, 63) if reduce_range else (-128, 127) }
  if dtype == i32 { return (-2147483648, 2147483647) }
  assert(false, f"quant: expected a quantized dtype (u8, i8 or i32), got {dtype}")
}

# Integers with the scale and zero point that give them meaning:
# x ~ scale * (int_repr - zero_point). Per tensor, scale is a number and zero_point an
# int; per channel (axis given), both are 1-D tensors with one entry per index of `axis`.
model QuantizedTensor(int_repr, scale, zero_point, axis=none) {
  """Integers with the scale and zero point that give them meaning, x ~ scale * (int_repr -
  zero_point), per tensor or per channel along axis, as PyTorch's quantized tensors.

  Example: quant.QuantizedTensor(tensor([10, 20], dtype=u8), 0.1, 0).dequantize()
  """
  let _checked = _check_quantized(int_repr, scale, zero_point, axis)
  int_repr = int_repr
  scale = scale
  zero_point = zero_point
  axis = axis
  dtype = int_repr.dtype
  shape = int_repr.shape
  qscheme() {
    """"per_tensor_affine" or "per_channel_affine", as torch.Tensor.qscheme.

    Example: quant.quantize(randn(4), 0.05, 128).qscheme()
    """
    return "per_tensor_affine" if self.axis == none else "per_channel_affine"
  }
  dequantize(dtype=f32) {
    """The floats scale * (int_repr - zero_point) in dtype, as torch.Tensor.dequantize.

    Example: quant.quantize(randn(4), 0.05, 128).dequantize()
    """
    if self.axis == none { return dequantize_per_tensor(self.int_repr, self.scale, self.zero_point, dtype) }
    return dequantize_per_channel(self.int_repr, self.scale, self.zero_point, self.axis, dtype)
  }
}

# QuantizedTensor's parts, checked where it is made: a wrong one was an error only at
# a later dequantize() (or "int has no attribute 'dtype'" inside the library).
fn _check_quantized(int_repr, scale, zero_point, axis) {
  let who = "quant.QuantizedTensor()"
  if type(int_repr) != "tensor" or not (int_repr.dtype in [u8, i8, i32]) {
    fail(f"{who}: int_repr must be a u8, i8 or i32 tensor, got " + (f"a {int_repr.dtype} tensor" if type(int_repr) == "tensor" else type(int_repr)))
  }
  if axis == none {
    # A number, or a one-element tensor (what quantize_per_tensor takes too).
    let s = scale.item() if type(scale) == "tensor" and scale.numel() == 1 else scale
    if not (type(s) in ["int", "float"]) or not (s > 0) or s == float("inf") {
      fail(f"{who}: scale must be a positive finite number, got " + (repr(s) if type(s) in ["int", "float"] else type(s)))
    }
    let z = zero_point.item() if type(zero_point) == "tensor" and zero_point.numel() == 1 else zero_point
    if type(z) != "int" { fail(f"{who}: zero_point must be an int, got {type(z)}") }
    return true
  }
  if type(axis) != "int" or axis < -int_repr.ndim or axis >= int_repr.ndim {
    fail(f"{who}: axis {repr(axis)} is out of range for int_repr of shape {list(int_repr.shape)}")
  }
  let n = int_repr.shape[axis]
  for (name, t) in [("scale", scale), ("zero_point", zero_point)] {
    if type(t) != "tensor" or t.ndim != 1 or t.shape[0] != n {
      fail(f"{who}: per channel, {name} must be a 1-D tensor of {n} values (one per index of axis {axis}), got " +
           (f"shape {list(t.shape)}" if type(t) == "tensor" else type(t)))
    }
  }
  return true
}

# x quantized: per tensor with a number scale and int zero point, per channel along
# `axis` with tensors of scales and zero points (PyTorch's torch.quantize_per_tensor
# and torch.quantize_per_channel, returning a QuantizedTensor).
fn quantize(x, scale, zero_point, dtype=u8, axis=none) {
  """x quantized per tensor (a number scale and an int zero point) or per channel along axis (tensors
  of them), as torch.quantize_per_tensor and torch.quantize_per_channel.

  Example: quant.quantize(randn(4), 0.05, 128, dtype=u8).dequantize()
  """
  if axis == none {
    return QuantizedTensor(quantize_per_tensor(x, scale, zero_point, dtype), scale, zero_point)
  }
  return QuantizedTensor(quantize_per_channel(x, scale, zero_point, axis, dtype), scale, zero_point, axis)
}

# ---- observers ---------------------------------------------------------------------------

fn _check_qscheme(qscheme, allowed) {
  if not (qscheme in allowed) { assert(false, f"quant: qscheme must be one of {allowed}, got '{qscheme}'") }
  return qscheme
}

# An observer's dtype and quantization range, checked when it is made, as PyTorch's
# _ObserverBase checks them: a dtype that is not quantized failed only at
# calculate_qparams, and quant_min=10, quant_max=5 gave a scale of eps and a zero
# point outside the range.
fn _check_range(who, dtype, quant_min, quant_max) {
  if not (dtype == u8 or dtype == i8 or dtype == i32) {
    fail(f"quant.{who}(): dtype must be u8, i8 or i32, got {dtype}")
  }
  if (quant_min == none) != (quant_max == none) {
    fail(f"quant.{who}(): give both quant_min and quant_max or neither, got quant_min={quant_min}, quant_max={quant_max}")
  }
  if quant_min == none { return true }
  if type(quant_min) != "int" or type(quant_max) != "int" {
    fail(f"quant.{who}(): quant_min and quant_max must be ints, got {type(quant_min)} and {type(quant_max)}")
  }
  let (lo, hi) = qrange(dtype)
  if quant_min < lo or quant_max > hi {
    fail(f"quant.{who}(): quant_min and quant_max must lie in [{lo}, {hi}] (the range of {dtype}), got [{quant_min}, {quant_max}]")
  }
  if not (quant_min <= 0 and 0 <= quant_max and quant_min < quant_max) {
    fail(f"quant.{who}(): the range [quant_min, quant_max] must hold 0 and more than one value, got [{quant_min}, {quant_max}]")
  }
  return true
}

# What FakeQuantize takes: an observer (a module with calculate_qparams), not a
# number or a class (FakeQuantize(5) failed at the first forward: 'int' is not callable).
fn _checked_observer(who, observer) {
  if not (nn._is_module(observer) and hasattr(observer, "calculate_qparams")) {
    fail(f"quant.{who}(): observer must be an observer (a module with calculate_qparams(), such as quant.MinMaxObserver()), got {type(observer)}")
  }
  return observer
}

# A count argument of an observer: an int of at least 1.
fn _check_count(who, name, n) {
  if type(n) != "int" or n < 1 { fail(f"quant.{who}(): {name} must be an int of at least 1, got {n}") }
  return n
}

# Whether an observer should record x: a tensor is required; an empty one is passed over
# (PyTorch's observers return it unrecorded; its min would be an error); NaN or an
# infinity is refused, since it would make every later scale NaN or infinite.
fn _observable(who, x) {
  if type(x) != "tensor" { fail(f"quant.{who}: expected a tensor to observe, got {type(x)}") }
  if x.numel() == 0 { return false }
  if not isfinite(x).all().item() {
    fail(f"quant.{who}: the observed tensor holds NaN or infinite values; a scale and zero point need finite ones")
  }
  return true
}

fn _bounds(obs) = qrange(obs.dtype, obs.reduce_range) if obs.quant_min == none else (obs.quant_min, obs.quant_max)

# Integers nearest to the values of an f32 tensor (half to even), as an i64 tensor.
fn _round_to_int(t) = quantize_per_tensor(t, 1.0, 0, i32).to(i64)

# PyTorch's _ObserverBase._calculate_qparams: symmetric schemes center the range on
# zero (zero point 0, or 128 for u8), affine ones map [min(min_val, 0), max(max_val,
# 0)] onto [quant_min, quant_max]; scales are at least eps. Before any value was
# observed (the buffers are empty until then, where PyTorch's per-tensor observers
# start at +inf and -inf) scale is 1 and zero point 0.
fn _calculate_qparams(obs, min_val, max_val) {
  let (qmin, qmax) = _bounds(obs)
  if min_val.numel() == 0 { return (tensor([1.0]), tensor([0])) }
  if (min_val > max_val).sum().item() > 0 {
    return (ones(list(min_val.shape)), zeros(list(min_val.shape), dtype=i64))
  }
  let min_neg = minimum(min_val, zeros_like(min_val))
  let max_pos = maximum(max_val, zeros_like(max_val))
  if obs.qscheme == "per_tensor_symmetric" or obs.qscheme == "per_channel_symmetric" {
    let amax = maximum(-min_neg, max_pos)
    let scale = maximum(amax / ((qmax - qmin) / 2.0), tensor(eps_f32))
    let zp = (qmin + qmax) // 2 if obs.quant_min != none else 128
    return (scale, full(list(scale.shape), zp if obs.dtype == u8 else 0, dtype=i64))
  }
  let scale = maximum((max_pos - min_neg) / float(qmax - qmin), tensor(eps_f32))
  let zero_point = maximum(minimum(qmin - _round_to_int(min_neg / scale), tensor(qmax)), tensor(qmin))
  return (scale, zero_point)
}

model MinMaxObserver(dtype=u8, qscheme="per_tensor_affine", reduce_range=false, quant_min=none, quant_max=none) {
  """An observer of the running min and max of what it sees, from which calculate_qparams() chooses a
  scale and zero point, as torch.ao.quantization.MinMaxObserver.

  Example: let obs = quant.MinMaxObserver(); obs(randn(100)); obs.calculate_qparams()
  """
  let _checked = _check_range("MinMaxObserver", dtype, quant_min, quant_max)
  dtype = dtype
  qscheme = _check_qscheme(qscheme, ["per_tensor_affine", "per_tensor_symmetric"])
  reduce_range = reduce_range
  quant_min = quant_min
  quant_max = quant_max
  buffer min_val = zeros([0])
  buffer max_val = zeros([0])
  forward(x) {
    if not _observable(type(self), x) { return x }
    no_grad {
      let v = x.detach().to(f32)
      let first = self.min_val.numel() == 0
      self.min_val = v.min() if first else minimum(v.min(), self.min_val)
      self.max_val = v.max() if first else maximum(v.max(), self.max_val)
    }
    return x
  }
  calculate_qparams() {
    """The (scale, zero_point) for what it has seen, as PyTorch's calculate_qparams.

    Example: let obs = quant.MinMaxObserver(); obs(randn(100)); obs.calculate_qparams()
    """
    return _calculate_qparams(self, self.min_val, self.max_val)
  }
}

model MovingAverageMinMaxObserver(averaging_constant=0.01, dtype=u8, qscheme="per_tensor_affine", reduce_range=false,
                                  quant_min=none, quant_max=none) {
  """An observer whose min and max move toward each batch's by averaging_constant, as
  torch.ao.quantization.MovingAverageMinMaxObserver.

  Example: let obs = quant.MovingAverageMinMaxObserver(averaging_constant=0.1); obs(randn(100)); obs.calculate_qparams()
  """
  let _checked = _check_range("MovingAverageMinMaxObserver", dtype, quant_min, quant_max)
  averaging_constant = averaging_constant
  dtype = dtype
  qscheme = _check_qscheme(qscheme, ["per_tensor_affine", "per_tensor_symmetric"])
  reduce_range = reduce_range
  quant_min = quant_min
  quant_max = quant_max
  buffer min_val = zeros([0])
  buffer max_val = zeros([0])
  forward(x) {
    if not _observable(type(self), x) { return x }
    no_grad {
      let v = x.detach().to(f32)
      let lo = v.min()
      let hi = v.max()
      if self.min_val.numel() == 0 {
        self.min_val = lo
        self.max_val = hi
      } else {
        self.min_val = self.min_val + self.averaging_constant * (lo - self.min_val)
        self.max_val = self.max_val + self.averaging_constant * (hi - self.max_val)
      }
    }
    return x
  }
  calculate_qparams() {
    """The (scale, zero_point) for what it has seen, as PyTorch's calculate_qparams.

    Example: let obs = quant.MovingAverageMinMaxObserver(); obs(randn(100)); obs.calculate_qparams()
    """
    return _calculate_qparams(self, self.min_val, self.max_val)
  }
}

# The min and max of each slice of x along ch_axis, as two 1-D tensors.
fn _channel_min_max(x, ch_axis, who) {
  if type(ch_axis) != "int" or ch_axis < -x.ndim or ch_axis >= x.ndim {
    fail(f"quant.{who}: ch_axis {ch_axis} is out of range for an input of shape {list(x.shape)}")
  }
  let y = x.detach().to(f32).transpose(0, ch_axis).reshape([x.shape[ch_axis], -1])
  return (y.min(dim=1)[0], y.max(dim=1)[0])
}

model PerChannelMinMaxObserver(ch_axis=0, dtype=i8, qscheme="per_channel_symmetric", reduce_range=false,
                               quant_min=none, quant_max=none) {
  """An observer of the running min and max of each index of ch_axis, giving one scale and zero point
  per channel, as torch.ao.quantization.PerChannelMinMaxObserver.

  Example: let obs = quant.PerChannelMinMaxObserver(ch_axis=0); obs(randn(4, 8)); obs.calculate_qparams()
  """
  let _checked = _check_range("PerChannelMinMaxObserver", dtype, quant_min, quant_max)
  ch_axis = ch_axis
  dtype = dtype
  qscheme = _check_qscheme(qscheme, ["per_channel_affine", "per_channel_symmetric"])
  reduce_range = reduce_range
  quant_min = quant_min
  quant_max = quant_max
  buffer min_val = zeros([0])
  buffer max_val = zeros([0])
  forward(x) {
    if not _observable(type(self), x) { return x }
    no_grad {
      let (lo, hi) = _channel_min_max(x, self.ch_axis, type(self))
      if self.min_val.numel() == 0 {
        self.min_val = lo
        self.max_val = hi
      } else {
        self.min_val = minimum(lo, self.min_val)
        self.max_val = maximum(hi, self.max_val)
      }
    }
    return x
  }
  calculate_qparams() {
    """The (scales, zero_points) of each channel for what it has seen, as PyTorch's
    calculate_qparams.

    Example: let obs = quant.PerChannelMinMaxObserver(); obs(randn(4, 8)); obs.calculate_qparams()
    """
    return _calculate_qparams(self, self.min_val, self.max_val)
  }
}

model MovingAveragePerChannelMinMaxObserver(averaging_constant=0.01, ch_axis=0, dtype=i8,
                                            qscheme="per_channel_symmetric", reduce_range=false, quant_min=none,
                                            quant_max=none) {
  """A per-channel observer whose mins and maxes move toward each batch's by averaging_constant, as
  torch.ao.quantization.MovingAveragePerChannelMinMaxObserver.

  Example: let obs = quant.MovingAveragePerChannelMinMaxObserver(ch_axis=0); obs(randn(4, 8)); obs.calculate_qparams()
  """
  let _checked = _check_range("MovingAveragePerChannelMinMaxObserver", dtype, quant_min, quant_max)
  averaging_constant = averaging_constant
  ch_axis = ch_axis
  dtype = dtype
  qscheme = _check_qscheme(qscheme, ["per_channel_affine", "per_channel_symmetric"])
  reduce_range = reduce_range
  quant_min = quant_min
  quant_max = quant_max
  buffer min_val = zeros([0])
  buffer max_val = zeros([0])
  forward(x) {
    if not _observable(type(self), x) { return x }
    no_grad {
      let (lo, hi) = _channel_min_max(x, self.ch_axis, type(self))
      if self.min_val.numel() == 0 {
        self.min_val = lo
        self.max_val = hi
      } else {
        self.min_val = self.min_val + self.averaging_constant * (lo - self.min_val)
        self.max_val = self.max_val + self.averaging_constant * (hi - self.max_val)
      }
    }
    return x
  }
  calculate_qparams() {
    """The (scales, zero_points) of each channel for what it has seen, as PyTorch's
    calculate_qparams.

    Example: let obs = quant.MovingAveragePerChannelMinMaxObserver(); obs(randn(4, 8)); obs.calculate_qparams()
    """
    return _calculate_qparams(self, self.min_val, self.max_val)
  }
}

fn _is_per_channel(obs) = obs.qscheme == "per_channel_affine" or obs.qscheme == "per_channel_symmetric"
