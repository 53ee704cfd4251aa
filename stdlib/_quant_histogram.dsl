# _quant_histogram: quant.HistogramObserver, PyTorch 1.13's step for step, and the
# floor, cumsum and histc it is made of; the checks and the qparams formulas it shares
# with the other observers are stdlib/_quant_observers.dsl's. quant re-exports it;
# import quant, not this module.
import _quant_observers

let _calculate_qparams = _quant_observers._calculate_qparams
let _check_count = _quant_observers._check_count
let _observable = _quant_observers._observable
let _check_qscheme = _quant_observers._check_qscheme
let _check_range = _quant_observers._check_range
let _round_to_int = _quant_observers._round_to_int

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
    if not _observable(type(self), x) { return x }
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
