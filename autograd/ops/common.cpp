#include "autograd/ops/common.hpp"

#include <algorithm>

namespace nabla {

Shape broadcast_shapes(const char* op, const Shape& a, const Shape& b, const char* a_name, const char* b_name) {
  if (a == b) return a;
  size_t n = std::max(a.size(), b.size());
  Shape out(n);
  for (size_t i = 0; i < n; ++i) {
    int64_t da = i < n - a.size() ? 1 : a[i - (n - a.size())];
    int64_t db = i < n - b.size() ? 1 : b[i - (n - b.size())];
    if (da != db && da != 1 && db != 1)
      throw Error(std::string(op) + ": argument '" + b_name + "' of shape " + shape_str(b) +
                  " cannot be broadcast with argument '" + a_name + "' of shape " + shape_str(a) + " (dim " +
                  std::to_string(static_cast<int64_t>(i) - static_cast<int64_t>(n)) + ": " + std::to_string(da) +
                  " vs " + std::to_string(db) + ")");
    out[i] = da == 1 ? db : da;
  }
  return out;
}

void check_floating(const char* op, const char* arg, const Tensor& t) {
  NABLA_CHECK(t.defined(), std::string(op) + ": argument '" + arg + "' is missing");
  if (!is_floating(t.dtype()))
    throw Error(std::string(op) + ": argument '" + arg + "' must be a floating tensor, got " + dtype_name(t.dtype()));
}

void check_same_float(const char* op, const Tensor& a, const char* an, const Tensor& b, const char* bn) {
  check_floating(op, an, a);
  check_floating(op, bn, b);
  if (a.dtype() != b.dtype())
    throw Error(std::string(op) + ": arguments '" + an + "' and '" + bn + "' must have the same dtype, got " +
                dtype_name(a.dtype()) + " and " + dtype_name(b.dtype()));
}

Shape reduced_shape(const Shape& sizes, const std::vector<int64_t>& dims, bool keepdim) {
  Shape out;
  for (size_t d = 0; d < sizes.size(); ++d) {
    bool reduced = std::find(dims.begin(), dims.end(), static_cast<int64_t>(d)) != dims.end();
    if (!reduced)
      out.push_back(sizes[d]);
    else if (keepdim)
      out.push_back(1);
  }
  return out;
}

Tensor unsqueeze_reduced(const Tensor& g, const Shape& input_shape, const std::vector<int64_t>& dims, bool keepdim) {
  if (keepdim) return g;
  // Reducing leading dims only (a full reduction included): g already broadcasts
  // against the input from the right, no reshape needed.
  bool leading = true;
  for (size_t i = 0; i < dims.size(); ++i) leading &= dims[i] == static_cast<int64_t>(i);
  if (leading) return g;
  return reshape(g, reduced_shape(input_shape, dims, true).vec());
}

int64_t size_add(const char* op, int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_add_overflow(a, b, &out))
    throw Error(std::string(op) + ": the size " + std::to_string(a) + " + " + std::to_string(b) + " does not fit in 64 bits");
  return out;
}

int64_t size_mul(const char* op, int64_t a, int64_t b) {
  int64_t out;
  if (__builtin_mul_overflow(a, b, &out))
    throw Error(std::string(op) + ": the size " + std::to_string(a) + " * " + std::to_string(b) + " does not fit in 64 bits");
  return out;
}

}  // namespace nabla
