// The CPU kernels of the fused Adam step (tensor/optim.hpp): the shared per-element
// update over the elements, split across threads when there are enough of them (each
// element is independent, so the result does not depend on the thread count). The
// multi-tensor step treats its parameters as one flattened range of elements, so two
// threads split a list of many small tensors (biases) as evenly as one big one; both
// forms run the same segment loop, so they agree bit for bit.
#include "tensor/optim.hpp"

#include <algorithm>

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

// The flattened element range of a list of parameters: parameter k holds elements
// [start[k], start[k + 1]).
std::vector<int64_t> segment_starts(const TensorList& p) {
  std::vector<int64_t> start(p.size() + 1, 0);
  for (size_t k = 0; k < p.size(); ++k) start[k + 1] = start[k] + p[k].numel();
  return start;
}

template <class T>
void adam_multi_kernel(const AdamMultiArgs& args, const AdamHyper& hyper) {
  const std::vector<int64_t> start = segment_starts(args.p);
  std::vector<AdamConstants<T>> constants;
  for (double step : args.steps) {
    AdamHyper h = hyper;
    h.step = step;
    constants.push_back(adam_constants<T>(h));
  }
  const int64_t total = start.back();
  parallel_for(0, total, 4 * total, [&](int64_t lo, int64_t hi) {
    // The first parameter whose range reaches past lo, then each one the chunk covers.
    size_t k = static_cast<size_t>(std::upper_bound(start.begin(), start.end(), lo) - start.begin()) - 1;
    for (; k < args.p.size() && start[k] < hi; ++k) {
      int64_t a = std::max(lo, start[k]) - start[k], b = std::min(hi, start[k + 1]) - start[k];
      adam_segment(args.p[k].data<T>(), args.g[k].data<T>(), args.exp_avg[k].data<T>(), args.exp_avg_sq[k].data<T>(), a,
                   b, constants[k]);
    }
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

// One parameter: the multi-tensor kernel over a list of one.
void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper) {
  adam_step_multi({{p}, {g}, {exp_avg}, {exp_avg_sq}, {hyper.step}}, hyper);
}

}  // namespace nabla::cpu
