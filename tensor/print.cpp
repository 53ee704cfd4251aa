// PyTorch-style printing. Tensor::str() follows torch/_tensor_str.py (PyTorch 1.13)
// with its default options: precision 4, summarization past 1000 elements with 3
// edge items per dim, lines of 80 characters. One formatter per tensor decides, from
// the elements shown, between integer-valued ("1.,  2."), fixed ("0.1000") and
// scientific ("1.0000e+05") notation and the common width every element is padded
// to. nabla spells dtypes and booleans its own way: dtype=f64, true/false.
#include "tensor/print.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <vector>

#include "tensor/cpu/copy.hpp"

namespace nabla {

std::string (*g_grad_fn_name)(const Node&) = nullptr;

namespace {

constexpr int kPrecision = 4;
constexpr int64_t kThreshold = 1000;  // more elements than this are summarized
constexpr int64_t kEdgeItems = 3;
constexpr int64_t kLineWidth = 80;

// printf with one double, as Python's str.format does it for finite values; Python
// writes non-finite values as nan, inf and -inf whatever the format.
std::string format_double(const char* fmt, int precision, double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, precision, v);
  return buf;
}
std::string fixed(double v) { return format_double("%.*f", kPrecision, v); }
std::string sci(double v) { return format_double("%.*e", kPrecision, v); }
std::string integral(double v) { return format_double("%.*f", 0, v); }

std::string pad_left(std::string s, size_t width) {
  return s.size() < width ? std::string(width - s.size(), ' ') + s : s;
}

// The elements of a contiguous copy, read by flat position: floats as doubles,
// integers exactly (an i64 beyond 2^53 would not survive a double).
class Elements {
 public:
  explicit Elements(const Tensor& t) : data_(contiguous_raw(t)) {}
  DType dtype() const { return data_.dtype(); }
  double real(int64_t i) const {
    return visit_dtype(dtype(), [&](auto tag) {
      using T = typename decltype(tag)::type;
      return static_cast<double>(static_cast<compute_t<T>>(static_cast<const T*>(data_.raw_data())[i]));
    });
  }
  std::string plain(int64_t i) const {  // an integer or bool element
    if (dtype() == DType::b8) return static_cast<const bool*>(data_.raw_data())[i] ? "true" : "false";
    if (dtype() == DType::i32) return std::to_string(static_cast<const int32_t*>(data_.raw_data())[i]);
    if (dtype() == DType::i8) return std::to_string(static_cast<const int8_t*>(data_.raw_data())[i]);
    if (dtype() == DType::u8) return std::to_string(static_cast<const uint8_t*>(data_.raw_data())[i]);
    if (dtype() == DType::i16) return std::to_string(static_cast<const int16_t*>(data_.raw_data())[i]);
    return std::to_string(static_cast<const int64_t*>(data_.raw_data())[i]);
  }

 private:
  Tensor data_;
};

// Picks the notation and the width from the elements that will be shown.
class Formatter {
 public:
  Formatter(const Elements& e, const std::vector<int64_t>& shown) : e_(e), floating_(is_floating(e.dtype())) {
    if (!floating_) {
      for (int64_t i : shown) width_ = std::max(width_, e.plain(i).size());
      return;
    }
    std::vector<double> values;  // the nonzero finite ones decide
    for (int64_t i : shown) {
      double v = e.real(i);
      if (std::isfinite(v) && v != 0) values.push_back(v);
    }
    if (values.empty()) return;
    double lo = INFINITY, hi = 0;
    for (double v : values) {
      lo = std::min(lo, std::abs(v));
      hi = std::max(hi, std::abs(v));
      int_mode_ = int_mode_ && v == std::ceil(v);
    }
    sci_mode_ = hi / lo > 1000.0 || hi > 1.0e8 || (!int_mode_ && lo < 1.0e-4);
    for (double v : values) {
      // An integer-valued float prints with a trailing dot, hence the + 1.
      size_t len = sci_mode_ ? sci(v).size() : int_mode_ ? integral(v).size() + 1 : fixed(v).size();
      width_ = std::max(width_, len);
    }
  }

  size_t width() const { return width_; }

  std::string format(int64_t i) const {
    if (!floating_) return pad_left(e_.plain(i), width_);
    double v = e_.real(i);
    if (sci_mode_) return pad_left(sci(v), width_);
    if (int_mode_) return pad_left(integral(v) + (std::isfinite(v) ? "." : ""), width_);
    return pad_left(fixed(v), width_);
  }

 private:
  const Elements& e_;
  bool floating_;
  bool int_mode_ = true, sci_mode_ = false;
  size_t width_ = 1;
};

// The positions shown along a dim of `size`: all, or the edge items at each end.
std::vector<int64_t> shown_rows(int64_t size, bool summarize) {
  std::vector<int64_t> rows;
  bool cut = summarize && size > 2 * kEdgeItems;
  for (int64_t i = 0; i < size; ++i)
    if (!cut || i < kEdgeItems || i >= size - kEdgeItems) rows.push_back(i);
  return rows;
}

struct Layout {
  Shape sizes, strides;  // of the contiguous copy
  bool summarize;
};

void collect_shown(const Layout& l, size_t d, int64_t base, std::vector<int64_t>& out) {
  if (d == l.sizes.size()) {
    out.push_back(base);
    return;
  }
  for (int64_t i : shown_rows(l.sizes[d], l.summarize)) collect_shown(l, d + 1, base + i * l.strides[d], out);
}

// Whether a "..." goes before row i of a summarized dim.
bool gap_before(int64_t i, int64_t size, bool summarize) {
  return summarize && size > 2 * kEdgeItems && i == size - kEdgeItems;
}

std::string join(const std::vector<std::string>& parts, const std::string& sep) {
  std::string out;
  for (size_t k = 0; k < parts.size(); ++k) out += (k ? sep : "") + parts[k];
  return out;
}

// "[" + s + "]", appended in place (GCC 12 warns falsely about the operator+ chain).
std::string bracket(const std::string& s) {
  std::string out = "[";
  out.append(s).push_back(']');
  return out;
}

// The last dim: as many elements per line as fit in the line width.
std::string vector_str(const Layout& l, const Formatter& f, int64_t base, int64_t indent) {
  int64_t size = l.sizes.back(), stride = l.strides.back();
  int64_t element_length = static_cast<int64_t>(f.width()) + 2;  // with ", "
  int64_t per_line = std::max<int64_t>(1, (kLineWidth - indent) / element_length);
  std::vector<std::string> data;
  for (int64_t i : shown_rows(size, l.summarize)) {
    if (gap_before(i, size, l.summarize)) data.push_back(" ...");
    data.push_back(f.format(base + i * stride));
  }
  std::vector<std::string> lines;
  for (size_t k = 0; k < data.size(); k += per_line)
    lines.push_back(join({data.begin() + k, data.begin() + std::min(data.size(), k + per_line)}, ", "));
  return bracket(join(lines, ",\n" + std::string(indent + 1, ' ')));
}

// Dim d and below; sub-tensors are separated by one blank line per dim below them.
std::string tensor_str(const Layout& l, const Formatter& f, size_t d, int64_t base, int64_t indent) {
  size_t ndim = l.sizes.size();
  if (ndim == 0) return f.format(base);
  if (d == ndim - 1) return vector_str(l, f, base, indent);
  std::vector<std::string> slices;
  for (int64_t i : shown_rows(l.sizes[d], l.summarize)) {
    if (gap_before(i, l.sizes[d], l.summarize)) slices.push_back("...");
    slices.push_back(tensor_str(l, f, d + 1, base + i * l.strides[d], indent + 1));
  }
  std::string sep = ",";
  sep.append(ndim - d - 1, '\n').append(indent + 1, ' ');
  return bracket(join(slices, sep));
}

std::string values_str(const Tensor& t, int64_t indent) {
  Elements e(t);
  Layout l{t.sizes(), contiguous_strides(t.sizes()), t.numel() > kThreshold};
  std::vector<int64_t> shown;
  collect_shown(l, 0, 0, shown);
  Formatter f(e, shown);
  return tensor_str(l, f, 0, 0, indent);
}

std::string size_tuple(const Shape& s) {
  std::string out = "(";
  for (size_t d = 0; d < s.size(); ++d) out += (d ? ", " : "") + std::to_string(s[d]);
  return out + (s.size() == 1 ? ",)" : ")");
}

// Suffixes follow the values on the last line, or start a new line when they
// would pass the line width.
std::string add_suffixes(std::string s, const std::vector<std::string>& suffixes, int64_t indent) {
  size_t nl = s.rfind('\n');
  int64_t last_line = static_cast<int64_t>(s.size()) - (nl == std::string::npos ? -1 : static_cast<int64_t>(nl)) + 1;
  for (const std::string& suffix : suffixes) {
    int64_t len = static_cast<int64_t>(suffix.size());
    if (last_line + len + 2 > kLineWidth) {
      s += ",\n" + std::string(indent, ' ') + suffix;
      last_line = indent + len;
    } else {
      s += ", " + suffix;
      last_line += len + 2;
    }
  }
  return s + ")";
}

}  // namespace

std::string Tensor::str() const {
  if (!defined()) return "tensor(undefined)";
  const std::string prefix = "tensor(";
  int64_t indent = static_cast<int64_t>(prefix.size());
  std::vector<std::string> suffixes;
  if (device().kind != DeviceKind::cpu) suffixes.push_back("device='" + device().str() + "'");
  std::string body;
  if (numel() == 0) {
    // No element shows the dtype or the shape, so both are spelled out.
    body = "[]";
    if (dim() != 1) suffixes.push_back("size=" + size_tuple(sizes()));
    if (dtype() != DType::f32) suffixes.push_back(std::string("dtype=") + dtype_name(dtype()));
  } else {
    body = values_str(cpu_copy(*this), indent);  // a GPU tensor waits for its device here
    // The default float dtype, i64 and bool show in the values, as in PyTorch.
    if (dtype() != DType::f32 && dtype() != DType::i64 && dtype() != DType::b8)
      suffixes.push_back(std::string("dtype=") + dtype_name(dtype()));
  }
  if (grad_fn()) {
    if (g_grad_fn_name) suffixes.push_back("grad_fn=<" + g_grad_fn_name(*grad_fn()) + ">");
  } else if (requires_grad()) {
    suffixes.push_back("requires_grad=true");
  }
  return add_suffixes(prefix + body, suffixes, indent);
}

}  // namespace nabla
