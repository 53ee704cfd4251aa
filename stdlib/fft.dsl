# fft: torch.fft's functions that a real dtype can hold (round 8,
# tests/stdlib/test_gaps_vs_torch8_linalg.dsl): fftfreq, rfftfreq, fftshift and
# ifftshift. The transforms themselves (fft, ifft, rfft, irfft, fft2, fftn, hfft, ...)
# give or take complex tensors, and nabla has no complex dtype: each is an error that
# says so (Note [No complex dtype]).
#
# Note [No complex dtype]
# nabla's tensors are real (f16, bf16, f32, f64 and the integers); a transform's result
# would need a complex dtype through every op, the autograd rules and the kernels. Until
# then the torch.fft names exist so that a program meets a clear error at its call,
# rather than "module 'fft' has no attribute".
fn _spacing(who, n, d) {
  if type(n) != "int" or n < 0 { fail(f"fft.{who}: n must be an int of at least 0, got {repr(n)}") }
  if not (type(d) in ["int", "float"]) or d == 0 { fail(f"fft.{who}: d must be a nonzero number, got {repr(d)}") }
}

fn _float_dtype(who, dtype) {
  if dtype == none { return f32 }
  if not (dtype in [f16, bf16, f32, f64]) { fail(f"fft.{who}: dtype must be a floating dtype, got {repr(dtype)}") }
  return dtype
}

fn fftfreq(n, d=1.0, dtype=none, device=none, requires_grad=false) {
  """The sample frequencies of an n-point transform with sample spacing d: [0, 1, ..., (n - 1) // 2,
  -(n // 2), ..., -1] / (d n), as torch.fft.fftfreq.

  Example: fft.fftfreq(5, d=0.5)
  """
  _spacing("fftfreq", n, d)
  let dt = _float_dtype("fftfreq", dtype)
  let k = arange(n, dtype=f64)
  let f = where(k <= (n - 1) // 2, k, k - n) / (d * n) if n > 0 else k
  return f.to(dt, device=device).requires_grad_(requires_grad)
}

fn rfftfreq(n, d=1.0, dtype=none, device=none, requires_grad=false) {
  """The sample frequencies of rfft's n // 2 + 1 outputs: [0, 1, ..., n // 2] / (d n), as torch.fft.rfftfreq.

  Example: fft.rfftfreq(6)
  """
  _spacing("rfftfreq", n, d)
  let dt = _float_dtype("rfftfreq", dtype)
  let f = arange(n // 2 + 1, dtype=f64) / (d * n) if n > 0 else zeros([0], dtype=f64)
  return f.to(dt, device=device).requires_grad_(requires_grad)
}

# the dims a shift moves (every dim when none) and each one's shift
fn _shifts(who, input, dim, inverse) {
  if type(input) != "tensor" { fail(f"fft.{who}: input must be a tensor, got {type(input)}") }
  let dims = list(range(input.ndim)) if dim == none else ([dim] if type(dim) == "int" else list(dim))
  if not all([type(d) == "int" and d >= -input.ndim and d < input.ndim for d in dims]) {
    fail(f"fft.{who}: dim must be none, a dim or a list of dims of input (input is {input.ndim}-D), got {repr(dim)}")
  }
  let shifts = [(input.shape[d] + 1) // 2 if inverse else input.shape[d] // 2 for d in dims]
  return (shifts, dims)
}

fn fftshift(input, dim=none) {
  """input rolled by half its size along dim (every dim when none), the zero frequency to the middle, as
  torch.fft.fftshift. Differentiable.

  Example: fft.fftshift(fft.fftfreq(5))
  """
  let (shifts, dims) = _shifts("fftshift", input, dim, false)
  return input.roll(shifts, dims) if len(dims) > 0 else input
}

fn ifftshift(input, dim=none) {
  """fftshift's inverse (the two differ for an odd size), as torch.fft.ifftshift. Differentiable.

  Example: fft.ifftshift(fft.fftshift(arange(5.0)))
  """
  let (shifts, dims) = _shifts("ifftshift", input, dim, true)
  return input.roll(shifts, dims) if len(dims) > 0 else input
}

fn _complex(who) = fail(f"fft.{who}: the transform gives or takes complex tensors, and nabla has no complex dtype (Note [No complex dtype] in stdlib/fft.dsl); fft.fftfreq, rfftfreq, fftshift and ifftshift are available")
fn fft(input, n=none, dim=-1, norm=none) {
  """torch.fft.fft, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("fft")
}

fn ifft(input, n=none, dim=-1, norm=none) {
  """torch.fft.ifft, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("ifft")
}

fn rfft(input, n=none, dim=-1, norm=none) {
  """torch.fft.rfft, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("rfft")
}

fn irfft(input, n=none, dim=-1, norm=none) {
  """torch.fft.irfft, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("irfft")
}

fn hfft(input, n=none, dim=-1, norm=none) {
  """torch.fft.hfft, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("hfft")
}

fn ihfft(input, n=none, dim=-1, norm=none) {
  """torch.fft.ihfft, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("ihfft")
}

fn fft2(input, s=none, dim=[-2, -1], norm=none) {
  """torch.fft.fft2, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("fft2")
}

fn ifft2(input, s=none, dim=[-2, -1], norm=none) {
  """torch.fft.ifft2, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("ifft2")
}

fn rfft2(input, s=none, dim=[-2, -1], norm=none) {
  """torch.fft.rfft2, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("rfft2")
}

fn irfft2(input, s=none, dim=[-2, -1], norm=none) {
  """torch.fft.irfft2, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("irfft2")
}

fn fftn(input, s=none, dim=none, norm=none) {
  """torch.fft.fftn, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("fftn")
}

fn ifftn(input, s=none, dim=none, norm=none) {
  """torch.fft.ifftn, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("ifftn")
}

fn rfftn(input, s=none, dim=none, norm=none) {
  """torch.fft.rfftn, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("rfftn")
}

fn irfftn(input, s=none, dim=none, norm=none) {
  """torch.fft.irfftn, an error here: its result or input is complex, and nabla has no complex dtype (Note [No
  complex dtype]); the frequencies and shifts are available.

  Example: fft.fftshift(fft.fftfreq(8))
  """
  _complex("irfftn")
}
