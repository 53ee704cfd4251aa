# _nn_conv: nn.Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d and ConvTranspose3d with
# PyTorch's arguments, init and state_dict keys (weight, bias). nn re-exports them;
# import nn, not this module.
#
# As PyTorch's, a convolution's padding is an int, one per spatial dim, "valid" (none)
# or "same" (stride 1; the output as long as the input, an odd total's extra cell after
# the end), and padding_mode "zeros", "reflect", "replicate" or "circular": other than
# "zeros", the layer pads x itself by pad()'s mode and convolves with no padding. Every
# layer takes an input without its batch dim ([C, ...]) as a batch of one.
import _nn_init
import _nn_basic

let parameter = _nn_init.parameter
let _default_init = _nn_basic._default_init

let _padding_modes = ["zeros", "reflect", "replicate", "circular"]

let _per_dim = _nn_init._per_dim

# The padding argument checked: "same" or "valid" as given, else ints per dim.
fn _conv_padding(name, padding, stride) {
  if type(padding) != "str" { return _per_dim(padding, len(stride)) }
  assert(padding == "same" or padding == "valid",
         f"{name}: padding must be an int, a list of ints, \"same\" or \"valid\", got \"{padding}\"")
  for s in stride {
    assert(padding != "same" or s == 1, f"{name}: padding=\"same\" needs stride 1, got stride {stride}")
  }
  return padding
}

# pad()'s list for a padding_mode other than "zeros": [before, after] per spatial dim,
# the last dim first.
fn _reversed_padding(padding, kernel_size, dilation) {
  let out = []
  for d in range(len(kernel_size) - 1, -1, -1) {
    if padding == "valid" {
      out = out + [0, 0]
    } elif padding == "same" {
      let total = dilation[d] * (kernel_size[d] - 1)
      out = out + [total // 2, total - total // 2]
    } else {
      out = out + [padding[d], padding[d]]
    }
  }
  return out
}

# An int or n ints, each at least `lowest`, as a list; else an error naming the layer
# and the argument (kernel_size=-3 was "zeros(): negative size -3" from inside the init).
fn _conv_sizes(name, what, v, n, lowest) {
  let sizes = _per_dim(v, n) if type(v) in ["int", "list", "tuple"] else none
  let ok = sizes != none and len(sizes) == n
  if ok {
    for s in sizes { ok = ok and type(s) == "int" and s >= lowest }
  }
  if not ok {
    fail(f"{name}: argument '{what}' must be an int or {n} ints, each >= {lowest}, got {repr(v) if type(v) in ['int', 'float', 'str', 'none', 'list', 'tuple'] else type(v)}")
  }
  return sizes
}

# The arguments a convolution layer checks when it is made (a lazy one too, before its
# first call knows in_channels).
fn _check_conv_args(name, n, kernel_size, stride, padding, dilation, groups) {
  _conv_sizes(name, "kernel_size", kernel_size, n, 1)
  _conv_sizes(name, "stride", stride, n, 1)
  _conv_sizes(name, "dilation", dilation, n, 1)
  if type(padding) != "str" { _conv_sizes(name, "padding", padding, n, 0) }
  if type(groups) != "int" or groups < 1 { fail(f"{name}: argument 'groups' must be an int >= 1, got {repr(groups)}") }
}

# The fields every convolution layer has (PyTorch's names), its weight and bias with
# PyTorch's init. A transposed convolution's weight is [in, out / groups, k...].
fn _conv_fields(m, name, n, in_channels, out_channels, kernel_size, stride, padding, dilation, groups, bias,
                padding_mode, transposed, output_padding) {
  _nn_init._size_arg(name, "in_channels", in_channels)
  _nn_init._size_arg(name, "out_channels", out_channels)
  _check_conv_args(name, n, kernel_size, stride, padding, dilation, groups)
  if transposed { _conv_sizes(name, "output_padding", output_padding, n, 0) }
  assert(in_channels % groups == 0 and out_channels % groups == 0,
         f"{name}: in_channels and out_channels must be divisible by groups")
  assert(padding_mode in _padding_modes,
         f"{name}: padding_mode must be one of {_padding_modes}, got \"{padding_mode}\"")
  assert(not transposed or padding_mode == "zeros", f"{name}: only padding_mode \"zeros\" is supported, as in PyTorch")
  m.in_channels = in_channels
  m.out_channels = out_channels
  m.kernel_size = _per_dim(kernel_size, n)
  m.stride = _per_dim(stride, n)
  m.padding = _conv_padding(name, padding, m.stride) if not transposed else _per_dim(padding, n)
  m.dilation = _per_dim(dilation, n)
  m.output_padding = _per_dim(output_padding, n)
  m.groups = groups
  m.padding_mode = padding_mode
  m._reversed_padding_repeated_twice = _reversed_padding(m.padding, m.kernel_size, m.dilation)
  let shape = [in_channels, out_channels // groups] if transposed else [out_channels, in_channels // groups]
  m.weight = parameter(shape + m.kernel_size)
  m.bias = parameter([out_channels]) if bias else none
  _default_init(m.weight, m.bias)
  return m
}

# conv (conv1d, conv2d or conv3d) of x by the layer m of n spatial dims.
fn _conv_forward(m, x, conv, n) {
  if m.padding_mode == "zeros" {
    return conv(x, m.weight, m.bias, stride=m.stride, padding=m.padding, dilation=m.dilation, groups=m.groups)
  }
  if x.ndim == n + 1 { return _conv_forward(m, x.unsqueeze(0), conv, n).squeeze(0) }
  return conv(pad(x, m._reversed_padding_repeated_twice, mode=m.padding_mode), m.weight, m.bias,
              stride=m.stride, padding=0, dilation=m.dilation, groups=m.groups)
}

model Conv1d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true,
             padding_mode="zeros", device=none, dtype=none) {
  "1-D convolution over [N, C, L] (weight [out_channels, in_channels / groups, k]). Example: nn.Conv1d(8, 16, 5, padding=\"same\")"
  let _f = _conv_fields(self, "Conv1d", 1, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                        bias, padding_mode, false, 0)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = _conv_forward(self, x, conv1d, 1)
}

model Conv2d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true,
             padding_mode="zeros", device=none, dtype=none) {
  "2-D convolution over [N, C, H, W] (weight [out_channels, in_channels / groups, kH, kW]). Example: nn.Conv2d(3, 16, 3, padding=1)"
  let _f = _conv_fields(self, "Conv2d", 2, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                        bias, padding_mode, false, 0)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = _conv_forward(self, x, conv2d, 2)
}

model Conv3d(in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1, groups=1, bias=true,
             padding_mode="zeros", device=none, dtype=none) {
  "3-D convolution over [N, C, D, H, W]. Example: nn.Conv3d(1, 4, 3)"
  let _f = _conv_fields(self, "Conv3d", 3, in_channels, out_channels, kernel_size, stride, padding, dilation, groups,
                        bias, padding_mode, false, 0)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x) = _conv_forward(self, x, conv3d, 3)
}

# The output_padding that makes a transposed convolution's output output_size (its
# last n values: the spatial dims; [N, C, ...] may come first), as PyTorch's
# _output_padding: each size must lie between the smallest output and stride - 1
# more.
fn _output_padding(m, name, x, output_size, n) {
  if output_size == none { return m.output_padding }
  # The sizes below are read off x's last n dims, which are spatial only at these ranks.
  assert(type(x) == "tensor" and (x.ndim == n + 1 or x.ndim == n + 2),
         f"{name}: expected a {n + 1}-D or {n + 2}-D (batched) input, got " + (f"shape {list(x.shape)}" if type(x) == "tensor" else type(x)))
  assert(type(output_size) in ["list", "tuple"], f"{name}: output_size must be a list of ints, got {type(output_size)}")
  let size = list(output_size)
  assert(len(size) >= n and len(size) <= n + 2, f"{name}: output_size must have {n} or {n + 2} elements, got {size}")
  size = size[len(size) - n:]
  let pads = []
  for d in range(n) {
    assert(type(size[d]) == "int", f"{name}: output_size must be a list of ints, got {size}")
    let extent = x.shape[x.ndim - n + d]
    let smallest = (extent - 1) * m.stride[d] - 2 * m.padding[d] + m.dilation[d] * (m.kernel_size[d] - 1) + 1
    let largest = smallest + m.stride[d] - 1
    assert(size[d] >= smallest and size[d] <= largest,
           f"{name}: requested an output size of {size}, but dim {d} can only be {smallest} to {largest} for an input of {list(x.shape)[x.ndim - n:]}")
    pads.append(size[d] - smallest)
  }
  return pads
}

# The adjoint of Conv1d in its input: weight [in_channels, out_channels / groups, k];
# the output is (L - 1) * stride - 2 * padding + dilation * (k - 1) + output_padding + 1
# long, or output_size.
model ConvTranspose1d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                      bias=true, dilation=1, padding_mode="zeros", device=none, dtype=none) {
  "1-D transposed convolution (the gradient of Conv1d) over [N, C, L]. Example: nn.ConvTranspose1d(16, 8, 4, stride=2)"
  let _f = _conv_fields(self, "ConvTranspose1d", 1, in_channels, out_channels, kernel_size, stride, padding, dilation,
                        groups, bias, padding_mode, true, output_padding)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x, output_size=none) = conv_transpose1d(
      x, self.weight, self.bias, stride=self.stride, padding=self.padding,
      output_padding=_output_padding(self, "ConvTranspose1d", x, output_size, 1), groups=self.groups,
      dilation=self.dilation)
}

# The adjoint of Conv2d in its input: weight [in_channels, out_channels / groups, kH, kW].
model ConvTranspose2d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                      bias=true, dilation=1, padding_mode="zeros", device=none, dtype=none) {
  "2-D transposed convolution (the gradient of Conv2d) over [N, C, H, W]. Example: nn.ConvTranspose2d(16, 8, 4, stride=2, padding=1)"
  let _f = _conv_fields(self, "ConvTranspose2d", 2, in_channels, out_channels, kernel_size, stride, padding, dilation,
                        groups, bias, padding_mode, true, output_padding)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x, output_size=none) = conv_transpose2d(
      x, self.weight, self.bias, stride=self.stride, padding=self.padding,
      output_padding=_output_padding(self, "ConvTranspose2d", x, output_size, 2), groups=self.groups,
      dilation=self.dilation)
}

# The adjoint of Conv3d in its input: weight [in_channels, out_channels / groups, kD, kH, kW]
# (conv_transpose3d, interp/builtins/composites/composite_spatial.cpp).
model ConvTranspose3d(in_channels, out_channels, kernel_size, stride=1, padding=0, output_padding=0, groups=1,
                      bias=true, dilation=1, padding_mode="zeros", device=none, dtype=none) {
  "3-D transposed convolution (the gradient of Conv3d) over [N, C, D, H, W]. Example: nn.ConvTranspose3d(8, 4, 2, stride=2)"
  let _f = _conv_fields(self, "ConvTranspose3d", 3, in_channels, out_channels, kernel_size, stride, padding, dilation,
                        groups, bias, padding_mode, true, output_padding)
  let _fk = _nn_init._factory(self, device, dtype)
  forward(x, output_size=none) = conv_transpose3d(
      x, self.weight, self.bias, stride=self.stride, padding=self.padding,
      output_padding=_output_padding(self, "ConvTranspose3d", x, output_size, 3), groups=self.groups,
      dilation=self.dilation)
}
