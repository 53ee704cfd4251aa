// image_from_values (image_layout.hpp).
#include "interp/log/image_layout.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

#include "tensor/error.hpp"

namespace nabla::tensorboard_log {

namespace {

constexpr int64_t kGridColumns = 8;  // make_grid's ncols

std::string shape_text(const std::vector<int64_t>& shape) {
  std::string s = "[";
  for (size_t i = 0; i < shape.size(); ++i) s += (i ? ", " : "") + std::to_string(shape[i]);
  return s + "]";
}

// Where each of N, C, H, W is among the dims (-1: absent), after checking that the
// letters are those of a 2-letter (HW), 3-letter (HWC) or 4-letter (NCHW) layout.
struct Layout {
  int n = -1, c = -1, h = -1, w = -1;
};

Layout parse_layout(const std::string& dataformats, const std::vector<int64_t>& shape) {
  std::string f = dataformats;
  for (char& ch : f) ch = static_cast<char>(std::toupper(static_cast<unsigned char>(ch)));
  const char* expected = f.size() == 2 ? "HW" : f.size() == 3 ? "CHW" : f.size() == 4 ? "NCHW" : nullptr;
  std::string sorted_f = f, sorted_expected = expected ? expected : "";
  std::sort(sorted_f.begin(), sorted_f.end());
  std::sort(sorted_expected.begin(), sorted_expected.end());
  if (!expected || sorted_f != sorted_expected)
    throw Error("dataformats must be an order of HW, CHW or NCHW (each letter once), got '" + dataformats + "'");
  if (f.size() != shape.size())
    throw Error("dataformats '" + dataformats + "' has " + std::to_string(f.size()) + " letters but the image has " +
                std::to_string(shape.size()) + " dims (shape " + shape_text(shape) + ")");
  auto at = [&](char letter) { return static_cast<int>(f.find(letter) == std::string::npos ? -1 : f.find(letter)); };
  return {at('N'), at('C'), at('H'), at('W')};
}

uint8_t to_byte(double v, bool is_u8) {
  float x = static_cast<float>(v) * (is_u8 ? 1.0f : 255.0f);  // numpy: astype(f32) * scale
  if (std::isnan(x)) return 0;
  return static_cast<uint8_t>(std::clamp(x, 0.0f, 255.0f));  // clip, then astype(u8) truncates
}

}  // namespace

Image image_from_values(const std::vector<double>& values, const std::vector<int64_t>& shape,
                        const std::string& dataformats, bool is_u8) {
  Layout l = parse_layout(dataformats, shape);
  std::vector<int64_t> stride(shape.size(), 1);
  for (int d = static_cast<int>(shape.size()) - 2; d >= 0; --d) stride[d] = stride[d + 1] * shape[d + 1];
  auto size = [&](int d) { return d < 0 ? 1 : shape[d]; };
  auto step = [&](int d) { return d < 0 ? 0 : stride[d]; };
  int64_t count = size(l.n), channels = size(l.c), h = size(l.h), w = size(l.w);
  bool allowed = l.n >= 0 ? (channels == 1 || channels == 3) : (channels == 1 || channels == 3 || channels == 4);
  if (!allowed)
    throw Error(std::string("an image has ") + (l.n >= 0 ? "1 or 3" : "1, 3 or 4") + " channels, got " +
                std::to_string(channels) + " (shape " + shape_text(shape) + ", dataformats '" + dataformats + "')");
  if (count == 0 || h == 0 || w == 0) throw Error("the image is empty (shape " + shape_text(shape) + ")");
  int64_t columns = std::min(count, kGridColumns), rows = (count + columns - 1) / columns;
  Image out;
  out.height = h * rows;
  out.width = w * columns;
  out.channels = channels == 4 ? 4 : 3;  // gray is written as RGB, as PyTorch does
  out.pixels.assign(static_cast<size_t>(out.height * out.width * out.channels), 0);
  for (int64_t y = 0; y < out.height; ++y)
    for (int64_t x = 0; x < out.width; ++x) {
      int64_t image = (y / h) * columns + x / w;
      if (image >= count) continue;  // the grid's empty cells stay black
      for (int64_t c = 0; c < out.channels; ++c) {
        int64_t source =
            image * step(l.n) + (channels == 1 ? 0 : c) * step(l.c) + (y % h) * step(l.h) + (x % w) * step(l.w);
        out.pixels[static_cast<size_t>((y * out.width + x) * out.channels + c)] =
            to_byte(values[static_cast<size_t>(source)], is_u8);
      }
    }
  return out;
}

}  // namespace nabla::tensorboard_log
