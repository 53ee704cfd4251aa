# _nn_functional: torch.nn.functional's functions that are composites of ops written in
# the language: the in-place activations (relu_, elu_, ...), rrelu, gumbel_softmax,
# pdist, local_response_norm, the margin losses multi_margin_loss,
# multilabel_margin_loss and triplet_margin_with_distance_loss, the power-average
# pools lp_pool1d/lp_pool2d, adaptive_max_pool1d, the max pools' *_with_indices forms,
# the functional max_unpool1d/2d/3d, the deprecated upsample names of interpolate, and
# kl_div; and, as globals too, the functions of nn's layer files (bilinear,
# alpha_dropout, feature_alpha_dropout, channel_shuffle, embedding_bag).
# Each is a global builtin (interp/builtins/builtins_nn_functional.cpp calls the
# function of this module of its name), so it needs no import; gradients of any order
# and graph mode come from the ops. Every function checks its arguments and names
# itself, the argument, what it expected and what it found.
import _nn_basic
import _nn_init
import _nn_pool
import _nn_shape
import _nn_sparse

let _per_dim = _nn_init._per_dim

# ---- argument checks ------------------------------------------------------------------

let _floating = ["f32", "f64", "f16", "bf16"]
let _integer = ["i64", "i32", "i16", "i8", "u8"]

fn _kind(v) = f"{v.dtype}{list(v.shape)}" if type(v) == "tensor" else type(v)

fn _check_tensor(who, what, v) {
  if type(v) != "tensor" { fail(f"{who}: argument '{what}' must be a tensor, got {type(v)}") }
  return v
}
# Two tensors a loss combines element-wise: shapes that broadcast, else an error naming
# the function and both arguments (not the inner op's "sub: argument 'other'").
fn _check_broadcast(who, what_a, a, what_b, b) {
  let sa = list(a.shape)
  let sb = list(b.shape)
  for k in range(1, min(len(sa), len(sb)) + 1) {
    if sa[-k] != sb[-k] and sa[-k] != 1 and sb[-k] != 1 {
      fail(f"{who}: argument '{what_a}' of shape {sa} and argument '{what_b}' of shape {sb} do not broadcast together (dim -{k}: {sa[-k]} vs {sb[-k]})")
    }
  }
}
fn _check_float(who, what, v) {
  _check_tensor(who, what, v)
  if not (str(v.dtype) in _floating) {
    fail(f"{who}: argument '{what}' must be a floating tensor (f32, f64, f16 or bf16), got {_kind(v)}")
  }
  return v
}
fn _check_index(who, what, v) {
  _check_tensor(who, what, v)
  if not (str(v.dtype) in _integer) { fail(f"{who}: argument '{what}' must be an integer tensor (i64), got {_kind(v)}") }
  return v
}
fn _is_number(v) = type(v) == "int" or type(v) == "float"
fn _check_number(who, what, v) {
  if not _is_number(v) { fail(f"{who}: argument '{what}' must be a number, got {repr(v) if type(v) in ['str', 'bool', 'none'] else type(v)}") }
  return v
}
fn _check_bool(who, what, v) {
  if type(v) != "bool" { fail(f"{who}: argument '{what}' must be true or false, got {repr(v) if type(v) in ['str', 'int', 'float', 'none'] else type(v)}") }
  return v
}
fn _check_ndim(who, what, v, allowed, shape_text) {
  if not (v.ndim in allowed) { fail(f"{who}: argument '{what}' must be {shape_text}, got shape {list(v.shape)}") }
  return v
}
fn _check_reduction(who, reduction, allowed=["mean", "sum", "none"]) {
  if not (reduction in allowed) {
    let names = ""
    for r in allowed { names = names + (", " if names != "" else "") + f"\"{r}\"" }
    fail(f"{who}: argument 'reduction' must be one of {names}, got {repr(reduction)}")
  }
  return reduction
}
fn _reduce(loss, reduction) {
  if reduction == "mean" { return loss.mean() }
  if reduction == "sum" { return loss.sum() }
  return loss
}
fn _check_dim(who, what, dim, ndim) {
  let n = max(ndim, 1)
  if type(dim) != "int" or dim < -n or dim >= n {
    fail(f"{who}: argument '{what}' must be a dim in [{-n}, {n - 1}] of the input's {ndim} dims, got {repr(dim) if type(dim) in ['int', 'float', 'str', 'none'] else type(dim)}")
  }
  return dim if dim >= 0 else dim + n
}
# An int or a list of n ints, each >= lowest, as a list of n.
fn _check_sizes(who, what, v, n, lowest) {
  let sizes = _per_dim(v, n) if type(v) in ["int", "list", "tuple"] else none
  let ok = sizes != none and len(sizes) == n
  if ok {
    for s in sizes { ok = ok and type(s) == "int" and s >= lowest }
  }
  if not ok {
    fail(f"{who}: argument '{what}' must be an int or {n} ints, each >= {lowest}, got {repr(v) if type(v) in ['int', 'float', 'str', 'none', 'list', 'tuple'] else type(v)}")
  }
  return sizes
}

# ---- in-place activations ---------------------------------------------------------------
# Each writes its activation of input into input (the tensor methods relu_, elu_, ...:
# autograd records the write, so a non-leaf keeps its gradient) and returns it. A leaf
# that requires grad cannot be written while grad is recorded, as PyTorch's "a leaf
# Variable that requires grad is being used in an in-place operation".

fn _in_place(who, input) {
  _check_float(who, "input", input)
  if input.requires_grad and input.is_leaf and is_grad_enabled() {
    fail(f"{who}: argument 'input' is a leaf tensor that requires grad, which cannot be modified in place (use the out-of-place form, or wrap the update in no_grad)")
  }
  return input
}

fn relu_(input) {
  "max(x, 0) written into input, which it returns, as torch.nn.functional.relu_. Example: relu_(randn(4))"
  return _in_place("relu_()", input).relu_()
}
fn elu_(input, alpha=1.0) {
  "elu(input, alpha) written into input, which it returns. Example: elu_(randn(4), alpha=0.5)"
  _check_number("elu_()", "alpha", alpha)
  return _in_place("elu_()", input).elu_(alpha=alpha)
}
fn leaky_relu_(input, negative_slope=0.01) {
  "leaky_relu(input, negative_slope) written into input, which it returns. Example: leaky_relu_(randn(4), 0.2)"
  _check_number("leaky_relu_()", "negative_slope", negative_slope)
  return _in_place("leaky_relu_()", input).leaky_relu_(negative_slope)
}
fn hardtanh_(input, min_val=-1.0, max_val=1.0) {
  "input clamped to [min_val, max_val] in place. Example: hardtanh_(randn(4), -0.5, 0.5)"
  _check_number("hardtanh_()", "min_val", min_val)
  _check_number("hardtanh_()", "max_val", max_val)
  if min_val > max_val { fail(f"hardtanh_(): argument 'min_val' ({min_val}) must not be greater than 'max_val' ({max_val})") }
  return _in_place("hardtanh_()", input).hardtanh_(min_val, max_val)
}
fn selu_(input) {
  "selu(input) written into input, which it returns. Example: selu_(randn(4))"
  return _in_place("selu_()", input).selu_()
}
fn celu_(input, alpha=1.0) {
  "celu(input, alpha) written into input, which it returns. Example: celu_(randn(4), alpha=2.0)"
  _check_number("celu_()", "alpha", alpha)
  if alpha == 0 { fail("celu_(): argument 'alpha' must not be 0") }
  return _in_place("celu_()", input).celu_(alpha)
}
fn threshold_(input, threshold, value) {
  "Elements not above threshold replaced by value, in place. Example: threshold_(randn(4), 0.1, 0.0)"
  _check_number("threshold_()", "threshold", threshold)
  _check_number("threshold_()", "value", value)
  return _in_place("threshold_()", input).threshold_(threshold, value)
}

# ---- rrelu -----------------------------------------------------------------------------
# Training: each element at or below 0 is multiplied by its own slope drawn from
# U(lower, upper) (rand, so manual_seed repeats it), the rest pass; the gradient is
# that slope (1 above 0), as PyTorch's rrelu_with_noise. Eval: leaky_relu with the
# mean slope (lower + upper) / 2.

fn _rrelu_checked(who, input, lower, upper, training) {
  _check_float(who, "input", input)
  _check_number(who, "lower", lower)
  _check_number(who, "upper", upper)
  _check_bool(who, "training", training)
  if lower > upper { fail(f"{who}: argument 'lower' ({lower}) must not be greater than 'upper' ({upper})") }
}
fn _rrelu_of(input, lower, upper, training) {
  if not training { return leaky_relu(input, (lower + upper) / 2.0) }
  let slope = rand_like(input) * (upper - lower) + lower
  return where(input > 0, input, input * slope)
}
fn rrelu(input, lower=0.125, upper=0.3333333333333333, training=false, inplace=false) {
  "Leaky ReLU with a random slope in [lower, upper] per element in training, the mean slope in eval. Example: rrelu(randn(4), training=true)"
  _check_bool("rrelu()", "inplace", inplace)
  if inplace { return rrelu_(input, lower, upper, training) }
  _rrelu_checked("rrelu()", input, lower, upper, training)
  return _rrelu_of(input, lower, upper, training)
}
fn rrelu_(input, lower=0.125, upper=0.3333333333333333, training=false) {
  "rrelu written into input, which it returns. Example: rrelu_(randn(4), training=true)"
  _rrelu_checked("rrelu_()", input, lower, upper, training)
  _in_place("rrelu_()", input)
  if not training { return input.leaky_relu_((lower + upper) / 2.0) }
  return input.copy_(_rrelu_of(input, lower, upper, true))
}

# ---- gumbel_softmax --------------------------------------------------------------------
# PyTorch's: gumbels = -log(E), E ~ Exp(1) (here -log1p(-u) of u ~ U[0, 1) from
# rand_like, so manual_seed repeats the samples); y = softmax((logits + gumbels) / tau).
# hard: the one-hot of y's argmax along dim, with y's gradient (y_hard - y.detach() + y:
# the straight-through estimator). eps is PyTorch's deprecated argument, unused.

fn gumbel_softmax(logits, tau=1.0, hard=false, eps=1e-10, dim=-1) {
  "Samples of softmax((logits + Gumbel noise) / tau) along dim; hard=true gives one-hot samples with the soft gradient. Example: gumbel_softmax(randn(2, 5), tau=0.5, hard=true)"
  let who = "gumbel_softmax()"
  _check_float(who, "logits", logits)
  _check_number(who, "tau", tau)
  if tau <= 0 { fail(f"{who}: argument 'tau' must be > 0, got {tau}") }
  _check_bool(who, "hard", hard)
  let d = _check_dim(who, "dim", dim, logits.ndim)
  let exponentials = clamp(-log1p(-rand_like(logits)), min=1e-30)
  let y = softmax((logits - log(exponentials)) / tau, dim=d)
  if not hard { return y }
  let index = argmax(y, dim=d, keepdim=true)
  let y_hard = zeros_like(y).scatter_add(d, index, ones(list(index.shape), dtype=y.dtype, device=y.device))
  return y_hard - y.detach() + y
}

# ---- pdist -----------------------------------------------------------------------------
# The rows' pairs i < j in PyTorch's order (row-major over the upper triangle), each
# ||x[i] - x[j]||_p by norm (whose gradient at 0 is 0, as pdist's for equal rows).

fn pdist(input, p=2.0) {
  "The p-norm distance between each pair of rows i < j of input [N, M], as torch.nn.functional.pdist. Example: pdist(randn(4, 3))"
  let who = "pdist()"
  _check_float(who, "input", input)
  _check_ndim(who, "input", input, [2], "a 2-D tensor [N, M]")
  _check_number(who, "p", p)
  if not (p >= 0) { fail(f"{who}: argument 'p' must be >= 0, got {p}") }  # NaN too, as PyTorch's
  let n = input.shape[0]
  if n < 2 { return zeros([0], dtype=input.dtype, device=input.device) + input.sum() * 0.0 }
  let r = arange(n, device=input.device)
  let pairs = nonzero(r.unsqueeze(1) < r.unsqueeze(0))
  let diff = index_select(input, 0, pairs[:, 0]) - index_select(input, 0, pairs[:, 1])
  return norm(diff, p, dim=1)
}

# ---- local_response_norm ---------------------------------------------------------------
# PyTorch's: the mean of x^2 over a window of `size` channels (size // 2 before,
# (size - 1) // 2 after, zeros beyond the ends, always divided by size), then
# x / (k + alpha * mean) ** beta. The channels (dim 1) pooled as the last dim.

fn local_response_norm(input, size, alpha=0.0001, beta=0.75, k=1.0) {
  "Each channel divided by (k + alpha * the mean square over size neighbouring channels) ** beta. Example: local_response_norm(randn(1, 6, 4, 4), 3)"
  let who = "local_response_norm()"
  _check_float(who, "input", input)
  if input.ndim < 3 {
    fail(f"{who}: argument 'input' must have 3 or more dims [N, C, *], got shape {list(input.shape)}")
  }
  if type(size) != "int" or size < 1 { fail(f"{who}: argument 'size' must be an int >= 1, got {repr(size) if type(size) in ['int', 'float', 'str', 'none'] else type(size)}") }
  _check_number(who, "alpha", alpha)
  _check_number(who, "beta", beta)
  _check_number(who, "k", k)
  if input.numel() == 0 { return input * 1.0 }
  let last = input.movedim(1, -1)
  let moved_shape = list(last.shape)
  let c = input.shape[1]
  let sq = (last * last).reshape([-1, 1, c])
  let mean_sq = avg_pool1d(pad(sq, [size // 2, (size - 1) // 2]), size, stride=1)
  let div = (mean_sq.reshape(moved_shape) * alpha + k).pow(beta)
  return input / div.movedim(-1, 1)
}

# ---- losses ----------------------------------------------------------------------------

# [N, C] input and [N] target of a classification loss (a 1-D input is one sample).
fn _class_target(who, input, target) {
  _check_float(who, "input", input)
  _check_ndim(who, "input", input, [1, 2], "1-D [C] or 2-D [N, C]")
  _check_index(who, "target", target)
  let n = 1 if input.ndim == 1 else input.shape[0]
  if target.numel() != n or target.ndim > 1 {
    fail(f"{who}: argument 'target' must hold one class per sample ({n}), got shape {list(target.shape)}")
  }
  let c = input.shape[-1]
  if target.numel() > 0 and not is_compiling() {
    let low = target.min().item()
    let high = target.max().item()
    if low < 0 or high >= c { fail(f"{who}: argument 'target' holds class {low if low < 0 else high}, outside [0, {c - 1}] for the input's {c} classes") }
  }
  return target.reshape([n]).to(i64)
}

# PyTorch's: per sample, sum over the classes i != y of max(0, margin - x[y] + x[i]) ** p
# (times weight[y]), divided by C; the mean over the samples (not weighted).
fn multi_margin_loss(input, target, p=1, margin=1.0, weight=none, reduction="mean") {
  "The multi-class hinge loss max(0, margin - x[y] + x[i]) ** p over the classes i != y, divided by C. Example: multi_margin_loss(randn(3, 5), tensor([0, 4, 2]))"
  let who = "multi_margin_loss()"
  let y = _class_target(who, input, target)
  if not (p in [1, 2]) or type(p) == "bool" { fail(f"{who}: argument 'p' must be 1 or 2, got {repr(p) if type(p) in ['int', 'float', 'str', 'none'] else type(p)}") }
  _check_number(who, "margin", margin)
  _check_reduction(who, reduction)
  let x = input.reshape([-1, input.shape[-1]])
  let c = x.shape[1]
  if weight != none {
    _check_float(who, "weight", weight)
    if weight.ndim != 1 or weight.shape[0] != c {
      fail(f"{who}: argument 'weight' must be a 1-D tensor of the {c} classes, got shape {list(weight.shape)}")
    }
  }
  let xy = gather(x, 1, y.unsqueeze(1))
  let h = relu(x - xy + margin)
  if p == 2 { h = h * h }
  let others = 1.0 - one_hot(y, c).to(x.dtype)
  h = h * others
  if weight != none { h = h * index_select(weight, 0, y).unsqueeze(1) }
  let loss = h.sum(1) / c
  if input.ndim == 1 { loss = loss.reshape([]) }
  return _reduce(loss, reduction)
}

# PyTorch's: per sample, the target classes are target's entries up to its first
# negative one; the sum over those classes j (as often as each is listed) and over the
# classes i that are not targets of max(0, 1 - (x[j] - x[i])), divided by C.
fn multilabel_margin_loss(input, target, reduction="mean") {
  "The multi-label hinge loss max(0, 1 - (x[j] - x[i])) over target classes j and the other classes i, divided by C. Example: multilabel_margin_loss(randn(1, 4), tensor([[3, 0, -1, 1]]))"
  let who = "multilabel_margin_loss()"
  _check_float(who, "input", input)
  _check_ndim(who, "input", input, [1, 2], "1-D [C] or 2-D [N, C]")
  _check_index(who, "target", target)
  if list(target.shape) != list(input.shape) {
    fail(f"{who}: argument 'target' must have the input's shape {list(input.shape)}, got {list(target.shape)}")
  }
  _check_reduction(who, reduction)
  let x = input.reshape([-1, input.shape[-1]])
  let c = x.shape[1]
  let t = target.reshape([-1, c]).to(i64)
  let listed = cumprod((t >= 0).to(i64), dim=1) > 0
  if not is_compiling() and listed.any().item() {
    let high = where(listed, t, 0).max().item()
    if high >= c { fail(f"{who}: argument 'target' holds class {high}, outside [0, {c - 1}] for the input's {c} classes") }
  }
  let counts = (one_hot(where(listed, t, 0), c) * listed.unsqueeze(-1).to(i64)).sum(1).to(x.dtype)
  let others = (counts == 0).to(x.dtype)
  let h = relu(1.0 - x.unsqueeze(2) + x.unsqueeze(1)) * counts.unsqueeze(2) * others.unsqueeze(1)
  let loss = h.sum([1, 2]) / c
  if input.ndim == 1 { loss = loss.reshape([]) }
  return _reduce(loss, reduction)
}

# A user's distance function's result, checked: a tensor (one distance per sample), or
# the error names the function here rather than the arithmetic after it.
fn _distance_of(who, distance_function, a, b) {
  let d = distance_function(a, b)
  if type(d) != "tensor" { fail(f"{who}: distance_function must return a tensor of distances, got {type(d)}") }
  return d
}

# PyTorch's: d = distance_function (pairwise_distance when none); with swap the
# negative's distance is the smaller of d(anchor, negative) and d(positive, negative).
fn triplet_margin_with_distance_loss(anchor, positive, negative, distance_function=none, margin=1.0, swap=false,
                                     reduction="mean") {
  "max(d(anchor, positive) - d(anchor, negative) + margin, 0) for any distance function d (pairwise_distance by default). Example: triplet_margin_with_distance_loss(randn(4, 3), randn(4, 3), randn(4, 3))"
  let who = "triplet_margin_with_distance_loss()"
  _check_tensor(who, "anchor", anchor)
  _check_tensor(who, "positive", positive)
  _check_tensor(who, "negative", negative)
  if not (anchor.ndim == positive.ndim and positive.ndim == negative.ndim) {
    fail(f"{who}: anchor, positive and negative must have the same number of dims, got {anchor.ndim}, {positive.ndim} and {negative.ndim}")
  }
  if distance_function != none and not callable(distance_function) {
    fail(f"{who}: argument 'distance_function' must be a function of two tensors or none, got {type(distance_function)}")
  }
  _check_number(who, "margin", margin)
  if margin <= 0 { fail(f"{who}: argument 'margin' must be > 0, got {margin}") }
  _check_bool(who, "swap", swap)
  _check_reduction(who, reduction)
  let d = pairwise_distance if distance_function == none else fn(a, b) = _distance_of(who, distance_function, a, b)
  let dist_pos = d(anchor, positive)
  let dist_neg = d(anchor, negative)
  if swap { dist_neg = minimum(dist_neg, d(positive, negative)) }
  return _reduce(clamp_min(margin + dist_pos - dist_neg, 0.0), reduction)
}

# ---- pooling ---------------------------------------------------------------------------

# PyTorch's lp_pool: avg_pool of x ** p, times the window's size, to the power 1 / p
# (sign(out) * relu(|out|) as PyTorch writes it, so the gradients are its).
fn _lp_pool(who, n, input, norm_type, kernel_size, stride, ceil_mode) {
  _check_float(who, "input", input)
  _check_ndim(who, "input", input, [n + 1, n + 2], "2-D [C, L] or 3-D [N, C, L]" if n == 1 else "3-D [C, H, W] or 4-D [N, C, H, W]")
  _check_number(who, "norm_type", norm_type)
  if norm_type == 0 { fail(f"{who}: argument 'norm_type' must not be 0") }
  let k = _check_sizes(who, "kernel_size", kernel_size, n, 1)
  let s = k if stride == none else _check_sizes(who, "stride", stride, n, 1)
  _check_bool(who, "ceil_mode", ceil_mode)
  let powered = input.pow(norm_type)
  let out = avg_pool1d(powered, k, stride=s, padding=0, ceil_mode=ceil_mode) if n == 1 else avg_pool2d(powered, k, stride=s, padding=0, ceil_mode=ceil_mode)
  let window = k[0] if n == 1 else k[0] * k[1]
  return (sign(out) * relu(abs(out))).mul(window).pow(1.0 / norm_type)
}
fn lp_pool1d(input, norm_type, kernel_size, stride=none, ceil_mode=false) {
  "The norm_type-norm of each kernel_size window of the last dim. Example: lp_pool1d(randn(1, 2, 8), 2, 2)"
  return _lp_pool("lp_pool1d()", 1, input, norm_type, kernel_size, stride, ceil_mode)
}
fn lp_pool2d(input, norm_type, kernel_size, stride=none, ceil_mode=false) {
  "The norm_type-norm of each kernel_size window of the last two dims. Example: lp_pool2d(randn(1, 2, 8, 8), 2, 2)"
  return _lp_pool("lp_pool2d()", 2, input, norm_type, kernel_size, stride, ceil_mode)
}

# [N, C, L] (or [C, L]) pooled as a [N, C, 1, L] plane: the indices, flat over a 1 x L
# plane, are the positions along L (as nn.AdaptiveMaxPool1d).
fn _adaptive_max_pool1d(who, input, output_size) {
  _check_float(who, "input", input)
  _check_ndim(who, "input", input, [2, 3], "2-D [C, L] or 3-D [N, C, L]")
  let size = _per_dim(output_size, 1) if type(output_size) in ["int", "list", "tuple"] else none
  if size == none or len(size) != 1 or not (size[0] == none or (type(size[0]) == "int" and size[0] >= 1)) {
    fail(f"{who}: argument 'output_size' must be an int >= 1 (or one), got {repr(output_size) if type(output_size) in ['int', 'float', 'str', 'list', 'tuple'] else type(output_size)}")
  }
  let out = input.shape[-1] if size[0] == none else size[0]
  let batch = input if input.ndim == 3 else input.unsqueeze(0)
  let r = adaptive_max_pool2d(batch.unsqueeze(-2), [1, out], return_indices=true)
  if input.ndim == 2 { return (r[0].squeeze(-2).squeeze(0), r[1].squeeze(-2).squeeze(0)) }
  return (r[0].squeeze(-2), r[1].squeeze(-2))
}
fn adaptive_max_pool1d(input, output_size, return_indices=false) {
  "The largest value in each of output_size windows that tile the last dim, with return_indices also where it was. Example: adaptive_max_pool1d(randn(1, 3, 8), 2)"
  _check_bool("adaptive_max_pool1d()", "return_indices", return_indices)
  let r = _adaptive_max_pool1d("adaptive_max_pool1d()", input, output_size)
  return r if return_indices else r[0]
}
fn adaptive_max_pool1d_with_indices(input, output_size, return_indices=false) {
  "adaptive_max_pool1d's (values, indices). Example: adaptive_max_pool1d_with_indices(randn(1, 3, 8), 2)"
  return _adaptive_max_pool1d("adaptive_max_pool1d_with_indices()", input, output_size)
}
fn adaptive_max_pool2d_with_indices(input, output_size, return_indices=false) {
  "adaptive_max_pool2d's (values, indices). Example: adaptive_max_pool2d_with_indices(randn(1, 3, 8, 8), 2)"
  _check_tensor("adaptive_max_pool2d_with_indices()", "input", input)
  return adaptive_max_pool2d(input, output_size, return_indices=true)
}
fn adaptive_max_pool3d_with_indices(input, output_size, return_indices=false) {
  "adaptive_max_pool3d's (values, indices). Example: adaptive_max_pool3d_with_indices(randn(1, 3, 4, 4, 4), 2)"
  _check_tensor("adaptive_max_pool3d_with_indices()", "input", input)
  return adaptive_max_pool3d(input, output_size, return_indices=true)
}

# max_poolNd's (values, indices); stride none is kernel_size, as PyTorch's.
fn _max_pool_with_indices(who, n, pool, input, kernel_size, stride, padding, dilation, ceil_mode) {
  _check_tensor(who, "input", input)
  let k = _check_sizes(who, "kernel_size", kernel_size, n, 1)
  let s = k if stride == none or stride == [] else _check_sizes(who, "stride", stride, n, 1)
  return pool(input, k, stride=s, padding=_check_sizes(who, "padding", padding, n, 0),
              dilation=_check_sizes(who, "dilation", dilation, n, 1), ceil_mode=ceil_mode, return_indices=true)
}
fn max_pool1d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=false) {
  "max_pool1d's (values, indices). Example: max_pool1d_with_indices(randn(1, 2, 8), 2)"
  return _max_pool_with_indices("max_pool1d_with_indices()", 1, max_pool1d, input, kernel_size, stride, padding, dilation, ceil_mode)
}
fn max_pool2d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=false) {
  "max_pool2d's (values, indices). Example: max_pool2d_with_indices(randn(1, 2, 8, 8), 2)"
  return _max_pool_with_indices("max_pool2d_with_indices()", 2, max_pool2d, input, kernel_size, stride, padding, dilation, ceil_mode)
}
fn max_pool3d_with_indices(input, kernel_size, stride=none, padding=0, dilation=1, ceil_mode=false, return_indices=false) {
  "max_pool3d's (values, indices). Example: max_pool3d_with_indices(randn(1, 2, 4, 4, 4), 2)"
  return _max_pool_with_indices("max_pool3d_with_indices()", 3, max_pool3d, input, kernel_size, stride, padding, dilation, ceil_mode)
}

# The functional unpools: nn.MaxUnpoolNd's (stdlib/_nn_pool.dsl) with the given window.
fn _max_unpool(who, n, input, indices, kernel_size, stride, padding, output_size) {
  _check_float(who, "input", input)
  _check_ndim(who, "input", input, [n + 1, n + 2], f"{n + 1}-D or {n + 2}-D (a batch)")
  _check_index(who, "indices", indices)
  let k = _check_sizes(who, "kernel_size", kernel_size, n, 1)
  let s = k if stride == none else _check_sizes(who, "stride", stride, n, 1)
  let p = _check_sizes(who, "padding", padding, n, 0)
  if output_size != none {
    let ok = type(output_size) in ["list", "tuple"] and len(output_size) >= n
    if ok {
      for v in output_size { ok = ok and type(v) == "int" and v >= 0 }
    }
    if not ok { fail(f"{who}: argument 'output_size' must be a list of at least {n} ints, got {repr(output_size) if type(output_size) in ['int', 'float', 'str', 'list', 'tuple'] else type(output_size)}") }
  }
  if list(indices.shape) != list(input.shape) {
    fail(f"{who}: argument 'indices' must have the input's shape {list(input.shape)}, got {list(indices.shape)}")
  }
  let size = []
  if output_size != none {
    size = list(output_size)[len(output_size) - n:]
  } else {
    for d in range(n) { size.append((input.shape[input.ndim - n + d] - 1) * s[d] - 2 * p[d] + k[d]) }
  }
  let plane = 1
  for v in size { plane = plane * v }
  if indices.numel() > 0 and not is_compiling() {
    let low = indices.min().item()
    let high = indices.max().item()
    if low < 0 or high >= plane {
      fail(f"{who}: argument 'indices' holds {low if low < 0 else high}, outside the output's plane of {plane} cells (output size {size})")
    }
  }
  return _nn_pool._unpool(_Window(k, s, p), who, input, indices, output_size, n)
}
model _Window(kernel_size, stride, padding) {
  "A pool's window (kernel_size, stride, padding per dim) for _nn_pool._unpool. Example: _Window([2], [2], [0])"
  kernel_size = kernel_size
  stride = stride
  padding = padding
}
fn max_unpool1d(input, indices, kernel_size, stride=none, padding=0, output_size=none) {
  "The inverse of max_pool1d: each value back at its index, zeros elsewhere. Example: max_unpool1d(*max_pool1d_with_indices(randn(1, 2, 8), 2), 2)"
  return _max_unpool("max_unpool1d()", 1, input, indices, kernel_size, stride, padding, output_size)
}
fn max_unpool2d(input, indices, kernel_size, stride=none, padding=0, output_size=none) {
  "The inverse of max_pool2d: each value back at its index, zeros elsewhere. Example: max_unpool2d(*max_pool2d_with_indices(randn(1, 2, 4, 4), 2), 2)"
  return _max_unpool("max_unpool2d()", 2, input, indices, kernel_size, stride, padding, output_size)
}
fn max_unpool3d(input, indices, kernel_size, stride=none, padding=0, output_size=none) {
  "The inverse of max_pool3d: each value back at its index, zeros elsewhere. Example: max_unpool3d(*max_pool3d_with_indices(randn(1, 1, 4, 4, 4), 2), 2)"
  return _max_unpool("max_unpool3d()", 3, input, indices, kernel_size, stride, padding, output_size)
}

# ---- resampling: PyTorch's deprecated names of interpolate ---------------------------

fn upsample(input, size=none, scale_factor=none, mode="nearest", align_corners=none) {
  "interpolate under its old name, as torch.nn.functional.upsample. Example: upsample(randn(1, 1, 4, 4), scale_factor=2)"
  _check_tensor("upsample()", "input", input)
  return interpolate(input, size=size, scale_factor=scale_factor, mode=mode, align_corners=align_corners)
}
fn upsample_nearest(input, size=none, scale_factor=none) {
  "interpolate(mode=\"nearest\") under its old name. Example: upsample_nearest(randn(1, 1, 4, 4), scale_factor=2)"
  _check_tensor("upsample_nearest()", "input", input)
  return interpolate(input, size=size, scale_factor=scale_factor, mode="nearest")
}
fn upsample_bilinear(input, size=none, scale_factor=none) {
  "interpolate(mode=\"bilinear\", align_corners=true) of [N, C, H, W] under its old name. Example: upsample_bilinear(randn(1, 1, 4, 4), scale_factor=2)"
  _check_float("upsample_bilinear()", "input", input)
  _check_ndim("upsample_bilinear()", "input", input, [4], "4-D [N, C, H, W]")
  return interpolate(input, size=size, scale_factor=scale_factor, mode="bilinear", align_corners=true)
}

# The Kullback-Leibler divergence KL(target || input) as PyTorch's F.kl_div: `input`
# holds log-probabilities, `target` probabilities (log-probabilities with
# log_target=true); pointwise target * (log(target) - input), 0 where target is 0.
# reduction "batchmean" (the sum over the batch's first dimension divided by its
# size: the true KL per item) is the one that matches the math; "mean" (PyTorch's
# default) divides by every element.
fn kl_div(input, target, reduction="mean", log_target=false) {
  "The Kullback-Leibler divergence of target from input (log-probabilities), as PyTorch's. Example: kl_div(log_softmax(z, 1), p, reduction='batchmean')"
  let who = "kl_div()"
  _check_float(who, "input", input)
  _check_float(who, "target", target)
  _check_broadcast(who, "input", input, "target", target)
  _check_bool(who, "log_target", log_target)
  if not (reduction in ["none", "sum", "mean", "batchmean"]) {
    fail(f"kl_div: reduction must be \"none\", \"sum\", \"mean\" or \"batchmean\", got {repr(reduction)}")
  }
  if reduction == "batchmean" and input.ndim == 0 { fail(f"{who}: reduction=\"batchmean\" divides by the batch size, dim 0, which a 0-dim input lacks") }
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
  return pointwise.sum() / input.shape[0]
}

# The functions of nn's layer files, as globals (PyTorch's F.bilinear, ...).
let bilinear = _nn_basic.bilinear
let alpha_dropout = _nn_basic.alpha_dropout
let feature_alpha_dropout = _nn_basic.feature_alpha_dropout
let channel_shuffle = _nn_shape.channel_shuffle
let embedding_bag = _nn_sparse.embedding_bag
