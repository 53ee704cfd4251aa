// Composite functions of torch.nn.functional, made of table ops (so they differentiate
// to any order, fuse and compile like the ops they are made of): activations,
// channel dropout, distances, losses, pixel shuffling and unfold/fold. Each is a
// global function and a tensor method, as the ops are (op_conventions()); the nn
// layers of the same names call them. tests/stdlib/test_composites.dsl checks them
// against PyTorch.
#include <cmath>
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "tensor/random.hpp"

namespace nabla::interp {

namespace {

using composite_args::check_broadcast;

double num(const Bound& b, size_t k, double fallback, const std::string& what) {
  return b.has(k) ? as_num(b[k], what) : fallback;
}

// A loss's elements reduced as `reduction` asks ("mean", "sum" or "none").
Tensor reduced(const Tensor& loss, const Bound& b, size_t k, const std::string& fname) {
  std::string reduction = "mean";
  if (b.has(k)) {
    if (b[k].tag != Tag::Str) fail(fname + "(): argument 'reduction' must be a string, got " + type_name(b[k]));
    reduction = b[k].as<StrObj>()->s;
  }
  if (reduction == "mean") return mean(loss);
  if (reduction == "sum") return sum(loss);
  if (reduction == "none") return loss;
  fail(fname + "(): argument 'reduction': expected 'mean', 'sum' or 'none', got '" + reduction + "'");
}

Tensor hardtanh_between(const Tensor& x, double lo, double hi) {
  return hardtanh(x, {{"min_val", lo}, {"max_val", hi}});
}

// ---- activations --------------------------------------------------------------------


Tensor relu6_of(const Tensor& x) { return hardtanh_between(x, 0.0, 6.0); }
// relu6(x + 3) / 6; the gradient 1/6 strictly inside (-3, 3), as PyTorch's.
Tensor hardsigmoid_of(const Tensor& x) { return (hardtanh_between(x, -3.0, 3.0) + 3.0) / 6.0; }
Tensor selu_of(const Tensor& x) {
  return elu(x, {{"alpha", 1.6732632423543772848170429916717}}) * 1.0507009873554804934193349852946;
}
Tensor softsign_of(const Tensor& x) { return x / (1.0 + abs(x)); }
// min(x, 0) - log1p(exp(-|x|)): no overflow at either end.
Tensor logsigmoid_of(const Tensor& x) { return minimum(x, number_like(0.0, x)) - log1p(exp(-abs(x))); }
Tensor tanhshrink_of(const Tensor& x) { return x - tanh(x); }

Value relu6_builtin(Evaluator&, CallArgs& a) { return unary(a, "relu6", relu6_of); }
Value hardsigmoid_builtin(Evaluator&, CallArgs& a) { return unary(a, "hardsigmoid", hardsigmoid_of); }
Value selu_builtin(Evaluator&, CallArgs& a) { return unary(a, "selu", selu_of); }
Value softsign_builtin(Evaluator&, CallArgs& a) { return unary(a, "softsign", softsign_of); }
Value logsigmoid_builtin(Evaluator&, CallArgs& a) { return unary(a, "logsigmoid", logsigmoid_of); }
Value tanhshrink_builtin(Evaluator&, CallArgs& a) { return unary(a, "tanhshrink", tanhshrink_of); }

Value celu_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("celu", a, {"input", "alpha"}, 1);
  Tensor x = arg(b, 0, "celu", "input");
  const double alpha = num(b, 1, 1.0, "celu(): argument 'alpha'");
  if (alpha == 0) fail("celu(): argument 'alpha' must not be 0");
  return Value::tensor(elu(x / alpha) * alpha);
}

// One slope, or one per channel (dim 1 of the input).
Value prelu_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("prelu", a, {"input", "weight"}, 2);
  Tensor x = arg(b, 0, "prelu", "input"), w = arg(b, 1, "prelu", "weight");
  if (w.numel() != 1) {
    if (w.dim() != 1 || x.dim() < 2 || x.sizes()[1] != w.numel())
      fail("prelu(): weight of shape " + w.shape_str() + " needs one slope, or one per channel of dim 1 of input " +
           x.shape_str());
    IntList shape(static_cast<size_t>(x.dim() - 1), 1);
    shape[0] = w.numel();
    w = reshape(w, shape);
  } else {
    w = reshape(w, {});
  }
  return Value::tensor(where(gt(x, number_like(0.0, x)), x, w * x));
}

Value glu_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("glu", a, {"input", "dim"}, 1);
  Tensor x = arg(b, 0, "glu", "input");
  const int64_t dim = wrap_dim(b.has(1) ? as_int(b[1], "glu(): argument 'dim'") : -1, x.dim(), "glu");
  if (x.sizes()[dim] % 2 != 0)
    fail("glu(): dim " + std::to_string(dim) + " must have an even size, got shape " + x.shape_str());
  const int64_t half = x.sizes()[dim] / 2;
  return Value::tensor(slice(x, dim, 0, half) * sigmoid(slice(x, dim, half, 2 * half)));
}

Value softmin_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("softmin", a, {"input", "dim"}, 1);
  return Value::tensor(softmax(-arg(b, 0, "softmin", "input"), b.has(1) ? as_int(b[1], "softmin(): argument 'dim'") : -1));
}

Value hardshrink_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("hardshrink", a, {"input", "lambd"}, 1);
  Tensor x = arg(b, 0, "hardshrink", "input");
  const double l = num(b, 1, 0.5, "hardshrink(): argument 'lambd'");
  // Tested as "inside [-lambd, lambd]", so a NaN passes through, as PyTorch's.
  return Value::tensor(where(le(abs(x), number_like(l, x)), number_like(0.0, x), x));
}

Value softshrink_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("softshrink", a, {"input", "lambd"}, 1);
  Tensor x = arg(b, 0, "softshrink", "input");
  const double l = num(b, 1, 0.5, "softshrink(): argument 'lambd'");
  return Value::tensor(where(gt(x, number_like(l, x)), x - l,
                             where(lt(x, number_like(-l, x)), x + l, number_like(0.0, x))));
}

Value threshold_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("threshold", a, {"input", "threshold", "value"}, 3);
  Tensor x = arg(b, 0, "threshold", "input");
  const double t = as_num(b[1], "threshold(): argument 'threshold'"), v = as_num(b[2], "threshold(): argument 'value'");
  // PyTorch's x <= threshold ? value : x: a NaN is kept (x > threshold replaced it).
  return Value::tensor(where(le(x, number_like(t, x)), number_like(v, x), x));
}

// Channel-wise dropout, as PyTorch's dropout1d/2d/3d: each channel of each example
// ([N, C, *spatial], or unbatched [C, *spatial]) zeroed whole with probability p, the
// rest scaled by 1 / (1 - p), in training; the identity otherwise.
Value channel_dropout(CallArgs& a, const char* fname, int64_t spatial) {
  Bound b = bind(fname, a, {"input", "p", "training"}, 1);
  Tensor x = arg(b, 0, fname, "input");
  const double p = num(b, 1, 0.5, std::string(fname) + "(): argument 'p'");
  const bool training = !b.has(2) || as_bool(b[2], std::string(fname) + "(): argument 'training'");
  if (!(p >= 0 && p <= 1)) fail(std::string(fname) + "(): p must be in [0, 1], got " + float_repr(p));
  if (x.dim() != spatial + 1 && x.dim() != spatial + 2)
    fail(std::string(fname) + "(): expected a " + std::to_string(spatial + 1) + "-d or " + std::to_string(spatial + 2) +
         "-d input, got shape " + x.shape_str());
  if (!training || p == 0) return Value::tensor(x);
  Shape mask_shape(static_cast<size_t>(x.dim()), 1);
  for (int64_t d = 0; d < x.dim() - spatial; ++d) mask_shape[static_cast<size_t>(d)] = x.sizes()[d];
  if (p == 1) return Value::tensor(x * zeros(mask_shape, x.dtype(), x.device()));
  Tensor keep = to_device(to_dtype(ge(random_uniform(mask_shape, DType::f32), scalar_tensor(p)), x.dtype()), x.device());
  return Value::tensor(x * keep * (1.0 / (1.0 - p)));
}
Value dropout1d_builtin(Evaluator&, CallArgs& a) { return channel_dropout(a, "dropout1d", 1); }
Value dropout2d_builtin(Evaluator&, CallArgs& a) { return channel_dropout(a, "dropout2d", 2); }
Value dropout3d_builtin(Evaluator&, CallArgs& a) { return channel_dropout(a, "dropout3d", 3); }

// ---- distances ----------------------------------------------------------------------

double p_arg(const Bound& b, size_t k, const std::string& fname) { return num(b, k, 2.0, fname + "(): argument 'p'"); }

// x / max(||x||_p, eps) along dim, as F.normalize.
Value normalize_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("normalize", a, {"input", "p", "dim", "eps"}, 1);
  Tensor x = arg(b, 0, "normalize", "input");
  const int64_t dim = wrap_dim(b.has(2) ? as_int(b[2], "normalize(): argument 'dim'") : 1, x.dim(), "normalize");
  Tensor n = vector_norm(x, p_arg(b, 1, "normalize"), {dim}, true);
  return Value::tensor(x / clamp(n, num(b, 3, 1e-12, "normalize(): argument 'eps'"), std::nullopt));
}

// sum((x1 / ||x1||) (x2 / ||x2||)) along dim, each norm at least eps, as PyTorch's,
// which clamps the norms in place without a gradient: its norm's gradient x / ||x||
// then divides by the clamped value too. n_c + (n - n.detach()) n / n_c (n / n_c
// detached) is the clamped value with that gradient.
Value cosine_similarity_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("cosine_similarity", a, {"x1", "x2", "dim", "eps"}, 2);
  Tensor x1 = arg(b, 0, "cosine_similarity", "x1"), x2 = operand(b[1], x1, "cosine_similarity", "x2");
  check_broadcast("cosine_similarity", {{"x1", x1}, {"x2", x2}});
  const int64_t n = std::max(x1.dim(), x2.dim());
  const int64_t dim = wrap_dim(b.has(2) ? as_int(b[2], "cosine_similarity(): argument 'dim'") : 1, n, "cosine_similarity");
  const int64_t d1 = dim - (n - x1.dim()), d2 = dim - (n - x2.dim());
  if (d1 < 0 || d2 < 0)
    fail("cosine_similarity(): dim " + std::to_string(dim) + " is outside x1 " + x1.shape_str() + " or x2 " + x2.shape_str());
  const double eps = num(b, 3, 1e-8, "cosine_similarity(): argument 'eps'");
  auto clamped_norm = [&](const Tensor& x, int64_t d) {
    Tensor norm = vector_norm(x, 2.0, {d}, true);
    Tensor clamped = detach(clamp(norm, eps, std::nullopt));
    return clamped + (norm - detach(norm)) * detach(norm / clamped);
  };
  return Value::tensor(sum((x1 / clamped_norm(x1, d1)) * (x2 / clamped_norm(x2, d2)), {dim}));
}

// ||x1 - x2 + eps||_p over the last dim, as F.pairwise_distance.
Value pairwise_distance_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("pairwise_distance", a, {"x1", "x2", "p", "eps", "keepdim"}, 2);
  Tensor x1 = arg(b, 0, "pairwise_distance", "x1"), x2 = operand(b[1], x1, "pairwise_distance", "x2");
  check_broadcast("pairwise_distance", {{"x1", x1}, {"x2", x2}});
  Tensor diff = x1 - x2 + num(b, 3, 1e-6, "pairwise_distance(): argument 'eps'");
  const bool keep = b.has(4) && as_bool(b[4], "pairwise_distance(): argument 'keepdim'");
  return Value::tensor(vector_norm(diff, p_arg(b, 2, "pairwise_distance"), {diff.dim() - 1}, keep));
}

// The p-norm distance between each row of x1 [..., P, M] and each of x2 [..., R, M]:
// [..., P, R], as torch.cdist (from the differences, not the matmul expansion). PyTorch's
// compute_mode picks whether p = 2 goes through a matmul expansion (faster, less exact);
// nabla takes the differences under each of its three names.
Value cdist_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("cdist", a, {"x1", "x2", "p", "compute_mode"}, 2);
  if (b.has(3)) {
    const std::string mode = b[3].tag == Tag::Str ? b[3].as<StrObj>()->s : std::string();
    if (mode != "use_mm_for_euclid_dist_if_necessary" && mode != "use_mm_for_euclid_dist" && mode != "donot_use_mm_for_euclid_dist")
      fail(std::string("cdist(): compute_mode must be \"use_mm_for_euclid_dist_if_necessary\", \"use_mm_for_euclid_dist\" or "
                       "\"donot_use_mm_for_euclid_dist\", got ") + (b[3].tag == Tag::Str ? "\"" + mode + "\"" : std::string(type_name(b[3]))));
  }
  Tensor x1 = arg(b, 0, "cdist", "x1"), x2 = arg(b, 1, "cdist", "x2");
  if (x1.dim() < 2 || x2.dim() < 2 || x1.sizes()[x1.dim() - 1] != x2.sizes()[x2.dim() - 1])
    fail("cdist(): x1 " + x1.shape_str() + " and x2 " + x2.shape_str() + " must be [..., P, M] and [..., R, M]");
  Tensor diff = unsqueeze(x1, x1.dim() - 1) - unsqueeze(x2, x2.dim() - 2);
  return Value::tensor(vector_norm(diff, p_arg(b, 2, "cdist"), {diff.dim() - 1}, false));
}

// ---- pixel shuffling, unfold and fold ---------------------------------------------

// [*, C r^2, H, W] -> [*, C, H r, W r] (shuffle) or back (unshuffle), as PyTorch's.
Tensor pixel_shuffled(const Tensor& x, int64_t r, bool up, const char* fname) {
  if (r < 1) fail(std::string(fname) + "(): the factor must be a positive int, got " + std::to_string(r));
  if (x.dim() < 3) fail(std::string(fname) + "(): expected [*, C, H, W], got shape " + x.shape_str());
  const int64_t k = x.dim() - 3, c = x.sizes()[k], h = x.sizes()[k + 1], w = x.sizes()[k + 2];
  IntList lead(x.sizes().begin(), x.sizes().begin() + k), shape = lead, order, out = lead;
  for (int64_t d = 0; d < k; ++d) order.push_back(d);
  if (up) {
    if (c % (r * r) != 0)
      fail(std::string(fname) + "(): channels " + std::to_string(c) + " are not divisible by " + std::to_string(r * r));
    shape.insert(shape.end(), {c / (r * r), r, r, h, w});
    order.insert(order.end(), {k, k + 3, k + 1, k + 4, k + 2});
    out.insert(out.end(), {c / (r * r), h * r, w * r});
  } else {
    if (h % r != 0 || w % r != 0)
      fail(std::string(fname) + "(): H and W of " + x.shape_str() + " are not divisible by " + std::to_string(r));
    shape.insert(shape.end(), {c, h / r, r, w / r, r});
    order.insert(order.end(), {k, k + 2, k + 4, k + 1, k + 3});
    out.insert(out.end(), {c * r * r, h / r, w / r});
  }
  return reshape(permute(reshape(x, shape), order), out);
}

Value pixel_shuffle_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("pixel_shuffle", a, {"input", "upscale_factor"}, 2);
  return Value::tensor(pixel_shuffled(arg(b, 0, "pixel_shuffle", "input"),
                                      as_int(b[1], "pixel_shuffle(): argument 'upscale_factor'"), true, "pixel_shuffle"));
}

Value pixel_unshuffle_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("pixel_unshuffle", a, {"input", "downscale_factor"}, 2);
  return Value::tensor(pixel_shuffled(arg(b, 0, "pixel_unshuffle", "input"),
                                      as_int(b[1], "pixel_unshuffle(): argument 'downscale_factor'"), false,
                                      "pixel_unshuffle"));
}

// A pair from an int or a list of two.
IntList pair_arg(const Bound& b, size_t k, int64_t fallback, const std::string& what) {
  if (!b.has(k)) return {fallback, fallback};
  if (b[k].tag == Tag::Int) return {b[k].i, b[k].i};
  IntList v = as_ints(b[k], what);
  if (v.size() != 2) fail(what + " must be an int or two ints, got " + std::to_string(v.size()));
  return v;
}

// The windows' selector: [C * kh * kw, 1, kh, kw], filter c * K + k one at cell k of
// its window (K = kh * kw), so that a grouped convolution (groups = C) copies each
// window's cells into channels, in unfold's order; its transpose adds them back.
Tensor window_selector(int64_t channels, int64_t kh, int64_t kw, const Tensor& like) {
  int64_t K = 0, cells = 0;
  if (__builtin_mul_overflow(kh, kw, &K) || __builtin_mul_overflow(K, K, &cells) ||
      __builtin_mul_overflow(cells, channels, &cells))
    cells = INT64_MAX;  // asked for below, which names it
  composite_args::ask_host_memory(cells, sizeof(double), "unfold/fold(): the window selector of " +
                                                             std::to_string(channels) + " channels and a " +
                                                             std::to_string(kh) + "x" + std::to_string(kw) + " kernel");
  std::vector<double> w(static_cast<size_t>(channels * K * K), 0.0);
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t k = 0; k < K; ++k) w[static_cast<size_t>((c * K + k) * K + k)] = 1.0;
  return to_device(tensor_from(w, {channels * K, 1, kh, kw}, like.dtype()), like.device());
}

struct Windows {
  IntList kernel, dilation, padding, stride;
};
Windows windows_of(const Bound& b, size_t first, const std::string& fname) {
  Windows w{pair_arg(b, first, 1, fname + "(): argument 'kernel_size'"),
            pair_arg(b, first + 1, 1, fname + "(): argument 'dilation'"),
            pair_arg(b, first + 2, 0, fname + "(): argument 'padding'"),
            pair_arg(b, first + 3, 1, fname + "(): argument 'stride'")};
  auto at_least = [&](const IntList& v, int64_t lo, const char* what) {
    for (int64_t x : v)
      if (x < lo)
        fail(fname + "(): argument '" + what + "' must be at least " + std::to_string(lo) + ", got " + std::to_string(x));
  };
  at_least(w.kernel, 1, "kernel_size");
  at_least(w.dilation, 1, "dilation");
  at_least(w.padding, 0, "padding");
  at_least(w.stride, 1, "stride");
  return w;
}

// As PyTorch's: each spatial dim must hold at least one window (a kernel larger than
// the padded input was a std::vector size error from the selector).
void check_unfold_blocks(const Tensor& x, const Windows& win) {
  for (size_t d = 0; d < 2; ++d) {
    // In 128 bits: a kernel, dilation or padding near 2^63 must not wrap.
    const __int128 padded = static_cast<__int128>(x.sizes()[2 + d]) + 2 * static_cast<__int128>(win.padding[d]);
    const __int128 span = static_cast<__int128>(win.dilation[d]) * (win.kernel[d] - 1);
    if (padded - span - 1 < 0)
      fail("unfold(): input of shape " + x.shape_str() + " with padding [" + std::to_string(win.padding[0]) + ", " +
           std::to_string(win.padding[1]) + "] is smaller than the kernel [" + std::to_string(win.kernel[0]) + ", " +
           std::to_string(win.kernel[1]) + "] (dilation [" + std::to_string(win.dilation[0]) + ", " +
           std::to_string(win.dilation[1]) + "]) in spatial dim " + std::to_string(d) + ": no window fits");
  }
}

// [N, C, H, W] -> [N, C kh kw, L]: every sliding window's cells as a column (im2col),
// as F.unfold; an input without its batch dim gives [C kh kw, L].
Value unfold_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("unfold", a, {"input", "kernel_size", "dilation", "padding", "stride"}, 2);
  Tensor x = arg(b, 0, "unfold", "input");
  if (x.dim() != 3 && x.dim() != 4) fail("unfold(): expected [N, C, H, W] or [C, H, W], got shape " + x.shape_str());
  const bool unbatched = x.dim() == 3;
  if (unbatched) x = unsqueeze(x, 0);
  Windows win = windows_of(b, 1, "unfold");
  check_unfold_blocks(x, win);
  const int64_t C = x.sizes()[1];
  Conv2dOptions opt{win.stride, win.padding, win.dilation, C};
  Tensor cols = conv2d(x, window_selector(C, win.kernel[0], win.kernel[1], x), Tensor(), opt);
  cols = reshape(cols, {cols.sizes()[0], cols.sizes()[1], -1});
  return Value::tensor(unbatched ? squeeze(cols, {0}) : cols);
}

// [N, C kh kw, L] -> [N, C, H, W]: the columns summed back into output_size, where
// windows overlap (col2im), as F.fold; unfold's adjoint.
Value fold_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("fold", a, {"input", "output_size", "kernel_size", "dilation", "padding", "stride"}, 3);
  Tensor x = arg(b, 0, "fold", "input");
  if (x.dim() != 2 && x.dim() != 3) fail("fold(): expected [N, C * kh * kw, L] or [C * kh * kw, L], got shape " + x.shape_str());
  const bool unbatched = x.dim() == 2;
  if (unbatched) x = unsqueeze(x, 0);
  IntList size = pair_arg(b, 1, 1, "fold(): argument 'output_size'");
  Windows win = windows_of(b, 2, "fold");
  const int64_t K = win.kernel[0] * win.kernel[1];
  IntList blocks(2);
  for (size_t d = 0; d < 2; ++d)
    blocks[d] = (size[d] + 2 * win.padding[d] - win.dilation[d] * (win.kernel[d] - 1) - 1) / win.stride[d] + 1;
  if (x.sizes()[1] % K != 0 || blocks[0] < 1 || blocks[1] < 1 || x.sizes()[2] != blocks[0] * blocks[1])
    fail("fold(): input " + x.shape_str() + " is not [N, C * " + std::to_string(K) + ", " +
         std::to_string(std::max<int64_t>(0, blocks[0]) * std::max<int64_t>(0, blocks[1])) +
         "] for output_size [" + std::to_string(size[0]) + ", " + std::to_string(size[1]) + "] and these windows");
  const int64_t C = x.sizes()[1] / K;
  // The transposed convolution crops padding at both ends; output_padding gives back
  // the rows and columns the last windows reach past that (less than the stride or
  // the dilation); rows and columns no window reaches are zeros.
  IntList reach(2), extra(2);
  for (size_t d = 0; d < 2; ++d) {
    const int64_t base = (blocks[d] - 1) * win.stride[d] - 2 * win.padding[d] + win.dilation[d] * (win.kernel[d] - 1) + 1;
    extra[d] = std::min(size[d] - base, std::max(win.stride[d], win.dilation[d]) - 1);
    reach[d] = base + extra[d];
  }
  ConvTransposeOptions opt{win.stride, win.padding, extra, C, win.dilation};
  Tensor image = conv_transpose2d(reshape(x, {x.sizes()[0], x.sizes()[1], blocks[0], blocks[1]}),
                                  window_selector(C, win.kernel[0], win.kernel[1], x), Tensor(), opt);
  image = pad(image, {0, size[1] - reach[1], 0, size[0] - reach[0]});
  return Value::tensor(unbatched ? squeeze(image, {0}) : image);
}

// ---- losses -------------------------------------------------------------------------

Value l1_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("l1_loss", a, {"input", "target", "reduction"}, 2);
  Tensor x = arg(b, 0, "l1_loss", "input"), t = operand(b[1], x, "l1_loss", "target");
  check_broadcast("l1_loss", {{"input", x}, {"target", t}});
  return Value::tensor(reduced(abs(x - t), b, 2, "l1_loss"));
}

// 0.5 d^2 / beta below beta, d - 0.5 beta above (d = |input - target|); beta 0 is L1.
Value smooth_l1_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("smooth_l1_loss", a, {"input", "target", "reduction", "beta"}, 2);
  Tensor x = arg(b, 0, "smooth_l1_loss", "input"), t = operand(b[1], x, "smooth_l1_loss", "target");
  check_broadcast("smooth_l1_loss", {{"input", x}, {"target", t}});
  Tensor d = abs(x - t);
  const double beta = num(b, 3, 1.0, "smooth_l1_loss(): argument 'beta'");
  if (!(beta >= 0)) fail("smooth_l1_loss(): beta must be at least 0, got " + float_repr(beta));
  Tensor loss = beta == 0 ? d : where(lt(d, number_like(beta, d)), d * d * (0.5 / beta), d - 0.5 * beta);
  return Value::tensor(reduced(loss, b, 2, "smooth_l1_loss"));
}

// 0.5 d^2 below delta, delta (d - 0.5 delta) above.
Value huber_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("huber_loss", a, {"input", "target", "reduction", "delta"}, 2);
  Tensor x = arg(b, 0, "huber_loss", "input"), t = operand(b[1], x, "huber_loss", "target");
  check_broadcast("huber_loss", {{"input", x}, {"target", t}});
  Tensor d = abs(x - t);
  const double delta = num(b, 3, 1.0, "huber_loss(): argument 'delta'");
  if (!(delta > 0)) fail("huber_loss(): delta must be positive, got " + float_repr(delta));
  return Value::tensor(reduced(where(lt(d, number_like(delta, d)), d * d * 0.5, (d - 0.5 * delta) * delta), b, 2, "huber_loss"));
}

// log(1 + exp(-target input)), target +1 or -1.
Value soft_margin_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("soft_margin_loss", a, {"input", "target", "reduction"}, 2);
  Tensor x = arg(b, 0, "soft_margin_loss", "input"), t = operand(b[1], x, "soft_margin_loss", "target");
  check_broadcast("soft_margin_loss", {{"input", x}, {"target", t}});
  return Value::tensor(reduced(log1p(exp(-t * x)), b, 2, "soft_margin_loss"));
}

// max(0, -target (input1 - input2) + margin).
Value margin_ranking_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("margin_ranking_loss", a, {"input1", "input2", "target", "margin", "reduction"}, 3);
  Tensor x1 = arg(b, 0, "margin_ranking_loss", "input1"), x2 = operand(b[1], x1, "margin_ranking_loss", "input2");
  Tensor y = operand(b[2], x1, "margin_ranking_loss", "target");
  check_broadcast("margin_ranking_loss", {{"input1", x1}, {"input2", x2}, {"target", y}});
  Tensor loss = clamp(-y * (x1 - x2) + num(b, 3, 0.0, "margin_ranking_loss(): argument 'margin'"), 0.0, std::nullopt);
  return Value::tensor(reduced(loss, b, 4, "margin_ranking_loss"));
}

// input where target is 1, max(0, margin - input) where it is -1 (PyTorch's sum of both).
Value hinge_embedding_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("hinge_embedding_loss", a, {"input", "target", "margin", "reduction"}, 2);
  Tensor x = arg(b, 0, "hinge_embedding_loss", "input"), y = operand(b[1], x, "hinge_embedding_loss", "target");
  check_broadcast("hinge_embedding_loss", {{"input", x}, {"target", y}});
  const double margin = num(b, 2, 1.0, "hinge_embedding_loss(): argument 'margin'");
  Tensor zero = number_like(0.0, x);
  Tensor below = where(ne(y, number_like(1.0, y)), clamp(margin - x, 0.0, std::nullopt), zero);
  Tensor self = where(ne(y, number_like(-1.0, y)), x, zero);
  return Value::tensor(reduced(below + self, b, 3, "hinge_embedding_loss"));
}

// 1 - cos where target is 1, max(0, cos - margin) where it is -1, with PyTorch's
// cos = sum(x1 x2) / sqrt((|x1|^2 + 1e-12)(|x2|^2 + 1e-12)) over dim 1 (the last of 1-D).
Value cosine_embedding_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("cosine_embedding_loss", a, {"input1", "input2", "target", "margin", "reduction"}, 3);
  Tensor x1 = arg(b, 0, "cosine_embedding_loss", "input1"), x2 = arg(b, 1, "cosine_embedding_loss", "input2");
  Tensor y = operand(b[2], x1, "cosine_embedding_loss", "target");
  // As PyTorch's: the inputs have one shape, [N, D] or [D], and target one value per row.
  if (x1.sizes() != x2.sizes() || x1.dim() < 1 || x1.dim() > 2)
    fail("cosine_embedding_loss(): arguments 'input1' and 'input2' must have one shape, [N, D] or [D], got " +
         x1.shape_str() + " and " + x2.shape_str());
  if (y.dim() != x1.dim() - 1 || (y.dim() == 1 && y.sizes()[0] != x1.sizes()[0]))
    fail("cosine_embedding_loss(): argument 'target' must hold one value per row of the inputs " + x1.shape_str() +
         " (shape " + (x1.dim() == 2 ? "[" + std::to_string(x1.sizes()[0]) + "]" : std::string("[]")) + "), got " +
         y.shape_str());
  const int64_t dim = x1.dim() - 1;
  const double eps = 1e-12;
  Tensor cos = sum(x1 * x2, {dim}) / sqrt((sum(x1 * x1, {dim}) + eps) * (sum(x2 * x2, {dim}) + eps));
  Tensor zero = number_like(0.0, cos);
  Tensor pos = where(eq(y, number_like(1.0, y)), 1.0 - cos, zero);
  Tensor neg = where(eq(y, number_like(-1.0, y)),
                     clamp(cos - num(b, 3, 0.0, "cosine_embedding_loss(): argument 'margin'"), 0.0, std::nullopt), zero);
  return Value::tensor(reduced(pos + neg, b, 4, "cosine_embedding_loss"));
}

// max(d(a, p) - d(a, n) + margin, 0) with pairwise_distance's d; swap takes the smaller
// of d(a, n) and d(p, n).
Value triplet_margin_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("triplet_margin_loss", a, {"anchor", "positive", "negative", "margin", "p", "eps", "swap", "reduction"}, 3);
  Tensor an = arg(b, 0, "triplet_margin_loss", "anchor"), po = arg(b, 1, "triplet_margin_loss", "positive");
  Tensor ne_ = arg(b, 2, "triplet_margin_loss", "negative");
  check_broadcast("triplet_margin_loss", {{"anchor", an}, {"positive", po}, {"negative", ne_}});
  const double p = p_arg(b, 4, "triplet_margin_loss"), eps = num(b, 5, 1e-6, "triplet_margin_loss(): argument 'eps'");
  auto distance = [&](const Tensor& u, const Tensor& v) {
    Tensor diff = u - v + eps;
    return vector_norm(diff, p, {diff.dim() - 1}, false);
  };
  Tensor d_neg = distance(an, ne_);
  if (b.has(6) && as_bool(b[6], "triplet_margin_loss(): argument 'swap'")) d_neg = minimum(d_neg, distance(po, ne_));
  Tensor loss = clamp(distance(an, po) - d_neg + num(b, 3, 1.0, "triplet_margin_loss(): argument 'margin'"), 0.0,
                      std::nullopt);
  return Value::tensor(reduced(loss, b, 7, "triplet_margin_loss"));
}

// exp(input) - target input (log_input), else input - target log(input + eps); full
// adds Stirling's target log target - target + 0.5 log(2 pi target) where target > 1.
Value poisson_nll_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("poisson_nll_loss", a, {"input", "target", "log_input", "full", "eps", "reduction"}, 2);
  Tensor x = arg(b, 0, "poisson_nll_loss", "input"), t = operand(b[1], x, "poisson_nll_loss", "target");
  check_broadcast("poisson_nll_loss", {{"input", x}, {"target", t}});
  const bool log_input = !b.has(2) || as_bool(b[2], "poisson_nll_loss(): argument 'log_input'");
  const double eps = num(b, 4, 1e-8, "poisson_nll_loss(): argument 'eps'");
  Tensor loss = log_input ? exp(x) - t * x : x - t * log(x + eps);
  if (b.has(3) && as_bool(b[3], "poisson_nll_loss(): argument 'full'")) {
    Tensor safe = where(gt(t, number_like(1.0, t)), t, number_like(1.0, t));
    Tensor stirling = safe * log(safe) - safe + log(safe * (2.0 * M_PI)) * 0.5;
    loss = loss + where(gt(t, number_like(1.0, t)), stirling, number_like(0.0, t));
  }
  return Value::tensor(reduced(loss, b, 5, "poisson_nll_loss"));
}

// 0.5 (log(var) + (input - target)^2 / var) (+ 0.5 log(2 pi) with full), var clamped
// to eps without a gradient effect, as PyTorch's; var may lack input's last dim.
Value gaussian_nll_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("gaussian_nll_loss", a, {"input", "target", "var", "full", "eps", "reduction"}, 3);
  Tensor x = arg(b, 0, "gaussian_nll_loss", "input"), t = operand(b[1], x, "gaussian_nll_loss", "target");
  Tensor var = operand(b[2], x, "gaussian_nll_loss", "var");
  check_broadcast("gaussian_nll_loss", {{"input", x}, {"target", t}});
  const bool one_less = var.dim() == x.dim() - 1;  // PyTorch's var without input's last dim
  if (one_less) var = unsqueeze(var, var.dim());
  check_broadcast("gaussian_nll_loss", {{"input", x}, {one_less ? "var (given a last dim of 1)" : "var", var}});
  Tensor negative = lt(var, number_like(0.0, var));
  if (contiguous(to_device(to_dtype(sum(to_dtype(negative, DType::i64)), DType::f64), cpu_device())).data<double>()[0] > 0)
    fail("gaussian_nll_loss(): var has negative entries");
  const double eps = num(b, 4, 1e-6, "gaussian_nll_loss(): argument 'eps'");
  Tensor v = var + detach(clamp(var, eps, std::nullopt) - var);
  Tensor loss = (log(v) + (x - t) * (x - t) / v) * 0.5;
  if (b.has(3) && as_bool(b[3], "gaussian_nll_loss(): argument 'full'")) loss = loss + 0.5 * std::log(2.0 * M_PI);
  return Value::tensor(reduced(loss, b, 5, "gaussian_nll_loss"));
}

// -(target log sigmoid(input) + (1 - target) log sigmoid(-input)), times weight,
// averaged over the classes (the last dim), then reduced.
Value multilabel_soft_margin_loss_builtin(Evaluator&, CallArgs& a) {
  Bound b = bind("multilabel_soft_margin_loss", a, {"input", "target", "weight", "reduction"}, 2);
  Tensor x = arg(b, 0, "multilabel_soft_margin_loss", "input"), t = operand(b[1], x, "multilabel_soft_margin_loss", "target");
  check_broadcast("multilabel_soft_margin_loss", {{"input", x}, {"target", t}});
  Tensor loss = -(t * logsigmoid_of(x) + (1.0 - t) * logsigmoid_of(-x));
  if (b.has(2)) loss = loss * arg(b, 2, "multilabel_soft_margin_loss", "weight");
  return Value::tensor(reduced(mean(loss, {x.dim() - 1}), b, 3, "multilabel_soft_margin_loss"));
}

}  // namespace

const BuiltinEntry kCompositeNn[] = {
    {"relu6", relu6_builtin, "relu6(input)", "x clamped to [0, 6]. Example: relu6(tensor([-1.0, 3.0, 9.0]))"},
    {"hardsigmoid", hardsigmoid_builtin, "hardsigmoid(input)",
     "relu6(x + 3) / 6 of each element. Example: hardsigmoid(tensor([-4.0, 0.0, 1.0]))"},
    {"selu", selu_builtin, "selu(input)", "scale * elu(x, alpha) with the self-normalizing constants. Example: selu(tensor([-1.0, 1.0]))"},
    {"celu", celu_builtin, "celu(input, alpha=1.0)",
     "max(0, x) + min(0, alpha (exp(x / alpha) - 1)). Example: celu(tensor([-1.0, 1.0]), 0.5)"},
    {"prelu", prelu_builtin, "prelu(input, weight)",
     "x where x > 0, else weight * x (one slope, or one per channel of dim 1). Example: prelu(tensor([-2.0, 2.0]), tensor([0.25]))"},
    {"glu", glu_builtin, "glu(input, dim=-1)",
     "a * sigmoid(b), a and b the halves of input along dim. Example: glu(tensor([1.0, 2.0, 0.0, 3.0]))"},
    {"softsign", softsign_builtin, "softsign(input)", "x / (1 + |x|) of each element. Example: softsign(tensor([-3.0, 1.0]))"},
    {"logsigmoid", logsigmoid_builtin, "logsigmoid(input)",
     "log(sigmoid(x)) of each element, computed stably. Example: logsigmoid(tensor([-100.0, 0.0]))"},
    {"softmin", softmin_builtin, "softmin(input, dim=-1)", "softmax(-input) along dim. Example: softmin(tensor([1.0, 2.0]))"},
    {"hardshrink", hardshrink_builtin, "hardshrink(input, lambd=0.5)",
     "x where |x| > lambd, else 0. Example: hardshrink(tensor([-1.0, 0.2, 1.0]))"},
    {"softshrink", softshrink_builtin, "softshrink(input, lambd=0.5)",
     "x - lambd above lambd, x + lambd below -lambd, else 0. Example: softshrink(tensor([-1.0, 0.2, 1.0]))"},
    {"tanhshrink", tanhshrink_builtin, "tanhshrink(input)", "x - tanh(x) of each element. Example: tanhshrink(tensor([1.0]))"},
    {"threshold", threshold_builtin, "threshold(input, threshold, value)",
     "x where x > threshold, else value. Example: threshold(tensor([0.0, 0.5, 2.0]), 1.0, -1.0)"},
    {"dropout1d", dropout1d_builtin, "dropout1d(input, p=0.5, training=true)",
     "Whole channels of [N, C, L] zeroed with probability p (the rest scaled by 1 / (1 - p)). Example: dropout1d(ones([2, 4, 3]), 0.5)"},
    {"dropout2d", dropout2d_builtin, "dropout2d(input, p=0.5, training=true)",
     "Whole channels of [N, C, H, W] zeroed with probability p (the rest scaled by 1 / (1 - p)). Example: dropout2d(ones([2, 4, 3, 3]), 0.5)"},
    {"dropout3d", dropout3d_builtin, "dropout3d(input, p=0.5, training=true)",
     "Whole channels of [N, C, D, H, W] zeroed with probability p. Example: dropout3d(ones([1, 4, 2, 2, 2]), 0.5)"},
    {"normalize", normalize_builtin, "normalize(input, p=2.0, dim=1, eps=1e-12)",
     "input / max(||input||_p, eps) along dim, as F.normalize. Example: normalize(tensor([[3.0, 4.0]]))"},
    {"cosine_similarity", cosine_similarity_builtin, "cosine_similarity(x1, x2, dim=1, eps=1e-8)",
     "The cosine of the angle between x1 and x2 along dim, as F.cosine_similarity. "
     "Example: cosine_similarity(tensor([[1.0, 0.0]]), tensor([[1.0, 1.0]]))"},
    {"pairwise_distance", pairwise_distance_builtin, "pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=false)",
     "||x1 - x2 + eps||_p over the last dim, as F.pairwise_distance. Example: pairwise_distance(zeros([1, 2]), tensor([[3.0, 4.0]]))"},
    {"cdist", cdist_builtin, "cdist(x1, x2, p=2.0, compute_mode=\"use_mm_for_euclid_dist_if_necessary\")",
     "The p-norm distances between the rows of x1 [..., P, M] and of x2 [..., R, M], as torch.cdist. "
     "Example: cdist(zeros([1, 2]), tensor([[3.0, 4.0], [0.0, 1.0]]))"},
    {"pixel_shuffle", pixel_shuffle_builtin, "pixel_shuffle(input, upscale_factor)",
     "[*, C r^2, H, W] rearranged into [*, C, H r, W r]. Example: pixel_shuffle(zeros([1, 4, 2, 2]), 2).shape"},
    {"pixel_unshuffle", pixel_unshuffle_builtin, "pixel_unshuffle(input, downscale_factor)",
     "[*, C, H r, W r] rearranged into [*, C r^2, H, W]. Example: pixel_unshuffle(zeros([1, 1, 4, 4]), 2).shape"},
    {"unfold", unfold_builtin, "unfold(input, kernel_size, dilation=1, padding=0, stride=1)",
     "Each sliding window's cells as a column, [N, C kh kw, L] (im2col), as F.unfold. Example: unfold(ones([1, 2, 4, 4]), 2).shape"},
    {"fold", fold_builtin, "fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1)",
     "The columns of unfold summed back into [N, C, H, W] (col2im), as F.fold. Example: fold(ones([1, 8, 9]), [4, 4], 2).shape"},
    {"l1_loss", l1_loss_builtin, "l1_loss(input, target, reduction=\"mean\")",
     "The mean (or sum) of |input - target|. Example: l1_loss(tensor([1.0, 2.0]), tensor([0.0, 4.0]))"},
    {"smooth_l1_loss", smooth_l1_loss_builtin, "smooth_l1_loss(input, target, reduction=\"mean\", beta=1.0)",
     "Squared below beta, absolute above, as F.smooth_l1_loss. Example: smooth_l1_loss(tensor([0.5, 3.0]), zeros([2]))"},
    {"huber_loss", huber_loss_builtin, "huber_loss(input, target, reduction=\"mean\", delta=1.0)",
     "0.5 d^2 below delta, delta (d - 0.5 delta) above, as F.huber_loss. Example: huber_loss(tensor([0.5, 3.0]), zeros([2]))"},
    {"soft_margin_loss", soft_margin_loss_builtin, "soft_margin_loss(input, target, reduction=\"mean\")",
     "log(1 + exp(-target * input)), targets +1 or -1. Example: soft_margin_loss(tensor([2.0, -1.0]), tensor([1.0, 1.0]))"},
    {"margin_ranking_loss", margin_ranking_loss_builtin,
     "margin_ranking_loss(input1, input2, target, margin=0.0, reduction=\"mean\")",
     "max(0, -target (input1 - input2) + margin). Example: margin_ranking_loss(tensor([1.0]), tensor([2.0]), tensor([1.0]))"},
    {"hinge_embedding_loss", hinge_embedding_loss_builtin,
     "hinge_embedding_loss(input, target, margin=1.0, reduction=\"mean\")",
     "input where target is 1, max(0, margin - input) where it is -1. "
     "Example: hinge_embedding_loss(tensor([0.5, 0.3]), tensor([1.0, -1.0]))"},
    {"cosine_embedding_loss", cosine_embedding_loss_builtin,
     "cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=\"mean\")",
     "1 - cos(input1, input2) where target is 1, max(0, cos - margin) where it is -1. "
     "Example: cosine_embedding_loss(ones([2, 3]), ones([2, 3]), tensor([1.0, -1.0]))"},
    {"triplet_margin_loss", triplet_margin_loss_builtin,
     "triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=false, reduction=\"mean\")",
     "max(d(anchor, positive) - d(anchor, negative) + margin, 0). "
     "Example: triplet_margin_loss(zeros([1, 2]), ones([1, 2]), tensor([[3.0, 0.0]]))"},
    {"poisson_nll_loss", poisson_nll_loss_builtin,
     "poisson_nll_loss(input, target, log_input=true, full=false, eps=1e-8, reduction=\"mean\")",
     "The Poisson negative log likelihood, as F.poisson_nll_loss. Example: poisson_nll_loss(tensor([0.5]), tensor([2.0]))"},
    {"gaussian_nll_loss", gaussian_nll_loss_builtin,
     "gaussian_nll_loss(input, target, var, full=false, eps=1e-6, reduction=\"mean\")",
     "The Gaussian negative log likelihood with variance var, as F.gaussian_nll_loss. "
     "Example: gaussian_nll_loss(tensor([1.0]), tensor([1.5]), tensor([0.5]))"},
    {"multilabel_soft_margin_loss", multilabel_soft_margin_loss_builtin,
     "multilabel_soft_margin_loss(input, target, weight=none, reduction=\"mean\")",
     "Binary cross entropy of each class from logits, averaged over the classes. "
     "Example: multilabel_soft_margin_loss(tensor([[1.0, -1.0]]), tensor([[1.0, 0.0]]))"},
};

std::span<const BuiltinEntry> composite_nn() { return kCompositeNn; }

}  // namespace nabla::interp
