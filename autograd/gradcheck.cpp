#include "autograd/gradcheck.hpp"

#include <cmath>
#include <sstream>

#include "autograd/engine.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "autograd/transforms/forward.hpp"
#include "tensor/cpu/copy.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace nabla {

namespace {

// Deterministic pseudo-random weights in [-1, 1] (independent of nabla's RNG).
Tensor fixed_weights(const Shape& sizes, DType dtype, uint64_t salt) {
  std::vector<double> v(static_cast<size_t>(shape_numel(sizes)));
  uint64_t s = 0x9e3779b97f4a7c15ULL * (salt + 1);
  for (double& x : v) {
    s = s * 6364136223846793005ULL + 1442695040888963407ULL;
    x = static_cast<double>(s >> 11) * 0x1.0p-53 * 2.0 - 1.0;
  }
  return tensor_from(v, sizes, dtype);
}
// fixed_weights of t's shape and dtype, on t's device (drawn on the CPU, so that a
// check on a GPU uses the same weights as on the CPU).
Tensor fixed_weights_like(const Tensor& t, uint64_t salt) {
  Tensor w = fixed_weights(t.sizes(), t.dtype(), salt);
  return t.device() == w.device() ? w : cuda::to_device(w, t.device());
}

// A fresh contiguous copy with no history.
Tensor fresh_copy(const Tensor& t) {
  if (!t.defined()) return t;
  Tensor c = empty(t.sizes(), t.dtype(), t.device());
  copy_into(c, t);
  return c;
}

// sum_k <outputs_k, weights_k> over the floating outputs.
Tensor weighted_sum(const TensorList& outs, const TensorList& weights) {
  Tensor total;
  for (size_t k = 0; k < outs.size(); ++k) {
    if (!weights[k].defined()) continue;
    Tensor term = sum(mul(outs[k], weights[k]));
    total = total.defined() ? add(total, term) : term;
  }
  return total;
}

// Element i of contiguous t; on a GPU through a one-element copy (gradcheck cases are small).
void set_element(const Tensor& t, int64_t i, double v) {
  if (t.device().kind != DeviceKind::cpu) {
    copy_into(make_view(t, {}, {}, t.offset() + i), scalar_tensor(v, DType::f64));
    return;
  }
  visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    static_cast<T*>(t.raw_data())[i] = static_cast<T>(static_cast<compute_t<T>>(v));
  });
}
double get_element(const Tensor& t, int64_t i) {
  if (t.device().kind != DeviceKind::cpu) return make_view(t, {}, {}, t.offset() + i).item();
  return visit_dtype(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    return static_cast<double>(static_cast<compute_t<T>>(static_cast<const T*>(t.raw_data())[i]));
  });
}

// Central difference of scalar(vars) along every element of vars[which].
std::vector<std::vector<double>> numeric_gradient(const std::function<double()>& scalar, const TensorList& vars,
                                                         const std::vector<size_t>& which, double eps) {
  std::vector<std::vector<double>> out;
  for (size_t i : which) {
    const Tensor& x = vars[i];
    std::vector<double> g(static_cast<size_t>(x.numel()));
    for (int64_t j = 0; j < x.numel(); ++j) {
      double orig = get_element(x, j);
      set_element(x, j, orig + eps);
      double plus = scalar();
      set_element(x, j, orig - eps);
      double minus = scalar();
      set_element(x, j, orig);
      g[static_cast<size_t>(j)] = (plus - minus) / (2 * eps);
    }
    out.push_back(std::move(g));
  }
  return out;
}

GradcheckResult compare_gradients(const char* what, const std::vector<std::vector<double>>& numeric,
                                     const TensorList& analytic, const std::vector<size_t>& which,
                                     const GradcheckOptions& opt) {
  for (size_t n = 0; n < which.size(); ++n) {
    std::vector<double> a = analytic[n].defined() ? to_double_vector(analytic[n])
                                                  : std::vector<double>(numeric[n].size(), 0.0);
    if (a.size() != numeric[n].size()) {
      return {false, std::string(what) + ": gradient of input " + std::to_string(which[n]) + " has " +
                         std::to_string(a.size()) + " elements, expected " + std::to_string(numeric[n].size())};
    }
    for (size_t j = 0; j < a.size(); ++j) {
      double d = std::abs(a[j] - numeric[n][j]);
      if (!(d <= opt.atol + opt.rtol * std::abs(numeric[n][j]))) {
        std::ostringstream msg;
        msg << what << ": input " << which[n] << " element " << j << ": analytic " << a[j] << " vs numeric "
            << numeric[n][j];
        return {false, msg.str()};
      }
    }
  }
  return {};
}

}  // namespace

// Checks d/d inputs[which] of sum_k <f(inputs)_k, w_k> for fixed random w.
GradcheckResult gradcheck(const GradcheckFn& f, const TensorList& inputs, const std::vector<size_t>& which,
                             const GradcheckOptions& opt) {
  TensorList vars;
  for (const Tensor& t : inputs) vars.push_back(fresh_copy(t));
  TensorList leaves;
  for (size_t i : which) leaves.push_back(vars[i].set_requires_grad(true));
  TensorList outs = f(vars);
  TensorList weights;
  for (size_t k = 0; k < outs.size(); ++k)
    weights.push_back(outs[k].requires_grad() ? fixed_weights_like(outs[k], k) : Tensor());
  Tensor loss = weighted_sum(outs, weights);
  if (!loss.defined()) return {false, "gradcheck: no output requires grad"};
  TensorList analytic = grad({loss}, leaves, {}, std::nullopt, false, true);
  auto scalar = [&] {
    NoGradGuard no_grad;
    return weighted_sum(f(vars), weights).item();
  };
  return compare_gradients("gradcheck", numeric_gradient(scalar, vars, which, opt.eps), analytic, which, opt);
}

// Checks the gradient of F = sum_i <dL/dx_i, v_i> with respect to the inputs and
// to the output weights w (L = sum_k <f_k, w_k>), against central differences.
GradcheckResult gradgradcheck(const GradcheckFn& f, const TensorList& inputs, const std::vector<size_t>& which,
                                 const GradcheckOptions& opt) {
  TensorList vars;
  for (const Tensor& t : inputs) vars.push_back(fresh_copy(t));
  for (size_t i : which) vars[i].set_requires_grad(true);
  TensorList probe_outs = f(vars);
  size_t n_out = probe_outs.size();
  for (size_t k = 0; k < n_out; ++k)
    vars.push_back(probe_outs[k].requires_grad() ? fixed_weights_like(probe_outs[k], k).set_requires_grad(true)
                                                 : Tensor());
  std::vector<size_t> all = which;
  for (size_t k = 0; k < n_out; ++k)
    if (vars[inputs.size() + k].defined()) all.push_back(inputs.size() + k);
  TensorList directions;
  for (size_t n = 0; n < which.size(); ++n)
    directions.push_back(fixed_weights_like(vars[which[n]], 100 + n));

  // F(vars) with the first-order gradients recorded when create_graph is set.
  auto first_order = [&](bool create_graph) {
    TensorList in(vars.begin(), vars.begin() + static_cast<long>(inputs.size()));
    TensorList w(vars.begin() + static_cast<long>(inputs.size()), vars.end());
    Tensor loss = weighted_sum(f(in), w);
    TensorList xs;
    for (size_t i : which) xs.push_back(vars[i]);
    TensorList g = grad({loss}, xs, {}, std::nullopt, create_graph, true);
    Tensor total = zeros({}, DType::f64);
    for (size_t n = 0; n < g.size(); ++n)
      if (g[n].defined()) total = add(total, sum(mul(g[n], directions[n])));
    return total;
  };
  Tensor F = first_order(true);
  TensorList wrt;
  for (size_t i : all) wrt.push_back(vars[i]);
  TensorList analytic = F.requires_grad() ? grad({F}, wrt, {}, std::nullopt, false, true) : TensorList(wrt.size());
  auto scalar = [&] { return first_order(false).item(); };
  return compare_gradients("gradgradcheck", numeric_gradient(scalar, vars, all, opt.eps), analytic, all, opt);
}

// Forward mode: the tangent of every floating output, for fixed random tangents of the
// inputs in `which`, against the central difference (f(x + eps t) - f(x - eps t)) / 2 eps.
GradcheckResult jvpcheck(const GradcheckFn& f, const TensorList& inputs, const std::vector<size_t>& which,
                         const GradcheckOptions& opt) {
  TensorList vars;
  for (const Tensor& t : inputs) vars.push_back(fresh_copy(t));
  TensorList tangents(vars.size());
  for (size_t n = 0; n < which.size(); ++n) tangents[which[n]] = fixed_weights_like(vars[which[n]], 200 + n);
  auto shifted = [&](double step) {
    NoGradGuard no_grad;
    TensorList moved = vars;
    for (size_t i : which) moved[i] = vars[i] + tangents[i] * step;
    return f(moved);
  };
  TensorList plus = shifted(opt.eps), minus = shifted(-opt.eps);
  TensorList analytic;
  {
    transforms::LevelScope scope(transforms::LevelKind::forward);
    transforms::Level& level = *transforms::visible_level(scope.id());
    TensorList duals = vars;
    for (size_t i : which) duals[i] = transforms::make_dual(vars[i], tangents[i], level, "jvpcheck");
    for (const Tensor& out : f(duals)) analytic.push_back(transforms::tangent_at(out, level.id));
  }
  for (size_t k = 0; k < plus.size() && k < analytic.size(); ++k) {
    if (!plus[k].defined() || !is_floating(plus[k].dtype())) continue;
    std::vector<double> p = to_double_vector(plus[k]), m = to_double_vector(minus[k]);
    std::vector<double> a = analytic[k].defined() ? to_double_vector(analytic[k]) : std::vector<double>(p.size(), 0.0);
    if (a.size() != p.size())
      return {false, "jvpcheck: the tangent of output " + std::to_string(k) + " has " + std::to_string(a.size()) +
                         " elements, expected " + std::to_string(p.size())};
    for (size_t j = 0; j < p.size(); ++j) {
      double numeric = (p[j] - m[j]) / (2 * opt.eps);
      if (!(std::abs(a[j] - numeric) <= opt.atol + opt.rtol * std::abs(numeric))) {
        std::ostringstream msg;
        msg << "jvpcheck: output " << k << " element " << j << ": forward mode " << a[j] << " vs numeric " << numeric;
        return {false, msg.str()};
      }
    }
  }
  return {};
}

}  // namespace nabla
