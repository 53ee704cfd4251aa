// The tensor methods whose arguments are not the global function's with the tensor
// put first: PyTorch's Tensor.where(condition, other) is torch.where(condition, self,
// other), and Tensor.unfold(dimension, size, step) is a sliding window, not
// F.unfold's im2col. Through the generic method call (the tensor as the function's
// first argument) x.where(c, y) took x as the condition and x.unfold(2, 2, 1) ran
// im2col with kernel 2, dilation 2 and padding 1: both answered without an error.
// tensor_methods() joins this table, so these come before the global functions.
#include <string>
#include <vector>

#include "autograd/ops.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/builtins/composites/composites.hpp"

namespace nabla::interp {

namespace {

using composite_args::dim_in;
using composite_args::fn_arg;

// x.where(condition, other): torch.where(condition, x, other), through the op's own
// conventions (a number as other, broadcasting, its errors).
Value where_method(Evaluator& ev, CallArgs& a) {
  Bound b = bind("where", a, {"self", "condition", "other"}, 3);
  CallArgs call;
  call.pos = {b[1], b[0], b[2]};
  return op_functions().at("where")(ev, call);
}

// The windows of `size` elements every `step` along dim (of size n): PyTorch's count
// and its errors, in the language's words.
int64_t window_count(const Tensor& x, int64_t dim, int64_t size, int64_t step) {
  const int64_t n = x.sizes()[dim];
  if (step <= 0) fail("unfold(): argument 'step' must be > 0, got " + std::to_string(step));
  if (size < 0) fail("unfold(): argument 'size' must be 0 or more, got " + std::to_string(size));
  if (size > n)
    fail("unfold(): argument 'size' is " + std::to_string(size) + " but dim " + std::to_string(dim) +
         " of the input of shape " + x.shape_str() + " has size " + std::to_string(n) + " (a window must fit)");
  return (n - size) / step + 1;
}

// x.unfold(dimension, size, step), as Tensor.unfold: dim becomes the number of windows
// and a last dim of `size` holds each window. A view of x (Note [Diagonal and unfold
// are views] in autograd/ops/strided_views.cpp): a write into a window writes x.
Value unfold_method(Evaluator&, CallArgs& a) {
  Bound b = bind("unfold", a, {"self", "dimension", "size", "step"}, 4);
  Tensor x = arg(b, 0, "unfold", "self");
  const int64_t size = as_int(b[2], fn_arg("unfold", "size"));
  const int64_t step = as_int(b[3], fn_arg("unfold", "step"));
  if (x.dim() == 0) {  // PyTorch's: a 0-dim tensor is one window of size 1 (or 0)
    dim_in(as_int(b[1], fn_arg("unfold", "dimension")), 1, "unfold", "dimension");
    Tensor row = reshape(x, {1});
    window_count(row, 0, size, step);
    return Value::tensor(slice(row, 0, 0, size));
  }
  const int64_t dim = dim_in(as_int(b[1], fn_arg("unfold", "dimension")), x.dim(), "unfold", "dimension");
  window_count(x, dim, size, step);
  return Value::tensor(unfold(x, dim, size, step));
}

const BuiltinEntry kMethodForms[] = {
    {"where", where_method, "where(condition, other)",
     "The element of this tensor where condition is true, else of other, as Tensor.where (torch.where(condition, "
     "self, other)). Example: tensor([1.0, 2.0]).where(tensor([true, false]), 0.0)"},
    {"unfold", unfold_method, "unfold(dimension, size, step)",
     "The windows of size elements every step along dimension, as Tensor.unfold: that dim counts the windows and a "
     "new last dim holds each (the global unfold is F.unfold's im2col). Example: arange(5.0).unfold(0, 3, 1)"},
    {"polygamma", polygamma_method, "polygamma(n)",
     "The n-th derivative of digamma of each element, as Tensor.polygamma (torch.polygamma(n, self)). "
     "Example: tensor([0.5, 3.0]).polygamma(1)"},
};

}  // namespace

std::span<const BuiltinEntry> composite_method_forms() { return kMethodForms; }

}  // namespace nabla::interp
