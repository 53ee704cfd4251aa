// The classification losses as PyTorch's functional API calls them, and ctc_loss (Note
// [CTC as a scan of rows]): cross_entropy and
// nll_loss take class weights (weight=, also PyTorch's third positional argument) and
// cross_entropy takes class probabilities as its target (soft labels, with
// label_smoothing); binary_cross_entropy takes weight=, and the logits form weight=
// and pos_weight=. The rows (autograd/ops/loss.cpp) take class indices and no
// weights; a call with none of these is the row's, and one with them is a composite
// of rows (Note [Composites] in composites.hpp), so it differentiates and compiles
// as they do. tests/stdlib/test_composites.dsl checks each against PyTorch in f64.
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/trace.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

// Takes keyword `name` out of a (it is not the row's); none when absent.
Value take_keyword(CallArgs& a, const char* name) {
  for (auto it = a.kw.begin(); it != a.kw.end(); ++it)
    if (it->first == name) {
      Value v = std::move(it->second);
      a.kw.erase(it);
      return v;
    }
  return Value();
}

// weight= or, as PyTorch's functions take it, a tensor third positional argument (the
// row's third is the reduction, a string).
Value take_weight(CallArgs& a) {
  Value w = take_keyword(a, "weight");
  if (w.is_none() && a.pos.size() > 2 && a.pos[2].tag == Tag::Tensor) {
    w = a.pos[2];
    a.pos.erase(a.pos.begin() + 2);
  }
  return w;
}

std::string reduction_of(const Bound& b, size_t k, const std::string& fname) {
  if (!b.has(k)) return "mean";
  if (b[k].tag != Tag::Str) fail(fname + "(): argument 'reduction' must be \"mean\", \"sum\" or \"none\", got " + repr(b[k]));
  const std::string& r = b[k].as<StrObj>()->s;
  if (r != "mean" && r != "sum" && r != "none")
    fail(fname + "(): argument 'reduction': expected 'mean', 'sum' or 'none', got '" + r + "'");
  return r;
}

// A class weight for input's C classes: a 1-D tensor of C floats.
Tensor class_weight(const Value& v, const Tensor& input, const std::string& fname) {
  Tensor w = required_input(v, fname, "weight");
  const int64_t classes = input.dim() > 1 ? input.sizes()[1] : input.sizes()[0];
  if (w.dim() != 1 || w.sizes()[0] != classes || !is_floating(w.dtype()))
    fail(fname + "(): argument 'weight' must be a floating 1-D tensor of " + std::to_string(classes) +
         " class weights (the input's dim 1), got " + dtype_name(w.dtype()) + w.shape_str());
  return w;
}

// w viewed to broadcast along the class dim (1) of an input of `dims` dims.
Tensor along_classes(const Tensor& w, int64_t dims) {
  IntList shape(static_cast<size_t>(dims), 1);
  shape[1] = w.sizes()[0];
  return reshape(w, shape);
}

struct ClassLoss {
  Tensor logp;    // [N, C, ...] log-probabilities
  Tensor target;  // [N, ...] class indices
  Tensor weight;  // [C] or undefined
  int64_t ignore_index = -100;
  double smoothing = 0;
  std::string reduction = "mean";
};

// PyTorch's weighted negative log likelihood with label smoothing: per element
// -(1 - e) w[y] logp[y] - (e / C) sum_c w[c] logp[c], 0 where y is ignore_index; the
// mean divides by the summed w[y] of the elements kept (nll_loss_nd's rule, which
// cross_entropy's smoothing term follows too). An ignored element's loss is a
// selected 0, not a product with 0: with every element ignored the mean's gradient is
// g / 0 = inf, and PyTorch's is 0 there (inf * 0 was NaN).
Tensor class_loss(const ClassLoss& c) {
  const Tensor& y = c.target;
  const int64_t classes = c.logp.sizes()[1];
  Tensor kept = ne(y, scalar_tensor(static_cast<double>(c.ignore_index), y.dtype()));
  Tensor safe = where(kept, y, scalar_tensor(0.0, y.dtype()));
  Tensor keep = to_dtype(kept, c.logp.dtype());
  Tensor picked = squeeze(gather(c.logp, 1, unsqueeze(safe, 1)), {1});
  Tensor w_y = c.weight.defined() ? reshape(index_select(c.weight, 0, flatten(safe)), y.sizes().vec()) * keep : keep;
  Tensor zero = scalar_tensor(0.0, c.logp.dtype());
  Tensor loss = where(kept, -(picked * w_y), zero);
  if (c.smoothing > 0) {
    Tensor weighted = c.weight.defined() ? c.logp * along_classes(c.weight, c.logp.dim()) : c.logp;
    Tensor smooth = where(kept, -sum(weighted, {1}), zero);
    loss = loss * (1.0 - c.smoothing) + smooth * (c.smoothing / static_cast<double>(classes));
  }
  if (c.reduction == "sum") return sum(loss);
  if (c.reduction == "none") return loss;
  return sum(loss) / sum(w_y);
}

// Eagerly, a target outside [0, C) (other than ignore_index) is an error that says so;
// a graph capture must not read values (it would bake them in), and there the gather
// that picks the class names the bad index itself.
void check_classes(const std::string& f, const ClassLoss& c) {
  if (op_observer() || c.target.numel() == 0) return;
  const int64_t classes = c.logp.sizes()[1];
  Tensor kept = ne(c.target, scalar_tensor(static_cast<double>(c.ignore_index), c.target.dtype()));
  Tensor below = lt(c.target, scalar_tensor(0.0, c.target.dtype()));
  Tensor outside = where(below, below, ge(c.target, scalar_tensor(static_cast<double>(classes), c.target.dtype())));
  Tensor bad = where(kept, outside, kept);
  if (sum(to_dtype(bad, DType::i64)).item() == 0) return;
  const double at = max(where(bad, c.target, scalar_tensor(-1e18, c.target.dtype()))).item();
  fail(f + "(): target " + std::to_string(static_cast<int64_t>(at)) + " is out of range for " +
       std::to_string(classes) + " classes (targets are 0 to " + std::to_string(classes - 1) + ", or ignore_index " +
       std::to_string(c.ignore_index) + ")");
}

// cross_entropy with class probabilities as the target ([N, C, ...], input's shape):
// -sum_c w[c] t[c] logp[c] per element, the mean over the elements (not the weights),
// the target smoothed toward uniform first.
Tensor probability_loss(const Tensor& logp, Tensor target, const Tensor& weight, double smoothing,
                        const std::string& reduction) {
  const int64_t classes = logp.sizes()[1];
  if (smoothing > 0) target = target * (1.0 - smoothing) + smoothing / static_cast<double>(classes);
  Tensor prod = logp * target;
  if (weight.defined()) prod = prod * along_classes(weight, logp.dim());
  if (reduction == "none") return -sum(prod, {1});
  if (reduction == "sum") return -sum(prod);
  return -sum(prod) / static_cast<double>(logp.numel() / std::max<int64_t>(classes, 1));
}

// cross_entropy and nll_loss: the row, or the composite with weight= or (cross_entropy)
// a floating target.
Value class_loss_call(CallArgs& a, const char* fname, bool from_logits) {
  const std::string f = fname;
  Value weight = take_weight(a);
  const Value* target = a.pos.size() > 1 ? &a.pos[1] : a.find_kw("target");
  const bool probabilities = from_logits && target && target->tag == Tag::Tensor && is_floating(target->t.dtype());
  if (weight.is_none() && !probabilities) return row_call(fname, a);
  Bound b = from_logits ? bind(f, a, {"input", "target", "reduction", "ignore_index", "label_smoothing"}, 2)
                        : bind(f, a, {"input", "target", "reduction", "ignore_index"}, 2);
  Tensor x = required_input(b[0], f, "input"), y = required_input(b[1], f, "target");
  if (!is_floating(x.dtype())) fail(f + "(): argument 'input' must be floating, got " + dtype_name(x.dtype()));
  // A 0-dim input has no class dim (its class count was read past the end of its shape).
  if (x.dim() == 0) fail(f + "(): argument 'input' must be [N, C, ...] or [C] (a score per class), got a 0-dim tensor");
  const bool unbatched = x.dim() == 1;
  if (unbatched) x = unsqueeze(x, 0), y = unsqueeze(y, 0);
  Tensor w = weight.is_none() ? Tensor() : class_weight(weight, x, f);
  const double smoothing = from_logits && b.has(4) ? as_num(b[4], f + "(): argument 'label_smoothing'") : 0.0;
  if (!(smoothing >= 0 && smoothing <= 1))  // NaN too
    fail(f + "(): argument 'label_smoothing' must be in [0, 1], got " + float_repr(smoothing));
  const std::string reduction = reduction_of(b, 2, f);
  Tensor logp = from_logits ? log_softmax(x, 1) : x;
  Tensor out;
  if (probabilities) {
    if (!(y.sizes() == x.sizes()))
      fail(f + "(): a floating target holds class probabilities and must have the input's shape " + x.shape_str() +
           ", got " + y.shape_str());
    out = probability_loss(logp, y, w, smoothing, reduction);
  } else {
    if (is_floating(y.dtype()) || y.dtype() == DType::b8)
      fail(f + "(): argument 'target' must hold class indices (an integer tensor), got " + dtype_name(y.dtype()));
    IntList dims = x.sizes().vec();
    dims.erase(dims.begin() + 1);
    Shape want(dims);
    if (!(y.sizes() == want))
      fail(f + "(): argument 'target' of shape " + y.shape_str() + " must be the input's " + x.shape_str() +
           " without its class dim, " + shape_str(want));
    ClassLoss c{logp, y, w, b.has(3) ? as_int(b[3], f + "(): argument 'ignore_index'") : -100, smoothing, reduction};
    check_classes(f, c);
    out = class_loss(c);
  }
  return Value::tensor(unbatched && reduction == "none" ? squeeze(out, {0}) : out);
}

// binary_cross_entropy(_with_logits) with weight= (and pos_weight=, logits): the row
// with reduction "none" times the weights where only weight is given; PyTorch's
// formula (1 - t) x + (1 + (pos_weight - 1) t) softplus(-x) with pos_weight.
Value binary_loss_call(CallArgs& a, const char* fname, bool logits) {
  const std::string f = fname;
  Value weight = take_weight(a);
  Value pos_weight = logits ? take_keyword(a, "pos_weight") : Value();
  if (weight.is_none() && pos_weight.is_none()) return row_call(fname, a);
  Bound b = bind(f, a, {"input", "target", "reduction"}, 2);
  Tensor x = required_input(b[0], f, "input");
  Tensor t = b[1].is_num() ? scalar_tensor(as_num(b[1], f), x.dtype()) : required_input(b[1], f, "target");
  const std::string reduction = reduction_of(b, 2, f);
  composite_args::check_broadcast(f, {{"input", x}, {"target", t}});
  Tensor loss;
  if (!pos_weight.is_none()) {
    Tensor pw = input_of(pos_weight, f, "pos_weight");
    composite_args::check_broadcast(f, {{"input", x}, {"target", t}, {"pos_weight", pw}});
    // -min(x, 0), not max(-x, 0): at x = 0 minimum's tie gives each side half the
    // gradient, so the sum's derivative is -sigmoid(0) = -0.5 (clamp would pass all of
    // it, -1, where a zero-initialized head puts its logits).
    Tensor softplus_neg = log1p(exp(-abs(x))) - minimum(x, number_like(0.0, x));
    loss = (1.0 - t) * x + ((pw - 1.0) * t + 1.0) * softplus_neg;
  } else {
    CallArgs none_reduced;
    none_reduced.pos = {Value::tensor(x), Value::tensor(t)};
    none_reduced.kw = {{"reduction", make_str("none")}};
    loss = row_call(fname, none_reduced).t;
  }
  if (!weight.is_none()) {
    Tensor w = input_of(weight, f, "weight");
    composite_args::check_broadcast(f, {{"input", x}, {"weight", w}});
    loss = loss * w;
  }
  if (reduction == "sum") return Value::tensor(sum(loss));
  if (reduction == "none") return Value::tensor(loss);
  return Value::tensor(mean(loss));
}

// ---- ctc_loss -------------------------------------------------------------------------
// Note [CTC as a scan of rows]
// The connectionist temporal classification loss (Graves et al. 2006) is the forward
// (alpha) recursion over each target's extended sequence (blank, l1, blank, l2, ...,
// blank), in log space, one time step at a time: alpha_t(s) = logsumexp(alpha_{t-1}(s),
// alpha_{t-1}(s-1), alpha_{t-1}(s-2) where l_s is no blank and differs from l_{s-2}) +
// log p_t(l_s), for the whole batch at once ([N, 2S+1]); a sequence's alpha stops at its
// own input length. Written with rows (gather, cat, logsumexp, where), it differentiates
// by autograd, to any order: the gradient with respect to log_probs is the true partial
// -posterior, which through log_softmax is PyTorch's exp(log_probs) - posterior (PyTorch
// returns the latter as log_probs' own gradient). Unreachable states hold a large
// negative number, not -inf, so no 0 * inf appears in the gradients; an impossible
// alignment's loss is inf (0, and no gradient, with zero_infinity).
constexpr double kNever = -1e30;  // log of an unreachable state's probability
constexpr double kInfinite = 1e29;  // a loss past this was an impossible alignment

// The lengths argument as an i64 tensor of n values (a list or a tensor).
Tensor lengths_arg(const Value& v, int64_t n, const std::string& what) {
  if (v.tag == Tag::Tensor) notify_value_read(v.t, what);  // the recursion's shape follows them
  // A list keeps its own dtype (a float in it is an error, not cut to an int).
  Tensor t = v.tag == Tag::Tensor ? v.t : tensor_from_value(v, std::nullopt);
  if (t.numel() == 0 && v.tag != Tag::Tensor) t = to_dtype(t, DType::i64);  // [] for N = 0
  if (t.dim() != 1 || t.numel() != n || is_floating(t.dtype()) || t.dtype() == DType::b8)
    fail(what + " must hold one integer per sequence (" + std::to_string(n) + "), got " + dtype_name(t.dtype()) +
         t.shape_str());
  return to_device(to_dtype(t, DType::i64), cpu_device());
}

// A bool tensor on `device` of flags made on the host (nonzero: true).
Tensor host_mask(const std::vector<double>& flags, const Shape& shape, Device device) {
  return to_device(to_dtype(tensor_from(flags, shape, DType::f32), DType::b8), device);
}

Value ctc_loss_builtin(Evaluator&, CallArgs& a) {
  const std::string f = "ctc_loss";
  Bound b = bind(f, a, {"log_probs", "targets", "input_lengths", "target_lengths", "blank", "reduction", "zero_infinity"}, 4);
  Tensor lp = required_input(b[0], f, "log_probs");
  Tensor targets = required_input(b[1], f, "targets");
  const bool unbatched = lp.dim() == 2;
  if (unbatched) lp = unsqueeze(lp, 1);
  if (lp.dim() != 3 || !is_floating(lp.dtype()))
    fail(f + "(): argument 'log_probs' must be floating [T, N, C] (or [T, C]), got " + dtype_name(lp.dtype()) + lp.shape_str());
  const int64_t T = lp.sizes()[0], N = lp.sizes()[1], C = lp.sizes()[2];
  const int64_t blank = b.has(4) ? as_int(b[4], f + "(): argument 'blank'") : 0;
  if (blank < 0 || blank >= C) fail(f + "(): argument 'blank' (" + std::to_string(blank) + ") must be a class, 0 to " + std::to_string(C - 1));
  const std::string reduction = reduction_of(b, 5, f);
  const bool zero_infinity = b.has(6) && as_bool(b[6], f + "(): argument 'zero_infinity'");
  Tensor in_len = lengths_arg(b[2], N, f + "(): argument 'input_lengths'");
  Tensor tgt_len = lengths_arg(b[3], N, f + "(): argument 'target_lengths'");
  // Note [CTC arguments checked first]: every length and target is checked, on the host
  // and in int64 (a double would round 2^63 - 1), before anything is sized from them: a
  // target length past its targets or a padded block of another batch sized the
  // extended sequences wrongly and read or wrote past them.
  const std::vector<int64_t> ins = to_int64_vector(in_len), tls = to_int64_vector(tgt_len);
  // The targets as [N, S]: padded rows, or one concatenated 1-D list cut by the lengths.
  if (unbatched && targets.dim() == 1) targets = unsqueeze(targets, 0);
  if (is_floating(targets.dtype()) || targets.dtype() == DType::b8)
    fail(f + "(): argument 'targets' must hold class indices (an integer tensor), got " + dtype_name(targets.dtype()));
  const bool padded = targets.dim() == 2;
  if (targets.dim() != 1 && !padded)
    fail(f + "(): argument 'targets' must be [N, S] (padded) or 1-D (concatenated), got shape " + targets.shape_str());
  if (padded && targets.sizes()[0] != N)
    fail(f + "(): argument 'targets' of shape " + targets.shape_str() + " must have one row per sequence (" +
         std::to_string(N) + ")");
  int64_t S = 0, total = 0;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t len = tls[static_cast<size_t>(n)], in = ins[static_cast<size_t>(n)];
    if (in < 0 || in > T) fail(f + "(): input_lengths[" + std::to_string(n) + "] is " + std::to_string(in) + ", outside 0 to " + std::to_string(T));
    const int64_t room = padded ? targets.sizes()[1] : targets.numel() - total;
    if (len < 0 || len > room)
      fail(f + "(): target_lengths[" + std::to_string(n) + "] (" + std::to_string(len) + ") does not fit the targets " + targets.shape_str());
    total += len;
    S = std::max(S, len);
  }
  notify_value_read(targets, f + "(): targets");  // the extended label sequences are made on the host
  const std::vector<int64_t> flat = to_int64_vector(to_device(targets, cpu_device()));
  std::vector<double> ext(static_cast<size_t>(N * (2 * S + 1)), static_cast<double>(blank));
  int64_t offset = 0;
  for (int64_t n = 0; n < N; ++n) {
    const int64_t len = tls[static_cast<size_t>(n)];
    for (int64_t j = 0; j < len; ++j) {
      const int64_t c = flat[static_cast<size_t>(padded ? n * targets.sizes()[1] + j : offset + j)];
      if (c < 0 || c >= C || c == blank)
        fail(f + "(): target " + std::to_string(c) + " of sequence " + std::to_string(n) +
             " must be a class 0 to " + std::to_string(C - 1) + " other than the blank " + std::to_string(blank));
      ext[static_cast<size_t>(n * (2 * S + 1) + 2 * j + 1)] = static_cast<double>(c);
    }
    offset += len;
  }
  const int64_t W = 2 * S + 1;
  Tensor labels = to_device(tensor_from(ext, {N, W}, DType::i64), lp.device());
  // log p_t of each extended position: [T, N, W]
  Tensor emit = gather(lp, 2, expand(unsqueeze(labels, 0), {T, N, W}));
  // where the step from s - 2 is allowed: l_s no blank and l_s != l_{s-2}
  std::vector<double> skip(static_cast<size_t>(N * W), 0.0);
  for (int64_t n = 0; n < N; ++n)
    for (int64_t s = 2; s < W; ++s) {
      double l = ext[static_cast<size_t>(n * W + s)], l2 = ext[static_cast<size_t>(n * W + s - 2)];
      skip[static_cast<size_t>(n * W + s)] = l != static_cast<double>(blank) && l != l2 ? 1.0 : 0.0;
    }
  Tensor can_skip = host_mask(skip, {N, W}, lp.device());
  Tensor never = full({N, W}, kNever, lp.dtype(), lp.device());
  std::vector<double> start(static_cast<size_t>(W), kNever);
  start[0] = 0.0;
  if (W > 1) start[1] = 0.0;
  Tensor alpha = T > 0 ? to_device(tensor_from(start, {1, W}, lp.dtype()), lp.device()) + select(emit, 0, 0) : never;
  Tensor pad1 = full({N, 1}, kNever, lp.dtype(), lp.device()), pad2 = full({N, 2}, kNever, lp.dtype(), lp.device());
  for (int64_t t = 1; t < T; ++t) {
    Tensor from1 = W > 1 ? cat({pad1, slice(alpha, 1, 0, W - 1, 1)}, 1) : never;
    Tensor from2 = W > 2 ? where(can_skip, cat({pad2, slice(alpha, 1, 0, W - 2, 1)}, 1), never) : never;
    Tensor next = logsumexp(stack({alpha, from1, from2}, 0), {0}) + select(emit, 0, t);
    Tensor running = to_device(unsqueeze(lt(scalar_tensor(static_cast<double>(t), DType::i64), in_len), 1), lp.device());
    alpha = where(running, next, alpha);
  }
  // The end: the last label or the blank after it, at each sequence's own length.
  std::vector<double> last(static_cast<size_t>(N * 2));
  for (int64_t n = 0; n < N; ++n) {
    const double end = 2 * tls[static_cast<size_t>(n)];
    last[static_cast<size_t>(2 * n)] = end;
    last[static_cast<size_t>(2 * n + 1)] = std::max(end - 1, 0.0);
  }
  Tensor ends = gather(alpha, 1, to_device(tensor_from(last, {N, 2}, DType::i64), lp.device()));
  std::vector<double> single(static_cast<size_t>(N * 2), 0.0);  // an empty target: only its one blank state
  for (int64_t n = 0; n < N; ++n) single[static_cast<size_t>(2 * n + 1)] = tls[static_cast<size_t>(n)] == 0 ? 1.0 : 0.0;
  Tensor only_one = host_mask(single, {N, 2}, lp.device());
  Tensor loss = -logsumexp(where(only_one, full({N, 2}, kNever, lp.dtype(), lp.device()), ends), {1});
  // A sequence of no time steps: the empty target has probability 1, any other 0.
  std::vector<double> no_steps(static_cast<size_t>(N), 0.0), no_steps_loss(static_cast<size_t>(N), 0.0);
  for (int64_t n = 0; n < N; ++n) {
    no_steps[static_cast<size_t>(n)] = ins[static_cast<size_t>(n)] == 0 ? 1.0 : 0.0;
    no_steps_loss[static_cast<size_t>(n)] = tls[static_cast<size_t>(n)] == 0 ? 0.0 : 2 * kInfinite;
  }
  loss = where(host_mask(no_steps, {N}, lp.device()),
               to_device(tensor_from(no_steps_loss, {N}, lp.dtype()), lp.device()), loss);
  Tensor impossible = gt(loss, scalar_tensor(kInfinite, loss.dtype()));
  loss = where(impossible, full({N}, zero_infinity ? 0.0 : INFINITY, lp.dtype(), lp.device()), loss);
  // Without zero_infinity, PyTorch's gradient for an impossible sample is NaN at each
  // of its time steps (exp(-inf + inf)); it was 0 (Note [A NaN gradient as PyTorch's
  // formula gives]).
  if (!zero_infinity && grad_enabled()) {
    Tensor steps = lt(unsqueeze(arange(T, DType::i64, lp.device()), 1), unsqueeze(to_device(in_len, lp.device()), 0));
    Tensor nan_at = mul(expand(unsqueeze(mul(steps, unsqueeze(impossible, 0)), 2), {T, N, C}),
                        lt(abs(lp), scalar_tensor(INFINITY, lp.dtype())));  // a -inf log_prob keeps the loss inf
    loss = loss + sum(nan_gradient_at(lp, nan_at), {0, 2});
  }
  if (reduction == "none") return Value::tensor(unbatched ? squeeze(loss, {0}) : loss);
  if (reduction == "sum") return Value::tensor(sum(loss));
  Tensor per_label = loss / clamp(to_dtype(to_device(tgt_len, lp.device()), lp.dtype()), 1.0, std::nullopt);
  return Value::tensor(mean(per_label));
}

}  // namespace

Value cross_entropy_builtin(Evaluator&, CallArgs& a) { return class_loss_call(a, "cross_entropy", true); }
Value ctc_loss_entry(Evaluator& ev, CallArgs& a) { return ctc_loss_builtin(ev, a); }
Value nll_loss_builtin(Evaluator&, CallArgs& a) { return class_loss_call(a, "nll_loss", false); }
Value binary_cross_entropy_builtin(Evaluator&, CallArgs& a) { return binary_loss_call(a, "binary_cross_entropy", false); }
Value binary_cross_entropy_with_logits_builtin(Evaluator&, CallArgs& a) {
  return binary_loss_call(a, "binary_cross_entropy_with_logits", true);
}

}  // namespace nabla::interp
