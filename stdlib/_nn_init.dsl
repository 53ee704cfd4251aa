# _nn_init: the helpers and initializers every nn layer file shares (nn.parameter,
# nn.uniform_, nn.kaiming_uniform_, ...). nn re-exports the public ones; import nn, not
# this module.
let __name__ = "nn.init"  # the name messages show (Module::shown_name)
import math
import cuda

# ---- helpers ----------------------------------------------------------------------

# v for each of n dims (a kernel size, a stride, ...): an int for all of them, or a list.
fn _per_dim(v, n) = [v] * n if type(v) == "int" else list(v)

fn _shape(t) = list(t.shape)

# A tensor argument of a layer function, or an error naming the function and the
# argument (5 was "int has no attribute 'shape'" from inside the library).
fn _tensor_arg(who, what, v) {
  if type(v) != "tensor" { fail(f"{who}: argument '{what}' must be a tensor, got {type(v)}") }
  return v
}

# A layer's size argument (features, channels, embeddings, a normalized dim): an int
# >= 0, as PyTorch's (0 makes an empty layer); anything else is an error that names the
# layer and the argument, not the zeros() or ones() that would have failed inside it.
fn _size_arg(who, what, v) {
  if type(v) != "int" or v < 0 { fail(f"{who}: argument '{what}' must be an int >= 0, got {repr(v)}") }
  return v
}

# Each dim of normalized_shape (an int or a list of them), as a list.
fn _shape_arg(who, what, v) {
  let dims = [v] if type(v) == "int" else (list(v) if type(v) in ["list", "tuple"] else [v])
  for d in dims { _size_arg(who, what, d) }
  return dims
}

# ---- factory arguments ------------------------------------------------------------
# Note [Factory arguments]: every layer that makes parameters or buffers takes
# PyTorch's factory arguments device=none, dtype=none, last (torch.nn's factory_kwargs).
# The layer makes and initializes its tensors as it always has (f32 on the CPU, so the
# default is unchanged to the bit) and its last statement, _factory(self, device,
# dtype), converts them: m.to(dtype) converts the floating parameters and buffers only
# (num_batches_tracked stays i64, as PyTorch's), then m.to(device) moves them. So no
# initializer needs a dtype, and a layer of layers (MultiheadAttention's out_proj) is
# converted whole. An f64 layer's weights are drawn from PyTorch's distribution at f32's
# resolution (nn.Transformer's matrices, drawn again once its layers are made, in
# f64's). The transformer layers pass the arguments on to their sublayers instead,
# as PyTorch's, so a module the user hands in (custom_encoder, an activation) is not
# converted; they check the arguments first under their own name.

# One of the arguments' shown values: a number, str, dtype or none as written, else its type.
# A builtin too (dtype=bool names the function bool, shown as <builtin bool>, not "builtin").
fn _shown(v) = repr(v) if type(v) in ["int", "float", "bool", "str", "none", "dtype", "builtin"] else type(v)

# Checks device and dtype for the layer `who`: each error names the layer and the
# argument, at the user's line (not to()'s or a GPU's message from inside the layer).
fn _check_factory(who, device, dtype) {
  if dtype != none and not (type(dtype) == "dtype" and dtype.is_floating_point) {
    fail(f"{who}: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got {_shown(dtype)}")
  }
  if device == none or device == "cpu" { return none }
  # "cuda:N" with N of 1 to 3 digits, as to()'s parser (tensor/device.hpp) takes it
  let ok = type(device) == "str" and (device == "cuda" or (device.startswith("cuda:") and device[5:].isdigit() and len(device) <= 8))
  if not ok { fail(f"{who}: argument 'device' must be \"cpu\", \"cuda\", \"cuda:N\" or none, got {_shown(device)}") }
  let index = 0 if device == "cuda" else int(device[5:])
  let count = cuda.device_count()
  if count == 0 {
    fail(f"{who}: argument 'device' is {repr(device)}, but this machine has no GPU (cuda.is_available() is false); pass device=\"cpu\" or leave it out")
  }
  if index >= count { fail(f"{who}: argument 'device' is {repr(device)}, but this machine has {count} GPU(s): cuda:0 to cuda:{count - 1}") }
}

# The layer m's tensors in dtype and on device (Note [Factory arguments]); returns m.
fn _factory(m, device, dtype) {
  _check_factory(type(m), device, dtype)
  if dtype != none { m.to(dtype) }
  if device != none { m.to(device) }
  return m
}

fn _prod(xs) {
  let n = 1
  for x in xs { n = n * x }
  return n
}

# A new parameter: an f32 tensor of `shape` that requires grad (zeros until an
# initializer fills it).
fn parameter(shape) {
  "A new parameter: an f32 tensor of shape, zeros, that requires grad. Example: let w = nn.parameter([4, 3])"
  return zeros(shape, requires_grad=true)
}

# PyTorch's nn.Parameter(data, requires_grad=True): data as a leaf tensor that requires
# grad and shares data's memory, so that a model field holding it is a parameter.
fn Parameter(data=none, requires_grad=true) {
  "data (an empty tensor when none) as a leaf that requires grad, sharing its memory, as torch.nn.Parameter. Example: nn.Parameter(zeros([1, 1, 8]))"
  let t = empty([0]) if data == none else data
  assert(type(t) == "tensor", f"nn.Parameter: data must be a tensor, got {type(t)}")
  assert(type(requires_grad) == "bool", f"nn.Parameter: requires_grad must be true or false, got {type(requires_grad)}")
  return t.detach().requires_grad_(requires_grad)
}

# ---- initializers (in place, under no_grad; each returns its tensor) -----------------

# (fan_in, fan_out) of a weight: dim 1 and dim 0 times the receptive field.
fn calculate_fan_in_and_fan_out(t) {
  "The (fan_in, fan_out) of a weight: dim 1 and dim 0 times the receptive field. Example: nn.calculate_fan_in_and_fan_out(zeros([8, 4, 3, 3]))"
  let s = _shape(t)
  if len(s) < 2 { assert(false, "fan in and fan out need a tensor with at least 2 dims") }
  let receptive = _prod(s[2:])
  return (s[1] * receptive, s[0] * receptive)
}

# PyTorch's linear_fns: the layers whose gain is 1 (conv1d was an error, as every
# name but conv2d of these).
let _LINEAR_GAIN = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
                    "sigmoid"]

fn calculate_gain(nonlinearity, param=none) {
  "PyTorch's recommended gain for a nonlinearity (linear, the conv and conv_transpose names, sigmoid, tanh, relu, leaky_relu, selu). Example: nn.calculate_gain('relu')"
  if nonlinearity in _LINEAR_GAIN { return 1.0 }
  if nonlinearity == "tanh" { return 5.0 / 3.0 }
  if nonlinearity == "relu" { return math.sqrt(2.0) }
  if nonlinearity == "leaky_relu" {
    if param != none and not (type(param) in ["int", "float"]) {
      fail(f"calculate_gain(): negative_slope {repr(param)} is not a valid number")
    }
    let slope = 0.01 if param == none else param
    return math.sqrt(2.0 / (1.0 + slope * slope))
  }
  if nonlinearity == "selu" { return 0.75 }
  fail(f"calculate_gain(): unsupported nonlinearity {repr(nonlinearity)}")
}

# fan_in or fan_out as PyTorch's _calculate_correct_fan; another mode is an error
# (anything but "fan_in" silently meant fan_out).
fn _fan(t, mode, who="nn.init") {
  if not (mode in ["fan_in", "fan_out"]) { fail(f"{who}: argument 'mode' must be \"fan_in\" or \"fan_out\", got {repr(mode)}") }
  let f = calculate_fan_in_and_fan_out(t)
  return f[0] if mode == "fan_in" else f[1]
}

fn uniform_(t, a=0.0, b=1.0) {
  "Fills t with values drawn from U(a, b), in place under no_grad; returns t. Example: nn.uniform_(w, -0.1, 0.1)"
  no_grad { t.copy_(rand(_shape(t), dtype=t.dtype) * (b - a) + a) }
  return t
}

fn normal_(t, mean=0.0, std=1.0) {
  "Fills t with values drawn from N(mean, std^2), in place under no_grad; returns t. Example: nn.normal_(w, std=0.02)"
  no_grad { t.copy_(randn(_shape(t), dtype=t.dtype) * std + mean) }
  return t
}

# N(mean, std^2) truncated to [a, b], as PyTorch's trunc_normal_: every value outside
# is drawn again until it falls inside (the truncated normal exactly; each pass keeps
# at least the interval's mass, so few passes are needed unless [a, b] is far out).
fn trunc_normal_(t, mean=0.0, std=1.0, a=-2.0, b=2.0) {
  "Fills t from N(mean, std^2) truncated to [a, b], in place under no_grad; returns t. Example: nn.init.trunc_normal_(w, std=0.02)"
  assert(a < b, f"trunc_normal_(): a ({a}) must be below b ({b})")
  no_grad {
    let x = randn(_shape(t), dtype=t.dtype) * std + mean
    let outside = (x < a) | (x > b)
    let passes = 0
    while outside.any().item() {
      assert(passes < 1000, f"trunc_normal_(): [{a}, {b}] holds almost none of N({mean}, {std}^2)")
      x = where(outside, randn(_shape(t), dtype=t.dtype) * std + mean, x)
      outside = (x < a) | (x > b)
      passes = passes + 1
    }
    t.copy_(x)
  }
  return t
}

fn constant_(t, val) {
  "Fills t with val, in place under no_grad; returns t. Example: nn.constant_(b, 0.1)"
  no_grad { t.fill_(val) }
  return t
}

fn zeros_(t) {
  "Fills t with zeros, in place under no_grad; returns t. Example: nn.zeros_(b)"
  return constant_(t, 0.0)
}
fn ones_(t) {
  "Fills t with ones, in place under no_grad; returns t. Example: nn.ones_(gamma)"
  return constant_(t, 1.0)
}

fn kaiming_uniform_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu") {
  "He initialization from a uniform distribution, as PyTorch's. Example: nn.kaiming_uniform_(w, nonlinearity='relu')"
  if t.numel() == 0 { return t }  # as PyTorch's: a no-op (its fan may be 0: nn.Linear(0, 3))
  let std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode, "kaiming_uniform_()"))
  let bound = math.sqrt(3.0) * std
  return uniform_(t, -bound, bound)
}

fn kaiming_normal_(t, a=0.0, mode="fan_in", nonlinearity="leaky_relu") {
  "He initialization from a normal distribution, as PyTorch's. Example: nn.kaiming_normal_(w, mode='fan_out')"
  if t.numel() == 0 { return t }  # as PyTorch's: a no-op
  return normal_(t, 0.0, calculate_gain(nonlinearity, a) / math.sqrt(_fan(t, mode, "kaiming_normal_()")))
}

fn xavier_uniform_(t, gain=1.0) {
  "Glorot initialization from a uniform distribution, as PyTorch's. Example: nn.xavier_uniform_(w)"
  let f = calculate_fan_in_and_fan_out(t)
  let bound = gain * math.sqrt(6.0 / (f[0] + f[1]))
  return uniform_(t, -bound, bound)
}

fn xavier_normal_(t, gain=1.0) {
  "Glorot initialization from a normal distribution, as PyTorch's. Example: nn.xavier_normal_(w, gain=1.0)"
  let f = calculate_fan_in_and_fan_out(t)
  return normal_(t, 0.0, gain * math.sqrt(2.0 / (f[0] + f[1])))
}

# ---- structured initializers (nn.init.eye_, dirac_, orthogonal_, sparse_) ---------
# PyTorch's, with its argument checks. The random ones draw from nabla's generator,
# whose stream is not PyTorch's: the same seed gives other numbers with PyTorch's
# distribution (tests compare orthogonality and statistics).

fn _dims_check(who, t, allowed) {
  _tensor_arg(who, "tensor", t)
  if not (t.dim() in allowed) {
    let shown = str(allowed[0]) if len(allowed) == 1 else ", ".join([str(d) for d in allowed[:-1]]) + f" or {allowed[-1]}"
    fail(f"{who}: only tensors with {shown} dims are supported, got a tensor of shape {_shape(t)}")
  }
}

fn eye_(tensor) {
  "Fills the 2-D tensor with the identity matrix (ones on the diagonal, zeros elsewhere), in place under no_grad, as torch.nn.init.eye_; returns it. Example: nn.init.eye_(zeros([3, 4]))"
  _dims_check("eye_()", tensor, [2])
  no_grad { tensor.copy_(eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype)) }
  return tensor
}

fn dirac_(tensor, groups=1) {
  "Fills the 3-, 4- or 5-D convolution weight with the Dirac delta (each of the first min(out/groups, in) channels of each group passes its input channel through at the kernel's centre), in place under no_grad, as torch.nn.init.dirac_. Example: nn.init.dirac_(zeros([2, 2, 3, 3]))"
  _dims_check("dirac_()", tensor, [3, 4, 5])
  let s = _shape(tensor)
  if type(groups) != "int" or groups < 1 { fail(f"dirac_(): argument 'groups' must be an int >= 1, got {repr(groups)}") }
  if s[0] % groups != 0 { fail(f"dirac_(): dim 0 of the tensor ({s[0]}) must be divisible by groups ({groups})") }
  let per_group = s[0] // groups
  let count = min(per_group, s[1])
  let centre = [k // 2 for k in s[2:]]
  # PyTorch's indexing fails there too; here it said "index 0 is out of range for dim 0"
  if count > 0 and 0 in s[2:] { fail(f"dirac_(): a kernel of size 0 has no centre to set, got a tensor of shape {s}") }
  no_grad {
    tensor.zero_()
    for g in range(groups) {
      for d in range(count) {
        let o = g * per_group + d
        if len(centre) == 1 { tensor[o, d, centre[0]] = 1.0 }
        elif len(centre) == 2 { tensor[o, d, centre[0], centre[1]] = 1.0 }
        else { tensor[o, d, centre[0], centre[1], centre[2]] = 1.0 }
      }
    }
  }
  return tensor
}

fn orthogonal_(tensor, gain=1.0) {
  "Fills the tensor (2 or more dims, flattened to [rows, cols]) with a (semi-)orthogonal matrix, Q of the QR of a normal draw with the signs of R's diagonal, times gain, in place under no_grad, as torch.nn.init.orthogonal_. Example: nn.init.orthogonal_(zeros([3, 5]))"
  _tensor_arg("orthogonal_()", "tensor", tensor)
  # an integer or bool tensor held the orthogonal matrix cast (all 0 or all true),
  # silently; PyTorch's normal_ refuses such a tensor
  if not tensor.dtype.is_floating_point { fail(f"orthogonal_(): the tensor must be floating, got {tensor.dtype}") }
  if tensor.dim() < 2 { fail(f"orthogonal_(): only tensors with 2 or more dims are supported, got a tensor of shape {_shape(tensor)}") }
  if tensor.numel() == 0 { return tensor }  # as PyTorch's: nothing to fill
  let rows = tensor.shape[0]
  let cols = tensor.numel() // rows
  no_grad {
    let flat = randn([rows, cols], dtype=f64)
    if rows < cols { flat = flat.t() }
    let (q, r) = qr(flat)
    # PyTorch's sign fix: Q times sign(diag(R)), so the draw is uniform (Haar)
    q = q * sign(diagonal(r)).unsqueeze(0)
    if rows < cols { q = q.t() }
    tensor.copy_((q * gain).reshape(_shape(tensor)).to(tensor.dtype))
  }
  return tensor
}

fn sparse_(tensor, sparsity, std=0.01) {
  "Fills the 2-D tensor from N(0, std^2) with ceil(sparsity * rows) elements of each column set to 0 (rows picked at random), in place under no_grad, as torch.nn.init.sparse_. Example: nn.init.sparse_(zeros([10, 4]), 0.3)"
  _dims_check("sparse_()", tensor, [2])
  if not (type(sparsity) in ["int", "float"]) or not (sparsity >= 0 and sparsity <= 1) {  # NaN too
    fail(f"sparse_(): argument 'sparsity' must be a number from 0 to 1, got {repr(sparsity)}")
  }
  let rows = tensor.shape[0]
  let cols = tensor.shape[1]
  let zeroed = int(math.ceil(sparsity * rows))
  normal_(tensor, 0.0, std)
  no_grad {
    for c in range(cols) {
      if zeroed > 0 {
        let picked = argsort(rand(rows))[:zeroed]
        tensor[picked, c] = 0.0
      }
    }
  }
  return tensor
}
