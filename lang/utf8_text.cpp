// Code points of UTF-8 strings (Python's view of a str); see utf8_text.hpp.
#include "lang/utf8_text.hpp"

#include <clocale>
#include <cctype>
#include <cwctype>
#include <locale.h>

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

// The C.UTF-8 locale's character classes, or null where the system has none (then
// only ASCII letters have a case).
locale_t unicode_ctype() {
  static const locale_t loc = newlocale(LC_CTYPE_MASK, "C.UTF-8", static_cast<locale_t>(nullptr));
  return loc;
}

bool ascii(int64_t c) { return c >= 0 && c < 0x80; }

// The code point of one character, or -1 for a byte that is not valid UTF-8 (which
// utf8_code_point reads as the byte's value, as ord() shows it).
int64_t valid_code_point(const std::string& ch) {
  const int64_t c = utf8_code_point(ch);
  return ch.size() == 1 && c >= 0x80 ? -1 : c;
}

// Python's str.isspace(): the ASCII ones, the separators 0x1C-0x1F, and Unicode's
// spaces (the C locale's iswspace leaves out the no-break ones).
bool python_space(int64_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

}  // namespace

std::vector<size_t> utf8_starts(const std::string& s) {
  std::vector<size_t> out;
  out.reserve(s.size() + 1);
  for (size_t k = 0; k < s.size(); k += sequence_length(s, k)) out.push_back(k);
  out.push_back(s.size());
  return out;
}

size_t utf8_invalid_at(const std::string& s) {
  for (size_t k = 0; k < s.size();) {
    const size_t n = sequence_length(s, k);
    const auto b = static_cast<unsigned char>(s[k]);
    if (n == 1) {
      if (b >= 0x80) return k;
      ++k;
      continue;
    }
    const int64_t c = utf8_code_point(s.substr(k, n));
    const int64_t least = n == 2 ? 0x80 : n == 3 ? 0x800 : 0x10000;  // shorter forms are overlong
    if (c < least || c > 0x10FFFF || (c >= 0xD800 && c <= 0xDFFF)) return k;
    k += n;
  }
  return std::string::npos;
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

std::string utf8_change_case(const std::string& s, bool upper) {
  const locale_t loc = unicode_ctype();
  std::string out;
  out.reserve(s.size());
  for (const std::string& ch : utf8_chars(s)) {
    const int64_t c = valid_code_point(ch);
    if (c < 0) {
      out += ch;  // an invalid byte has no case
    } else if (c == 0xDF && upper) {
      out += "SS";
    } else if (ascii(c) || !loc) {
      const bool az = upper ? (c >= 'a' && c <= 'z') : (c >= 'A' && c <= 'Z');
      out += az ? utf8_encode(c ^ 0x20) : ch;
    } else {
      out += utf8_encode(upper ? towupper_l(static_cast<wint_t>(c), loc) : towlower_l(static_cast<wint_t>(c), loc));
    }
  }
  return out;
}

bool utf8_char_is(const std::string& ch, CharClass k) {
  const int64_t c = valid_code_point(ch);
  if (c < 0) return false;
  if (k == CharClass::digit) return c >= '0' && c <= '9';
  if (k == CharClass::space) return python_space(c);
  const locale_t loc = unicode_ctype();
  if (!loc && !ascii(c)) return false;
  const auto w = static_cast<wint_t>(c);
  switch (k) {
    case CharClass::alpha: return loc ? iswalpha_l(w, loc) : std::isalpha(static_cast<int>(c));
    case CharClass::alnum: return loc ? iswalnum_l(w, loc) : std::isalnum(static_cast<int>(c));
    case CharClass::upper: return loc ? iswupper_l(w, loc) : std::isupper(static_cast<int>(c));
    case CharClass::lower: return loc ? iswlower_l(w, loc) : std::islower(static_cast<int>(c));
    default: return false;
  }
}

}  // namespace nabla
