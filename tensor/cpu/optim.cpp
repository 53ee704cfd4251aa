// The CPU kernel of the fused Adam step (tensor/optim.hpp): the shared per-element
// update over the elements, split across threads when there are enough of them (each
// element is independent, so the result does not depend on the thread count).
#include "tensor/optim.hpp"

#include "tensor/cpu/parallel.hpp"

namespace nabla::cpu {

namespace {

template <class T>
void adam_kernel(const Tensor& p, const Tensor& g, const Tensor& m, const Tensor& v, const AdamHyper& hyper) {
  T* pd = p.data<T>();
  const T* gd = g.data<T>();
  T* md = m.data<T>();
  T* vd = v.data<T>();
  const AdamConstants<T> c = adam_constants<T>(hyper);
  const int64_t n = p.numel();
  parallel_for(0, n, 4 * n, [&](int64_t lo, int64_t hi) {
    for (int64_t i = lo; i < hi; ++i) adam_update(pd, gd, md, vd, i, c);
  });
}

}  // namespace

void adam_step(const Tensor& p, const Tensor& g, const Tensor& exp_avg, const Tensor& exp_avg_sq,
               const AdamHyper& hyper) {
  if (p.dtype() == DType::f32)
    adam_kernel<float>(p, g, exp_avg, exp_avg_sq, hyper);
  else
    adam_kernel<double>(p, g, exp_avg, exp_avg_sq, hyper);
}

}  // namespace nabla::cpu
