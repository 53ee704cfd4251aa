// Round 9's PyTorch functions that nabla lacked: torch.as_strided (x.as_strided),
// torch.histogramdd (stdlib/_torch_gaps9.dsl) and F.fractional_max_pool2d
// (stdlib/_nn_fractional.dsl). Each is its stdlib module's function, called with the
// builtin's arguments as given (Note [torch.* names of torch.special's functions] in
// composite_torch_gaps7.cpp: one definition, made of ops, under both paths).
// tests/stdlib/test_gaps_vs_torch9.dsl checks them against PyTorch
// (tests/stdlib/reference/make_vs_torch9.py).
#include <memory>
#include <string>

#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"
#include "interp/eval/evaluator.hpp"

namespace nabla::interp {

namespace {

Value call_stdlib(Evaluator& ev, const char* module_name, const char* name, CallArgs& a) {
  std::shared_ptr<Module> module = ev.find_module(module_name);
  if (!module) fail(std::string(name) + "(): the standard library's " + module_name + " module is missing");
  return ev.call_value(ev.get_attr(Value::object(Tag::Module, module), name), a);
}

Value as_strided_builtin(Evaluator& ev, CallArgs& a) { return call_stdlib(ev, "_torch_gaps9", "as_strided", a); }
Value histogramdd_builtin(Evaluator& ev, CallArgs& a) { return call_stdlib(ev, "_torch_gaps9", "histogramdd", a); }
#define GAPS9(name) \
  Value name##_builtin(Evaluator& ev, CallArgs& a) { return call_stdlib(ev, "_torch_gaps9", #name, a); }
GAPS9(as_strided_scatter)
GAPS9(slogdet)
GAPS9(matrix_exp)
GAPS9(matrix_power)
GAPS9(pinverse)
GAPS9(cholesky_inverse)
GAPS9(cholesky_solve)
GAPS9(orgqr)
GAPS9(igamma)
GAPS9(igammac)
GAPS9(is_same_size)
GAPS9(scalar_tensor)
GAPS9(angle)
GAPS9(poisson)
GAPS9(binomial)
GAPS9(get_device)
GAPS9(ndimension)
#undef GAPS9
Value fractional_max_pool2d_builtin(Evaluator& ev, CallArgs& a) {
  return call_stdlib(ev, "_nn_fractional", "fractional_max_pool2d", a);
}
Value fractional_max_pool3d_builtin(Evaluator& ev, CallArgs& a) {
  return call_stdlib(ev, "_nn_fractional", "fractional_max_pool3d", a);
}

}  // namespace

void require_floating(const Tensor& x, const char* what, const char* why) {
  if (!is_floating(x.dtype()))
    throw Error(std::string(what) + " must be a floating tensor, got " + dtype_name(x.dtype()) + " (" + why +
                "; convert with .float())");
}

// interpolate(..., antialias=true): stdlib/_nn_antialias.dsl's, given interpolate's first
// six arguments as bound (Note [Antialiased interpolation]).
Value antialiased_interpolate(Evaluator& ev, const Bound& b) {
  CallArgs args;
  for (size_t k = 0; k < 6; ++k) args.pos.push_back(b.has(k) ? b[k] : Value());
  return call_stdlib(ev, "_nn_antialias", "antialiased_interpolate", args);
}

namespace {

const BuiltinEntry kCompositeTorchGaps9[] = {
    {"as_strided", as_strided_builtin, "as_strided(input, size, stride, storage_offset=none)",
     "The elements of input's storage at storage_offset + sum(i_d * stride_d) as a tensor of shape size, as "
     "torch.as_strided; a differentiable copy made of input's own elements (Note [as_strided reads the input's "
     "elements] in stdlib/_torch_gaps9.dsl). Example: arange(6.0).as_strided([2, 2], [1, 1])"},
    {"as_strided_scatter", as_strided_scatter_builtin, "as_strided_scatter(input, src, size, stride, storage_offset=none)",
     "input with the elements as_strided(input, size, stride, storage_offset) reads replaced by src's (a copy, "
     "differentiable in both), as torch.as_strided_scatter. Example: as_strided_scatter(zeros(4), ones(2), [2], [2])"},
    {"histogramdd", histogramdd_builtin, "histogramdd(input, bins, range=none, weight=none, density=false)",
     "(hist, bin_edges): the count (or summed weight) of input's points (its last dim holds the coordinates) in "
     "each cell of a D-dimensional grid of bins (an int, one per dim, or edge tensors) over range (min and max of "
     "each dim), as torch.histogramdd. Example: histogramdd(tensor([[0.0, 1.0], [1.0, 0.0]]), bins=2)"},
    {"fractional_max_pool2d", fractional_max_pool2d_builtin,
     "fractional_max_pool2d(input, kernel_size, output_size=none, output_ratio=none, return_indices=false, _random_samples=none)",
     "Max pooling of [N, C, H, W] (or [C, H, W]) with kernel_size windows at pseudo-random places (one pair of "
     "_random_samples in [0, 1) per plane) to output_size or output_ratio of the input, as "
     "F.fractional_max_pool2d (Note [Fractional max pooling] in stdlib/_nn_fractional.dsl). "
     "Example: fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=3)"},
    {"fractional_max_pool3d", fractional_max_pool3d_builtin,
     "fractional_max_pool3d(input, kernel_size, output_size=none, output_ratio=none, return_indices=false, _random_samples=none)",
     "Max pooling of [N, C, T, H, W] (or [C, T, H, W]) with kernel_size windows at pseudo-random places (one "
     "triple of _random_samples per plane), as F.fractional_max_pool3d. "
     "Example: fractional_max_pool3d(randn([1, 1, 5, 5, 5]), 2, output_size=3)"},
    {"slogdet", slogdet_builtin, "slogdet(input)",
     "(sign, logabsdet) of the determinant of each square matrix, as torch.slogdet (linalg.slogdet). "
     "Example: slogdet(eye(3) * 2.0)"},
    {"matrix_exp", matrix_exp_builtin, "matrix_exp(input)",
     "The matrix exponential of each square matrix, as torch.matrix_exp (linalg.matrix_exp). Example: matrix_exp(zeros([2, 2]))"},
    {"matrix_power", matrix_power_builtin, "matrix_power(input, n)",
     "The n-th power of each square matrix (n < 0 inverts), as torch.matrix_power (linalg.matrix_power). "
     "Example: matrix_power(eye(2) * 2.0, 3)"},
    {"pinverse", pinverse_builtin, "pinverse(input, rcond=1e-15)",
     "The pseudo-inverse, singular values below rcond times the largest cut, as torch.pinverse (linalg.pinv with "
     "rtol=rcond). Example: pinverse(eye(2) * 2.0)"},
    {"cholesky_inverse", cholesky_inverse_builtin, "cholesky_inverse(input, upper=false)",
     "The inverse of A from its Cholesky factor, as torch.cholesky_inverse (linalg.cholesky_inverse). "
     "Example: cholesky_inverse(eye(2) * 2.0)"},
    {"cholesky_solve", cholesky_solve_builtin, "cholesky_solve(input, input2, upper=false)",
     "The solution X of A X = input from A's Cholesky factor input2, as torch.cholesky_solve (linalg.cholesky_solve). "
     "Example: cholesky_solve(ones([2, 1]), eye(2))"},
    {"orgqr", orgqr_builtin, "orgqr(input, tau)",
     "The product of the Householder reflectors, as torch.orgqr (linalg.householder_product). "
     "Example: orgqr(zeros([3, 2]), tensor([2.0, 2.0]))"},
    {"igamma", igamma_builtin, "igamma(input, other)",
     "The regularized lower incomplete gamma function, as torch.igamma (special.gammainc). Example: igamma(ones(2), ones(2))"},
    {"igammac", igammac_builtin, "igammac(input, other)",
     "The regularized upper incomplete gamma function, as torch.igammac (special.gammaincc). Example: igammac(ones(2), ones(2))"},
    {"is_same_size", is_same_size_builtin, "is_same_size(input, other)",
     "Whether the two tensors have the same shape, as torch.is_same_size. Example: ones(2).is_same_size(zeros(2))"},
    {"scalar_tensor", scalar_tensor_builtin, "scalar_tensor(s, dtype=f32, device=\"cpu\", requires_grad=false)",
     "The number s as a 0-dim tensor (f32 unless told), as torch.scalar_tensor. Example: scalar_tensor(3)"},
    {"angle", angle_builtin, "angle(input)",
     "The angle of each element as a complex number: pi for a negative one, 0 otherwise (gradient 0), as torch.angle "
     "of a real tensor. Example: angle(tensor([-1.0, 2.0]))"},
    {"poisson", poisson_builtin, "poisson(input, generator=none)",
     "A Poisson draw of each element's rate, as torch.poisson. Example: poisson(ones(3) * 4.0)"},
    {"binomial", binomial_builtin, "binomial(count, prob, generator=none)",
     "A binomial draw of count trials of probability prob per element, as torch.binomial. "
     "Example: binomial(ones(3) * 10.0, ones(3) * 0.5)"},
    {"get_device", get_device_builtin, "get_device(input)",
     "The index of the GPU input is on, -1 on the CPU, as Tensor.get_device. Example: ones(2).get_device()"},
    {"ndimension", ndimension_builtin, "ndimension(input)",
     "The number of dims (dim()'s older name), as Tensor.ndimension. Example: ones([2, 3]).ndimension()"},
};

}  // namespace

std::span<const BuiltinEntry> composite_torch_gaps9() { return kCompositeTorchGaps9; }

}  // namespace nabla::interp
