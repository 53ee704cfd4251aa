// The CPU kernels of the fused Adam and SGD steps (tensor/optim.hpp): the shared per-element
// update over the elements, split across threads when there are enough of them (each
// element is independent, so the result does not depend on the thread count). The
// multi-tensor step treats its parameters as one flattened range of elements, so two
// threads split a list of many small tensors (biases) as evenly as one big one; both
// forms run the same segment loop, so they agree bit for bit.
#include "tensor/optim.hpp"

#include <algorithm>

#include "tensor/cpu/copy.hpp"
#include "tensor/cpu/kernels.hpp"
#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

// One parameter's elements [lo, hi). Not inlined, so that every caller runs the same
// machine code (the compiler's choices of vector width and FMA contraction are made
// once), which is what makes the per-parameter and multi-tensor steps bit-equal.
template <class T>
[[gnu::noinline]] void adam_segment(T* __restrict p, const T* __restrict g, T* __restrict m, T* __restrict v,
                                    int64_t lo, int64_t hi, const AdamConstants<T>& c) {
  for (int64_t i = lo; i < hi; ++i) adam_update(p, g, m, v, i, c);
}

// SGD's segment, compiled without FMA contraction so that each product and sum
// rounds as optim.dsl's separate tensor ops do (see sgd_update).
template <class T>
[[gnu::noinline, gnu::optimize("fp-contract=off")]] void sgd_segment(T* __restrict p, const T* __restrict g,
                                                                    T* __restrict buf, int64_t lo, int64_t hi,
                                                                    bool fresh, const SgdConstants<T>& c) {
  for (int64_t i = lo; i < hi; ++i) sgd_update(p, g, buf, i, fresh, c);
}

// Runs segment(k, lo, hi) over the elements of every tensor of `p` as one flattened
// range split across the threads: parameter k holds elements [start[k], start[k + 1]),
// and a thread's chunk may cover the end of one parameter and the start of the next.
template <class Segment>
void for_flattened(const TensorList& p, int64_t work_per_element, Segment&& segment) {
  std::vector<int64_t> start(p.size() + 1, 0);
  for (size_t k = 0; k < p.size(); ++k) start[k + 1] = start[k] + p[k].numel();
  const int64_t total = start.back();
  parallel_for(0, total, work_per_element * total, [&](int64_t lo, int64_t hi) {
    // The last parameter starting at or before lo, then each one the chunk reaches.
    size_t k = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), lo) - start.begin()) - 1;
    for (; k < p.size() && start[k] < hi; ++k)
      segment(k, std::max(lo, start[k]) - start[k], std::min(hi, start[k + 1]) - start[k]);
  });
}

template <class T>
void adam_multi_kernel(const AdamMultiArgs& args, const AdamHyper& hyper) {
  std::vector<AdamConstants<T>> constants;
  for (double step : args.steps) {
    AdamHyper h = hyper;
    h.step = step;
    constants.push_back(adam_constants<T>(h));
  }
  for_flattened(args.p, 4, [&](size_t k, int64_t lo, int64_t hi) {
    adam_segment(args.p[k].data<T>(), args.g[k].data<T>(), args.exp_avg[k].data<T>(), args.exp_avg_sq[k].data<T>(), lo,
                 hi, constants[k]);
  });
}

template <class T>
void sgd_multi_kernel(const SgdMultiArgs& args, const SgdHyper& hyper) {
  const SgdConstants<T> c = sgd_constants<T>(hyper);
  for_flattened(args.p, 3, [&](size_t k, int64_t lo, int64_t hi) {
    T* buf = c.with_momentum ? args.momentum_buffer[k].data<T>() : nullptr;
    bool fresh = c.with_momentum && args.fresh[k];
    sgd_segment(args.p[k].data<T>(), args.g[k].data<T>(), buf, lo, hi, fresh, c);
  });
}

}  // namespace

void adam_step_multi(const AdamMultiArgs& args, const AdamHyper& hyper) {
  if (args.p.empty()) return;
  if (args.p[0].dtype() == DType::f32)
    adam_multi_kernel<float>(args, hyper);
  else
    adam_multi_kernel<double>(args, hyper);
}

void sgd_step_multi(const SgdMultiArgs& args, const SgdHyper& hyper) {
  if (args.p.empty()) return;
  if (args.p[0].dtype() == DType::f32)
    sgd_multi_kernel<float>(args, hyper);
  else
    sgd_multi_kernel<double>(args, hyper);
}

// One parameter: the multi-tensor kernel over a list of one.
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper) {
  adam_step_multi({{p}, {g}, {exp_avg}, {exp_avg_sq}, {hyper.step}}, hyper);
}

// ---- the rows adam_step_ and sgd_step_ (autograd/ops/optim.cpp) -------------------------
// Each is a group of one (tensor/optim.hpp's adam_step_row); a group's rows run the
// fused kernels above with the step counts, hyperparameters and found_inf read from
// their tensors as the call runs, so a compiled step equals eager optim.Adam and
// optim.SGD bit for bit.

namespace {
bool skipped(const Tensor& found_inf) { return found_inf.defined() && found_inf.item() != 0; }
}  // namespace

void adam_step_(const TensorList& in, const Attrs& a, TensorList&) { adam_step_row(in, a.b("decoupled")); }
void sgd_step_(const TensorList& in, const Attrs& a, TensorList&) { sgd_step_row(in, a.b("nesterov")); }

// A group's rows in one multi-tensor kernel (tensor/optim.hpp's OptimizerRows): the
// counts advanced (Adam before its update reads them, SGD after it read whether each
// was 0), the update of the rows.
void adam_rows(const OptimizerRows& rows) {
  if (skipped(rows.found_inf)) return;
  AdamMultiArgs args{rows.p, rows.g, rows.state, rows.state2, {}};
  for (const Tensor& step : rows.step) {
    *step.data<double>() += 1;
    args.steps.push_back(step.item());
  }
  adam_step_multi(args, adam_hyper_from(rows.hyper.data<double>(), 0, rows.flag));
}

void sgd_rows(const OptimizerRows& rows) {
  if (skipped(rows.found_inf)) return;
  SgdHyper h = sgd_hyper_from(rows.hyper.data<double>(), rows.flag);
  const bool momentum = rows.state[0].defined();
  if (!momentum) h.momentum = 0;
  SgdMultiArgs args{rows.p, rows.g, {}, {}};
  if (h.momentum != 0) {
    args.momentum_buffer = rows.state;
    for (const Tensor& step : rows.step) args.fresh.push_back(step.item() == 0);
  }
  sgd_step_multi(args, h);
  for (const Tensor& step : rows.step)
    if (step.defined()) *step.data<double>() += 1;
}

}  // namespace nabla::cpu
