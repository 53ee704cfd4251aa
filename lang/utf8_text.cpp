// Code points of UTF-8 strings (Python's view of a str); see utf8_text.hpp.
#include "lang/utf8_text.hpp"

namespace nabla {

namespace {

// The length of the valid UTF-8 sequence starting at s[k], or 1 for a byte that does
// not start one (it is then a character of its own).
size_t sequence_length(const std::string& s, size_t k) {
  const auto b = static_cast<unsigned char>(s[k]);
  const size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
  if (n <= 1 || k + n > s.size()) return 1;
  for (size_t j = 1; j < n; ++j)
    if ((static_cast<unsigned char>(s[k + j]) & 0xC0) != 0x80) return 1;
  return n;
}

}  // namespace

std::vector<size_t> utf8_starts(const std::string& s) {
  std::vector<size_t> out;
  out.reserve(s.size() + 1);
  for (size_t k = 0; k < s.size(); k += sequence_length(s, k)) out.push_back(k);
  out.push_back(s.size());
  return out;
}

int64_t utf8_length(const std::string& s) {
  int64_t n = 0;
  for (size_t k = 0; k < s.size(); k += sequence_length(s, k)) ++n;
  return n;
}

std::vector<std::string> utf8_chars(const std::string& s) {
  std::vector<std::string> out;
  for (size_t k = 0; k < s.size();) {
    const size_t n = sequence_length(s, k);
    out.push_back(s.substr(k, n));
    k += n;
  }
  return out;
}

int64_t utf8_index_of_byte(const std::string& s, size_t byte) {
  int64_t n = 0;
  for (size_t k = 0; k < byte && k < s.size(); k += sequence_length(s, k)) ++n;
  return n;
}

size_t utf8_byte_of_index(const std::string& s, int64_t index) {
  size_t k = 0;
  for (int64_t n = 0; n < index && k < s.size(); ++n) k += sequence_length(s, k);
  return k;
}

int64_t utf8_code_point(const std::string& s) {
  if (s.empty()) return -1;
  const size_t n = sequence_length(s, 0);
  if (n != s.size()) return -1;
  const auto b0 = static_cast<unsigned char>(s[0]);
  if (n == 1) return b0;
  int64_t c = b0 & (0x7F >> n);
  for (size_t j = 1; j < n; ++j) c = (c << 6) | (static_cast<unsigned char>(s[j]) & 0x3F);
  return c;
}

std::string utf8_encode(int64_t c) {
  std::string out;
  if (c < 0x80) {
    out += static_cast<char>(c);
  } else if (c < 0x800) {
    out += static_cast<char>(0xC0 | (c >> 6));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else if (c < 0x10000) {
    out += static_cast<char>(0xE0 | (c >> 12));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (c >> 18));
    out += static_cast<char>(0x80 | ((c >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((c >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (c & 0x3F));
  }
  return out;
}

}  // namespace nabla
