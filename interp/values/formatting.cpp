// f-string format specs on values (format_value): Python's format-spec mini-language,
//   [[fill]align][sign][z][#][0][width][grouping][.precision][type]
// for ints (b c d o x X n), floats (e E f F g G n %) and strings (s), with the same
// output as Python's format() (checked against CPython 3.11). Must not touch how
// values print by default (str and repr are value.cpp's).
#include <cmath>
#include <cstdio>

#include "interp/builtins/builtins_internal.hpp"
#include "lang/utf8_text.hpp"

namespace nabla::interp {

namespace {

// Width and precision are at most this: past it a spec is an error, not a signed
// overflow (a fuzz finding) or a string of gigabytes. Python has no such cap, but no
// printout needs a million columns.
constexpr int kMaxFormatCount = 1000000;

// A parsed spec. Widths count code points, as Python's do (strings are UTF-8).
struct FormatSpec {
  std::string text;         // the spec as written, for messages
  std::string fill = " ";   // one code point
  bool fill_given = false;
  char align = 0;           // '<' '>' '^' '=' or 0 (the value kind's default)
  char sign = 0;            // '+' '-' ' ' or 0
  bool z = false;           // negative zero after rounding prints as zero
  bool alt = false;         // '#': 0x/0o/0b prefixes, a kept decimal point
  int width = -1;
  char grouping = 0;        // ',' or '_' or 0
  int precision = -1;
  char type = 0;
};

[[noreturn]] void spec_error(const FormatSpec& s, const std::string& why) {
  fail("format spec '" + s.text + "': " + why);
}

bool is_align(char c) { return c == '<' || c == '>' || c == '^' || c == '='; }

// Bytes of the UTF-8 code point whose first byte is c (1 for a stray byte).
size_t code_point_bytes(unsigned char c) {
  if (c >= 0xF0 && c <= 0xF4) return 4;
  if (c >= 0xE0) return c <= 0xEF ? 3 : 1;
  if (c >= 0xC2) return 2;
  return 1;
}

// Code points in s: bytes that do not continue a UTF-8 sequence.
size_t code_points(const std::string& s) {
  size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80;
  return n;
}

// The first n code points of s.
std::string first_code_points(const std::string& s, size_t n) {
  size_t p = 0;
  for (size_t k = 0; k < n && p < s.size(); ++k) p += std::min(code_point_bytes(static_cast<unsigned char>(s[p])), s.size() - p);
  return s.substr(0, p);
}

// Reads the digits at spec[p] as a width or precision, moving p past them.
int read_format_count(const FormatSpec& s, size_t& p, const char* what) {
  int64_t n = 0;
  while (p < s.text.size() && std::isdigit(static_cast<unsigned char>(s.text[p]))) {
    n = n * 10 + (s.text[p++] - '0');
    if (n > kMaxFormatCount) spec_error(s, std::string(what) + " is larger than " + std::to_string(kMaxFormatCount));
  }
  return static_cast<int>(n);
}

// [[fill]align][sign][z][#][0][width][grouping][.precision][type], as Python reads it.
FormatSpec parse_spec(const std::string& text) {
  FormatSpec s;
  s.text = text;
  // "{:{}}".format(x, w) read its '{' as the format code ("unknown format code '{'").
  if (text.find('{') != std::string::npos)
    spec_error(s, "a nested field ('{' inside a spec) is not supported: write the spec out, as in '>10'");
  size_t p = 0, lead = text.empty() ? 0 : code_point_bytes(static_cast<unsigned char>(text[0]));
  if (text.size() > lead && is_align(text[lead])) {
    s.fill = text.substr(0, lead);
    s.fill_given = true;
    s.align = text[lead];
    p = lead + 1;
  } else if (!text.empty() && is_align(text[0])) {
    s.align = text[p++];
  }
  if (p < text.size() && (text[p] == '+' || text[p] == '-' || text[p] == ' ')) s.sign = text[p++];
  if (p < text.size() && text[p] == 'z') s.z = true, ++p;
  if (p < text.size() && text[p] == '#') s.alt = true, ++p;
  if (p < text.size() && text[p] == '0') {  // '0': zero fill, sign-aware unless aligned
    if (!s.fill_given) s.fill.assign(1, '0'), s.fill_given = true;  // (not = "0": GCC 12 warns falsely)
    if (!s.align) s.align = '0';  // '=' for numbers, '<' for strings: decided by the value
    ++p;
  }
  if (p < text.size() && std::isdigit(static_cast<unsigned char>(text[p]))) s.width = read_format_count(s, p, "the width");
  if (p < text.size() && (text[p] == ',' || text[p] == '_')) s.grouping = text[p++];
  if (p < text.size() && text[p] == '.') {
    ++p;
    if (p >= text.size() || !std::isdigit(static_cast<unsigned char>(text[p]))) spec_error(s, "expected digits after '.'");
    s.precision = read_format_count(s, p, "the precision");
  }
  if (p < text.size()) s.type = text[p++];
  if (p != text.size()) fail("invalid format spec '" + text + "'");
  return s;
}

// The digits with a separator every `group` digits from the right (no separator when
// group is 0), zero-padded to min_width characters when min_width is more than
// their length: Python groups the zeros of '0' padding too ('010,' of 1234 is
// 00,001,234). The algorithm of CPython's _PyUnicode_InsertThousandsGrouping.
std::string group_digits(const std::string& digits, size_t group, char sep, int64_t min_width) {
  std::string out;  // built reversed
  int64_t remaining = static_cast<int64_t>(digits.size());
  size_t from = digits.size();
  auto emit = [&](int64_t l, bool separator) {
    int64_t chars = std::max<int64_t>(0, std::min(remaining, l));
    int64_t zeros = std::max<int64_t>(0, l - remaining);
    if (separator) out += sep;
    for (int64_t k = 0; k < chars; ++k) out += digits[--from];
    out.append(static_cast<size_t>(zeros), '0');
    remaining -= chars;
  };
  if (group == 0) {
    emit(std::max<int64_t>({remaining, min_width, 1}), false);
  } else {
    for (bool separator = false;; separator = true) {
      int64_t l = std::min<int64_t>(static_cast<int64_t>(group), std::max<int64_t>({remaining, min_width, 1}));
      emit(l, separator);
      min_width -= l;
      if (remaining <= 0 && min_width <= 0) break;
      min_width -= 1;
    }
  }
  return std::string(out.rbegin(), out.rend());
}

std::string repeat_fill(const std::string& fill, int64_t n) {
  std::string out;
  for (int64_t k = 0; k < n; ++k) out += fill;
  return out;
}

// Lays out sign, prefix, (grouped) digits, the decimal point and the rest in the width:
// | lpad | sign | prefix | spad | digits | . | remainder | rpad |
std::string layout_number(const FormatSpec& s, bool negative, const std::string& prefix, const std::string& digits,
                          const std::string& decimal_and_rest, size_t group) {
  std::string sign = negative ? "-" : s.sign == '+' ? "+" : s.sign == ' ' ? " " : "";
  char align = s.align == '0' ? '=' : s.align ? s.align : '>';
  int64_t fixed = static_cast<int64_t>(sign.size() + prefix.size() + decimal_and_rest.size());
  int64_t min_width = s.fill == "0" && align == '=' ? s.width - fixed : 0;
  std::string grouped = digits.empty() ? "" : group_digits(digits, s.grouping ? group : 0, s.grouping, min_width);
  int64_t pad = std::max<int64_t>(0, s.width - fixed - static_cast<int64_t>(grouped.size()));
  int64_t left = align == '>' ? pad : align == '^' ? pad / 2 : 0;
  int64_t right = align == '<' ? pad : align == '^' ? pad - pad / 2 : 0;
  int64_t inner = align == '=' ? pad : 0;
  return repeat_fill(s.fill, left) + sign + prefix + repeat_fill(s.fill, inner) + grouped + decimal_and_rest +
         repeat_fill(s.fill, right);
}

// snprintf of one number into a string of the size it needs (a precision can ask for
// any number of digits, more than a fixed buffer holds).
template <class... Args>
std::string printf_number(const char* format, Args... args) {
  int size = std::snprintf(nullptr, 0, format, args...);
  std::string out(static_cast<size_t>(size), '\0');
  std::snprintf(out.data(), out.size() + 1, format, args...);
  return out;
}

// Type 'c': the character of code point i, padded as a number is (right by default).
std::string format_char(const FormatSpec& s, int64_t i) {
  if (s.sign) spec_error(s, "a sign is not allowed with 'c'");
  if (s.alt) spec_error(s, "'#' is not allowed with 'c'");
  if (s.grouping) spec_error(s, std::string("'") + s.grouping + "' is not allowed with 'c'");
  if (i < 0 || i > 0x10FFFF) spec_error(s, "'c' needs a code point in [0, 0x10FFFF], got " + std::to_string(i));
  std::string c = utf8_encode(i);
  char align = s.align == '0' ? '=' : s.align ? s.align : '>';
  int64_t pad = std::max<int64_t>(0, s.width - 1);
  if (align == '<') return c + repeat_fill(s.fill, pad);
  if (align == '^') return repeat_fill(s.fill, pad / 2) + c + repeat_fill(s.fill, pad - pad / 2);
  return repeat_fill(s.fill, pad) + c;
}

// Types b d n o x X (and none) of an int64; INT64_MIN included.
std::string format_int(const FormatSpec& s, int64_t i) {
  if (s.precision >= 0) spec_error(s, "a precision is not allowed with an int");
  if (s.z) spec_error(s, "'z' is not allowed with an int");
  if (s.type == 'c') return format_char(s, i);
  char t = s.type == 0 || s.type == 'n' ? 'd' : s.type;
  if (s.grouping && (s.type == 'n' || (s.grouping == ',' && t != 'd')))
    spec_error(s, std::string("'") + s.grouping + "' is not allowed with '" + s.type + "'");
  bool negative = i < 0;
  uint64_t u = negative ? static_cast<uint64_t>(-(i + 1)) + 1 : static_cast<uint64_t>(i);
  std::string digits;
  if (t == 'b') {
    do digits.insert(digits.begin(), static_cast<char>('0' + (u & 1)));
    while (u >>= 1);
  } else {
    digits = printf_number(t == 'd' ? "%llu" : t == 'x' ? "%llx" : t == 'X' ? "%llX" : "%llo",
                           static_cast<unsigned long long>(u));
  }
  std::string prefix = s.alt && t != 'd' ? std::string("0") + (t == 'X' ? 'X' : t) : "";
  return layout_number(s, negative, prefix, digits, "", t == 'd' ? 3 : 4);
}

// Whether a formatted float is zero (no digit 1 to 9 before any exponent).
bool rounds_to_zero(const std::string& body) {
  for (char c : body) {
    if (c == 'e' || c == 'E') break;
    if (c >= '1' && c <= '9') return false;
  }
  return true;
}

// Drops the zeros that end a mantissa's fraction, and its '.' when nothing is left.
std::string strip_fraction_zeros(std::string m) {
  if (m.find('.') == std::string::npos) return m;
  while (m.back() == '0') m.pop_back();
  if (m.back() == '.') m.pop_back();
  return m;
}

// No type, with a precision p (0 counts as 1): CPython's 'g' with Py_DTSF_ADD_DOT_0,
// which turns to the exponent form one decimal exponent earlier than C's %g does
// (format(123.0, '.3') is '1.23e+02') and keeps a digit after the point ('1.0').
std::string general_with_dot(double a, int p, bool alt) {
  if (!std::isfinite(a)) return printf_number("%g", a);
  p = std::max(p, 1);
  std::string sci = printf_number(alt ? "%#.*e" : "%.*e", p - 1, a);
  size_t e = sci.find('e');
  int exp10 = std::atoi(sci.c_str() + e + 1);
  if (exp10 < -4 || exp10 >= p - 1) return alt ? sci : strip_fraction_zeros(sci.substr(0, e)) + sci.substr(e);
  std::string fixed = printf_number("%.*f", p - 1 - exp10, a);  // at least one decimal
  if (alt) return fixed;
  fixed = strip_fraction_zeros(fixed);
  return fixed.find('.') == std::string::npos ? fixed + ".0" : fixed;
}

// The digits of |d| for types e E f F g G % n and none, as Python's float.__format__.
std::string float_body(const FormatSpec& s, double a) {
  char t = s.type == 'n' ? 'g' : s.type == '%' ? 'f' : s.type;
  if (s.type == '%') a *= 100;
  if (t == 0 && s.precision < 0) {  // repr; '#' adds a '.' to the exponent form (1.e+16)
    std::string r = float_repr(a);
    size_t e = r.find('e');
    if (s.alt && e != std::string::npos && r.find('.') == std::string::npos) r.insert(e, 1, '.');
    return r;
  }
  if (t == 0) return general_with_dot(a, s.precision, s.alt);
  int prec = s.precision < 0 ? 6 : s.precision;
  if ((t == 'g' || t == 'G') && prec == 0) prec = 1;
  std::string format = std::string("%") + (s.alt ? "#" : "") + ".*" + t;
  std::string body = printf_number(format.c_str(), prec, a);
  if (s.type == '%') body += '%';
  return body;
}

std::string format_float(const FormatSpec& s, double d) {
  if (s.grouping && s.type == 'n') spec_error(s, std::string("'") + s.grouping + "' is not allowed with 'n'");
  bool negative = std::signbit(d) && !std::isnan(d);
  std::string body = float_body(s, std::fabs(d));
  if (s.z && negative && std::isfinite(d) && rounds_to_zero(body)) negative = false;
  size_t end = body.find_first_not_of("0123456789");
  if (end == std::string::npos) end = body.size();
  return layout_number(s, negative, "", body.substr(0, end), body.substr(end), 3);
}

// Strings (type s or none): a precision truncates; padded left-aligned by default.
std::string format_text(const FormatSpec& s, std::string body) {
  if (s.sign) spec_error(s, "a sign is not allowed with a str");
  if (s.alt) spec_error(s, "'#' is not allowed with a str");
  if (s.z) spec_error(s, "'z' is not allowed with a str");
  if (s.align == '=') spec_error(s, "'=' alignment is not allowed with a str");
  if (s.grouping) spec_error(s, std::string("'") + s.grouping + "' is not allowed with a str");
  if (s.precision >= 0) body = first_code_points(body, static_cast<size_t>(s.precision));
  int64_t pad = std::max<int64_t>(0, s.width - static_cast<int64_t>(code_points(body)));
  char align = s.align == '0' || !s.align ? '<' : s.align;
  if (align == '<') return body + repeat_fill(s.fill, pad);
  if (align == '^') return repeat_fill(s.fill, pad / 2) + body + repeat_fill(s.fill, pad - pad / 2);
  return repeat_fill(s.fill, pad) + body;
}

bool is_int_type(char t) { return t == 'b' || t == 'c' || t == 'd' || t == 'o' || t == 'x' || t == 'X'; }
bool is_float_type(char t) {
  return t == 'e' || t == 'E' || t == 'f' || t == 'F' || t == 'g' || t == 'G' || t == '%';
}

// A one-element tensor formats as its item (as torch's Tensor.__format__ does).
Value scalar_of(const Value& v) {
  if (v.tag != Tag::Tensor || !v.t.defined() || v.t.numel() != 1) return v;
  if (is_floating(v.t.dtype())) return Value::number(v.t.item());
  if (v.t.dtype() == DType::b8) return Value::boolean(v.t.item_int() != 0);
  return Value::integer(v.t.item_int());
}

// A spec formats a number; a tensor of other than one element has none (PyTorch's
// Tensor.__format__ raises for it too), so say which tensor instead of padding its text.
[[noreturn, gnu::noinline]] void fail_tensor_spec(const Tensor& t, const std::string& text) {
  fail("format spec '" + text + "' needs a number or a one-element tensor, got a tensor of shape " + t.shape_str() +
       " (" + std::to_string(t.numel()) + " elements); format one element (t[0]), a reduction (t.sum()) or "
       "t.tolist() without a spec");
}

}  // namespace

std::string format_value(const Value& v0, const std::string& text) {
  Value v = scalar_of(v0);
  if (text.empty()) return str(v);
  if (v.tag == Tag::Tensor && v.t.defined()) fail_tensor_spec(v.t, text);
  FormatSpec s = parse_spec(text);
  if (v.tag == Tag::Int || v.tag == Tag::Bool) {  // a bool formats as its int under a spec
    if (is_int_type(s.type) || s.type == 0 || s.type == 'n') return format_int(s, int_of(v));
    if (is_float_type(s.type)) return format_float(s, static_cast<double>(int_of(v)));
    fail(std::string("unknown format code '") + s.type + "' for a number");
  }
  if (v.tag == Tag::Float) {
    if (is_float_type(s.type) || s.type == 0 || s.type == 'n') return format_float(s, v.f);
    if (is_int_type(s.type)) spec_error(s, std::string("'") + s.type + "' needs an int, got float");
    fail(std::string("unknown format code '") + s.type + "' for a number");
  }
  if (s.type != 0 && s.type != 's') {
    if (is_int_type(s.type) || is_float_type(s.type) || s.type == 'n')
      fail("format spec '" + text + "' needs a number, got " + type_name(v));
    spec_error(s, std::string("unknown format code '") + s.type + "' for " + type_name(v));
  }
  return format_text(s, str(v));
}

}  // namespace nabla::interp
