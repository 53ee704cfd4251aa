# quant: model compression by int8 quantization, with PyTorch's names and numerics
# (torch.ao.quantization). docs/quantization.md has the whole story.
#
#   import quant
#   let qm = quant.quantize_dynamic(model)        # Linear -> DynamicQuantizedLinear
#   let qs = quant.quantize_static(model, batches) # Linear, Conv2d -> QuantizedLinear, QuantizedConv2d
#   let qat = quant.prepare_qat(model)            # Linear -> QATLinear (fake quantization)
#   ... train qat as usual ...
#   let qm2 = quant.convert(qat)                  # QATLinear -> DynamicQuantizedLinear
#   print(quant.model_size_bytes(model), quant.model_size_bytes(qm))
#
# quantize_static is fuse_conv_bn + prepare + calibrate + convert, each usable alone.
# The pieces are reusable on their own: QuantizedTensor (integers with their scale
# and zero point), observers (MinMaxObserver, MovingAverageMinMaxObserver,
# PerChannelMinMaxObserver, MovingAveragePerChannelMinMaxObserver, HistogramObserver:
# they watch values go by and choose quantization parameters), QConfig (which
# observers static quantization uses), FakeQuantize (an observer plus fake
# quantization, differentiable through the straight-through estimator), and the ops
# they run on (quantize_per_tensor, quantize_per_channel, dequantize_per_*,
# fake_quantize_per_*, quantized_linear, quantized_conv2d, dynamic_quantized_linear).
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

# ---- the histogram observer ---------------------------------------------------------------
#
# PyTorch 1.13's HistogramObserver (torch/ao/quantization/observer.py), step for step and
# in the same precisions, so that it chooses PyTorch's scale and zero point: a histogram
# of everything seen (2048 bins over [min_val, max_val]; when a batch widens the range,
# the old histogram is spread over a finer grid and summed into the new bins), then a
# search for the [min, max] that minimizes the L2 error of quantizing the histogram to
# 256 levels (clipping outliers), then the MinMax observer's formulas on that range.
# The table has no floor, round, cumsum or histc rows; the helpers below make them of
# other ops, rounding exactly as PyTorch's do.

# Floor of a floating tensor, in its dtype (truncation, then one less below zero).
fn _floor(t) {
  let r = t.to(i64).to(t.dtype)
  return r - (r > t).to(t.dtype)
}

fn _ceil(t) = -_floor(-t)

# torch.div(a, b, rounding_mode="floor") of an f32 tensor by a number (made f32, as
# PyTorch makes it): the floor of the exact quotient (its fmod-based kernel), which
# floor(a / b) misses when a / b rounds up to an integer. In f64 the products of the
# candidate quotient and b are exact, so one correction each way settles it.
fn _floor_divide(a, b) {
  let a64 = a.to(f64)
  let b64 = tensor(float(b)).to(f64)
  let q = _floor(a64 / b64)
  q = q - (q * b64 > a64).to(f64) + ((q + 1.0) * b64 <= a64).to(f64)
  return q.to(f32)
}

# torch.cumsum of an f32 list's values: running sums in f64 (as PyTorch's CPU kernel
# accumulates), each rounded to f32.
fn _running_sums(values) {
  let sums = []
  let s = 0.0
  for v in values {
    s = s + v
    sums.append(s)
  }
  return tensor(sums, dtype=f64).to(f32).tolist()
}

# A number rounded to f32 and back (PyTorch compares f32 tensors with numbers in f32).
fn _f32(v) = tensor(v).item()

# torch.histc(x, bins, min=lo, max=hi) on f32 as PyTorch 1.13 computes it: lo == hi
# takes the range of x (widened by 1 each way if x is constant); values outside
# [lo, hi] are left out; a value's bin is trunc((x - lo) * bins / (hi - lo)) in f32,
# the last bin closed.
fn _histc(x, bins, lo, hi) {
  if lo == hi {
    lo = x.min().item()
    hi = x.max().item()
  }
  if lo == hi {
    lo = lo - 1.0
    hi = hi + 1.0
  }
  let lo_t = tensor(float(lo))
  let hi_t = tensor(float(hi))
  let inside = (x >= lo_t) * (x <= hi_t)
  let v = where(inside, x, lo_t)
  let pos = clamp((v - lo_t) * bins / (hi_t - lo_t), 0, bins - 1).to(i64)  # truncates
  return scatter_add(zeros([bins]), 0, pos.reshape([-1]), inside.to(f32).reshape([-1]))
}

# PyTorch's _combine_histograms: the old histogram's bins, each spread evenly over
# `up` cells of a grid of bins * down cells starting at cell `start`, summed back into
# bins of `down` cells and added to `hist`. PyTorch sums the grid cell by cell in f64
# and takes each bin's integral less the previous one rounded to f32 (its shifted copy
# is an f32 tensor), so a bin can differ by f32's step at the integral's magnitude
# (0.25 at a few million) with the order of the additions: the sums here are made in
# PyTorch's order (empty cells skipped: adding zero is exact).
fn _combine_histograms(hist, old, up, down, start, bins) {
  let h = old.tolist()
  let integral = []                                  # the sum of the cells before each bin's end
  let s = 0.0
  let cell = start
  let last = min(start + bins * up, bins * down)
  for k in range(bins) {
    let end = min((k + 1) * down, last)
    while cell < end {
      let m = (cell - start) // up                   # the old bin this cell belongs to
      let stop = min(end, start + (m + 1) * up)
      let v = h[m]
      if v == 0.0 {
        cell = stop
      } else {
        while cell < stop {
          s = s + v
          cell = cell + 1
        }
      }
    }
    integral.append(s)
  }
  let t = tensor(integral, dtype=f64)
  let previous = cat([zeros([1], dtype=f64), t[0:bins - 1].to(f32).to(f64)])
  return hist + ((t - previous) / up).to(f32)
}

# PyTorch's _get_norm: the integral of x^2 over [delta_begin, delta_end] times density.
fn _get_norm(delta_begin, delta_end, density) =
  density * ((delta_end * delta_end * delta_end - delta_begin * delta_begin * delta_begin) / 3)

# PyTorch's _compute_quantization_error: the L2 error of quantizing the histogram to
# dst_nbins levels spread over its bins start..end (bin_width: a number, as in PyTorch).
fn _quantization_error(hist, dst_nbins, bin_width, start, end) {
  let bins = hist.shape[0]
  let dst_bin_width = bin_width * (end - start + 1) / dst_nbins
  if dst_bin_width == 0.0 { return 0.0 }
  let src_bin_begin = (arange(bins) - start).to(f32) * bin_width
  let src_bin_end = src_bin_begin + bin_width
  let dst_bin_of_begin = clamp(_floor_divide(src_bin_begin, dst_bin_width), 0, dst_nbins - 1)
  let dst_bin_of_begin_center = (dst_bin_of_begin + 0.5) * dst_bin_width
  let dst_bin_of_end = clamp(_floor_divide(src_bin_end, dst_bin_width), 0, dst_nbins - 1)
  let density = hist / bin_width
  let half = tensor(dst_bin_width / 2)
  let norm = zeros([bins])
  norm = norm + _get_norm(src_bin_begin - dst_bin_of_begin_center, ones([bins]) * (dst_bin_width / 2), density)
  norm = norm + (dst_bin_of_end - dst_bin_of_begin - 1) * _get_norm(-half, half, density)
  let dst_bin_of_end_center = dst_bin_of_end * dst_bin_width + dst_bin_width / 2
  norm = norm + _get_norm(-half, src_bin_end - dst_bin_of_end_center, density)
  return norm.sum().item()
}

# PyTorch's _non_linear_param_search: moves the lower or the upper quantile bound in
# steps of 1e-5 (the side that cuts more bins), accepting each move while the
# quantization error falls. Returns the (min, max) to quantize with, as f32 tensors.
fn _histogram_search(obs) {
  let hist = obs.histogram
  let bins = obs.bins
  let total = _f32(hist.to(f64).sum().item())
  let csum = _running_sums(hist.tolist())
  let bin_width = (obs.max_val.item() - obs.min_val.item()) / bins
  let dst_nbins = 2 ** (8 * obs.dtype.itemsize)
  let stepsize = 1e-5
  let alpha = 0.0
  let beta = 1.0
  let start_bin = 0
  let end_bin = bins - 1
  let norm_min = float("inf")
  while alpha < beta {
    let next_alpha = alpha + stepsize
    let next_beta = beta - stepsize
    let lower = _f32(next_alpha * total)
    let upper = _f32(next_beta * total)
    let l = start_bin
    let r = end_bin
    while l < end_bin and csum[l] < lower { l = l + 1 }
    while r > start_bin and csum[r] > upper { r = r - 1 }
    let next_start_bin = start_bin
    let next_end_bin = end_bin
    if l - start_bin > end_bin - r {
      next_start_bin = l
      alpha = next_alpha
    } else {
      next_end_bin = r
      beta = next_beta
    }
    if next_start_bin == start_bin and next_end_bin == end_bin { continue }
    let norm = _quantization_error(hist, dst_nbins, bin_width, next_start_bin, next_end_bin)
    if norm > norm_min { break }
    norm_min = norm
    start_bin = next_start_bin
    end_bin = next_end_bin
  }
  let width = (obs.max_val - obs.min_val) / bins
  return (obs.min_val + width * start_bin, obs.min_val + width * (end_bin + 1))
}

# PyTorch's HistogramObserver (per tensor): a histogram of `bins` bins over the range
# of everything seen; calculate_qparams() searches it for the range whose quantization
# error is least (outliers get clipped) and gives that range's scale and zero point.
# Buffers: histogram, min_val, max_val (empty until the first batch).
#
# As in PyTorch 1.13, each batch's values are binned over its range truncated to
# integers (histc(x, min=int(min), max=int(max))): values outside the truncated
# range are not counted, and a range inside (-1, 1) truncates to [0, 0], which histc
# reads as the values' own range. Kept for parity: the scales are PyTorch's.
model HistogramObserver(bins=2048, upsample_rate=128, dtype=u8, qscheme="per_tensor_affine", reduce_range=false,
                        quant_min=none, quant_max=none) {
  """An observer keeping a histogram of what it sees, from which calculate_qparams() picks the range
  with the least quantization error (clipping outliers), as
  torch.ao.quantization.HistogramObserver.

  Example: let obs = quant.HistogramObserver(); obs(randn(1000)); obs.calculate_qparams()
  """
  let _checked = _check_range("HistogramObserver", dtype, quant_min, quant_max)
  bins = _check_count("HistogramObserver", "bins", bins)
  upsample_rate = _check_count("HistogramObserver", "upsample_rate", upsample_rate)
  dtype = dtype
  qscheme = _check_qscheme(qscheme, ["per_tensor_affine", "per_tensor_symmetric"])
  reduce_range = reduce_range
  quant_min = quant_min
  quant_max = quant_max
  buffer histogram = zeros([bins])
  buffer min_val = zeros([0])
  buffer max_val = zeros([0])
  forward(x) {
    if x.numel() == 0 { return x }
    no_grad {
      let v = x.detach().to(f32)
      # A first batch, or after batches that were all one value (PyTorch starts over).
      if self.min_val.numel() == 0 or self.min_val.item() == self.max_val.item() {
        self._start(v)
      } else {
        self._add(v)
      }
    }
    return x
  }
  _start(v) {
    self.min_val = v.min()
    self.max_val = v.max()
    self.histogram = _histc(v, self.bins, int(self.min_val.item()), int(self.max_val.item()))
  }
  # PyTorch's forward for a later batch, with _adjust_min_max: the old range cut into
  # bins * up cells; the combined range stretched (its max moved up) to bins * down of
  # those cells, `down` whole, so each old bin's up cells land on whole cells of the
  # new grid, from cell `start`.
  _add(v) {
    let lo = minimum(v.min(), self.min_val)
    let hi = maximum(v.max(), self.max_val)
    let cells = self.bins * self.upsample_rate
    let cell_width = (self.max_val - self.min_val) / cells
    let down = int(_ceil((hi - lo) / (self.bins * cell_width)).item())
    hi = hi + (down * (self.bins * cell_width) - (hi - lo))
    let start = _round_to_int((self.min_val - lo) / cell_width).item()
    let hist = _histc(v, self.bins, int(lo.item()), int(hi.item()))
    if lo.item() == self.min_val.item() and hi.item() == self.max_val.item() {
      hist = hist + self.histogram
    } else {
      hist = _combine_histograms(hist, self.histogram, self.upsample_rate, down, start, self.bins)
    }
    self.histogram = hist
    self.min_val = lo
    self.max_val = hi
  }
  calculate_qparams() {
    """The (scale, zero_point) of the range whose quantization error is least, as PyTorch's
    calculate_qparams.

    Example: let obs = quant.HistogramObserver(); obs(randn(1000)); obs.calculate_qparams()
    """
    if self.min_val.numel() == 0 { return _calculate_qparams(self, self.min_val, self.max_val) }
    let (lo, hi) = _histogram_search(self)
    return _calculate_qparams(self, lo, hi)
  }
}

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

# A QConfig field: a function of no arguments (or a model class) making a fresh
# observer for each layer; an observer instance would be shared by every layer.
fn _checked_maker(what, maker) {
  if not (type(maker) in ["function", "builtin", "method", "model"]) {
    let hint = " (an observer: pass a function making one, fn() = ...)" if nn._is_module(maker) else ""
    fail(f"quant.QConfig(): {what} must be a function that makes an observer, got {type(maker)}{hint}")
  }
  return maker
}

# The model argument of the quantization transforms: a model instance.
fn _checked_model(who, model) {
  if not nn._is_module(model) { fail(f"{who}: model must be a model instance, got {type(model)}") }
  return model
}

# PyTorch's fbgemm default, with 8-bit activations: a HistogramObserver for inputs
# (u8; reduce_range=false because VNNI's int8 multiply-add accumulates in 32 bits,
# docs/quantization.md), symmetric i8 weights per output channel.
let default_qconfig = QConfig(fn() = HistogramObserver(), default_weight_observer)
# The same with a MinMaxObserver for inputs: the whole observed range, no clipping.
let minmax_qconfig = QConfig(fn() = MinMaxObserver(), default_weight_observer)

model ObservedLinear(float_linear, qconfig) {
  """A Linear during calibration, computing in f32 while its qconfig's activation observer watches
  its input (prepare makes them).

  Example: quant.ObservedLinear(nn.Linear(4, 2), quant.default_qconfig)(randn(3, 4))
  """
  in_features = float_linear.in_features
  out_features = float_linear.out_features
  weight = float_linear.weight
  bias = float_linear.bias
  activation_post_process = qconfig.activation()
  weight_observer = qconfig.weight()
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
  activation_post_process = qconfig.activation()
  weight_observer = qconfig.weight()
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

# ---- model transforms --------------------------------------------------------------------

# Replaces every submodule m for which convert(m) is not none, depth first; returns the
# model (or its replacement). Each module is converted once: one held in two fields
# gets the same replacement in both, and a module that holds itself or an ancestor
# ends the walk there (Note [Module walk]). Submodules held in plain lists are not
# visited (as PyTorch's transforms skip plain Python lists).
fn swap_modules(m, convert, _done=none) {
  """Replaces every submodule m of a model for which convert(m) is not none, depth first; returns the
  model or its replacement.

  Example: quant.swap_modules(nn.Sequential([nn.Linear(4, 2), nn.ReLU()]), fn(m) = nn.Identity() if isinstance(m, nn.ReLU) else none)
  """
  if _done == none { _done = {"from": [], "to": []} }
  if m in _done["from"] { return _done["to"][_done["from"].index(m)] }
  let k = len(_done["from"])
  _done["from"].append(m)
  _done["to"].append(m)  # what a cycle back to m finds while m's children are swapped
  let r = convert(m)
  if r != none {
    _done["to"][k] = r
    return r
  }
  for (name, child) in m.named_children(remove_duplicate=false) { setattr(m, name, swap_modules(child, convert, _done)) }
  return m
}

# Post-training dynamic quantization (PyTorch's quantize_dynamic): a copy of `model`
# with every nn.Linear replaced by a DynamicQuantizedLinear; `model` is left as it
# was unless inplace. weight_observer makes the observer that picks each weight's
# scales.
fn quantize_dynamic(model, reduce_range=false, inplace=false, weight_observer=default_weight_observer) {
  """A copy of model with every nn.Linear replaced by a DynamicQuantizedLinear, as
  torch.ao.quantization.quantize_dynamic.

  Example: quant.quantize_dynamic(nn.Sequential([nn.Linear(8, 4)]))(randn(2, 8))
  """
  _checked_model("quant.quantize_dynamic()", model)
  let m = model if inplace else deepcopy(model)
  let convert = fn(l) = _dynamic_linear_from(l.weight, l.bias, weight_observer(), reduce_range) if isinstance(l, nn.Linear) else none
  return swap_modules(m, convert)
}

# Quantization-aware training: a copy of `model` (in training mode) with every
# nn.Linear replaced by a QATLinear that fake-quantizes its input (activation) and
# its weight (weight). Train it as usual, then convert() it.
fn prepare_qat(model, activation=default_dynamic_fake_quant, weight=default_per_channel_weight_fake_quant,
               inplace=false) {
  """A copy of model in training mode with every nn.Linear replaced by a QATLinear, to train and then
  convert(), as torch.ao.quantization.prepare_qat.

  Example: quant.prepare_qat(nn.Sequential([nn.Linear(8, 4)]))(randn(2, 8))
  """
  _checked_model("quant.prepare_qat()", model)
  let m = model if inplace else deepcopy(model)
  let swap = fn(l) = QATLinear(l.in_features, l.out_features, l.weight, l.bias, activation(), weight()) if isinstance(l, nn.Linear) else none
  let r = swap_modules(m, swap)
  r.train()
  return r
}

# Folds an eval-mode BatchNorm2d into the Conv2d before it (PyTorch's
# fuse_conv_bn_weights): w * gamma / sqrt(var + eps) per output channel, and the bias
# (b - mean) * gamma / sqrt(var + eps) + beta.
fn _fold_batch_norm(conv, bn) {
  no_grad {
    let inv_std = rsqrt(bn.running_var + bn.eps)
    let gamma = bn.weight.detach() if bn.weight != none else ones([bn.num_features])
    let beta = bn.bias.detach() if bn.bias != none else zeros([bn.num_features])
    let b = conv.bias.detach() if conv.bias != none else zeros([conv.out_channels])
    let w = conv.weight.detach() * (gamma * inv_std).reshape([-1, 1, 1, 1])
    conv.weight = w.contiguous().requires_grad_(true)
    conv.bias = ((b - bn.running_mean) * inv_std * gamma + beta).requires_grad_(true)
  }
}

fn _foldable(conv, bn) = isinstance(conv, nn.Conv2d) and isinstance(bn, nn.BatchNorm2d) and bn.track_running_stats and not bn.training

# Every Sequential of the model once (Note [Module walk]); a conv folded already (one
# shared by two Sequentials) is an error, since folding it again would be wrong.
fn _fuse_conv_bn_in(model) {
  let folded = []
  for m in model.modules() {
    if isinstance(m, nn.Sequential) {
      let layers = m.named_children(remove_duplicate=false)
      for i in range(len(layers) - 1) {
        let (name, bn) = layers[i + 1]
        let conv = layers[i][1]
        if _foldable(conv, bn) {
          assert(not (conv in folded), f"quant.fuse_conv_bn: the Conv2d before '{name}' was folded already (it is shared by two places); fuse a model whose convs are not shared")
          _fold_batch_norm(conv, bn)
          folded.append(conv)
          setattr(m, name, nn.Identity())
        }
      }
    }
  }
}

# For inference: a copy of `model` in eval mode in which every Conv2d directly followed
# by a BatchNorm2d inside an nn.Sequential computes both (the batch norm folded into
# its weight and bias; the BatchNorm2d becomes an nn.Identity, so the layers keep
# their indices). Batch norms that normalize with each batch's statistics
# (track_running_stats=false) stay. Quantization then sees the folded weights.
fn fuse_conv_bn(model, inplace=false) {
  """A copy of model in eval mode in which every Conv2d followed by a BatchNorm2d in a Sequential has
  the batch norm folded into its weight and bias, as torch.ao.quantization.fuse_modules.

  Example: quant.fuse_conv_bn(nn.Sequential([nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4)]))
  """
  _checked_model("quant.fuse_conv_bn()", model)
  let m = model if inplace else deepcopy(model)
  m.eval()
  _fuse_conv_bn_in(m)
  return m
}

# Static quantization, step 1: a copy of `model` in eval mode with every nn.Linear and
# nn.Conv2d replaced by an ObservedLinear / ObservedConv2d that watches its input with
# qconfig.activation() (and will quantize its weight with qconfig.weight()). Run
# calibration batches through it (calibrate(), or calls under no_grad), then convert().
fn prepare(model, qconfig=default_qconfig, inplace=false) {
  """A copy of model in eval mode with every nn.Linear and nn.Conv2d replaced by an observed layer
  that watches its input, to calibrate and then convert(), as torch.ao.quantization.prepare.

  Example: quant.prepare(nn.Sequential([nn.Linear(8, 4)]))
  """
  _checked_model("quant.prepare()", model)
  if not isinstance(qconfig, QConfig) { fail(f"quant.prepare(): qconfig must be a quant.QConfig, got {type(qconfig)}") }
  let m = model if inplace else deepcopy(model)
  let swap = fn(l) = _observed(l, qconfig)
  let r = swap_modules(m, swap)
  r.eval()
  return r
}

fn _observed(l, qconfig) {
  if isinstance(l, nn.Linear) { return ObservedLinear(l, qconfig) }
  if isinstance(l, nn.Conv2d) { return ObservedConv2d(l, qconfig) }
  return none
}

fn calibrate(prepared, batches) {
  """Runs batches (tensors or (input, target) pairs) through a prepared model without gradients so
  that its observers see them; returns the model.

  Example: quant.calibrate(quant.prepare(nn.Sequential([nn.Linear(8, 4)])), [randn(16, 8)])
  """
  _checked_model("quant.calibrate()", prepared)
  if type(batches) == "tensor" { fail("quant.calibrate(): batches must be a list of batches, got one tensor (wrap it: [x])") }
  no_grad {
    for b in batches { prepared(b[0] if type(b) == "tuple" or type(b) == "list" else b) }
  }
  return prepared
}

# The paths of the observed layers whose input observer saw nothing.
fn _uncalibrated(model) {
  let out = []
  for (path, m) in model.named_modules() {
    if (isinstance(m, ObservedLinear) or isinstance(m, ObservedConv2d)) and m.activation_post_process.min_val.numel() == 0 {
      out.append(path if path != "" else "(the model itself)")
    }
  }
  return out
}

fn _convert_module(l, reduce_range) {
  if isinstance(l, QATLinear) { return _convert_qat_linear(l, reduce_range) }
  if isinstance(l, ObservedLinear) { return _quantized_linear_from(l) }
  if isinstance(l, ObservedConv2d) { return _quantized_conv2d_from(l) }
  return none
}

# The int8 model, in eval mode: every QATLinear of a QAT model becomes a
# DynamicQuantizedLinear whose weight is quantized with the scales its weight fake
# quantization trained with; every ObservedLinear / ObservedConv2d of a prepared and
# calibrated model becomes a QuantizedLinear / QuantizedConv2d with the input scale
# and zero point its observer chose. reduce_range applies to the dynamic layers.
fn convert(model, reduce_range=false, inplace=false) {
  """The int8 model in eval mode: QATLinear layers become DynamicQuantizedLinear, calibrated observed
  layers QuantizedLinear and QuantizedConv2d, as torch.ao.quantization.convert.

  Example: quant.convert(quant.calibrate(quant.prepare(nn.Sequential([nn.Linear(8, 4)])), [randn(16, 8)]))
  """
  _checked_model("quant.convert()", model)
  let missing = _uncalibrated(model)
  if len(missing) > 0 {
    assert(false, f"quant.convert: {len(missing)} observed layer(s) never saw a calibration batch ({', '.join(missing)}): " +
                  "run batches through the prepared model (quant.calibrate(prepared, batches)) before convert")
  }
  let m = model if inplace else deepcopy(model)
  let r = swap_modules(m, fn(l) = _convert_module(l, reduce_range))
  r.eval()
  return r
}

# A QATLinear's int8 module: its weight fake quantization's observer gives the scales
# (it saw the weight at every training step; one more look at the final weight).
fn _convert_qat_linear(l, reduce_range) {
  let observer = l.weight_fake_quant.activation_post_process
  return _dynamic_linear_from(l.weight, l.bias, observer, reduce_range)
}

# Post-training static quantization in one call (PyTorch's quantize, eager mode): a
# copy of `model` with batch norms folded into their convs (fuse_conv_bn), prepared
# with qconfig, calibrated on calibration_batches (tensors or (input, target) pairs:
# a few batches of training data), and converted to int8.
fn quantize_static(model, calibration_batches, qconfig=default_qconfig) {
  """Post-training static quantization in one call: fuse_conv_bn, prepare with qconfig, calibrate on
  calibration_batches and convert, as torch.ao.quantization.quantize.

  Example: quant.quantize_static(nn.Sequential([nn.Linear(8, 4)]), [randn(16, 8)])(randn(2, 8))
  """
  _checked_model("quant.quantize_static()", model)
  let prepared = prepare(fuse_conv_bn(model), qconfig, inplace=true)
  calibrate(prepared, calibration_batches)
  return convert(prepared, inplace=true)
}

# After loading a state into a statically quantized model (load(path, into=model) or
# model.load_state_dict(d)), makes each quantized layer's forward use the loaded input
# scale and zero point (forward reads plain numbers, the state holds them in
# input_qparams). Returns the model.
fn sync_input_qparams(model) {
  """Makes each quantized layer's forward use the input scale and zero point of a state just loaded
  into the model; returns the model.

  Example: quant.sync_input_qparams(quant.quantize_static(nn.Sequential([nn.Linear(8, 4)]), [randn(16, 8)]))
  """
  for m in model.modules() {
    if isinstance(m, QuantizedLinear) or isinstance(m, QuantizedConv2d) {
      let (s, z) = m.input_qparams.tolist()
      m.input_scale = s
      m.input_zero_point = int(z)
    }
  }
  return model
}

fn model_size_bytes(model) {
  """The bytes of a model's parameters and buffers as stored, what quantization shrinks.

  Example: quant.model_size_bytes(nn.Linear(8, 4))
  """
  let n = 0
  let sd = model.state_dict()
  for k in sd { n = n + sd[k].numel() * sd[k].dtype.itemsize }
  return n
}
