// f-string format specs on values (format_value): width, alignment, sign, grouping
// and the d/f/e/g/%/s presentation types. Must not touch how values print by
// default (str and repr are value.cpp's).
#include <cmath>
#include <cstdio>

#include "interp/builtins_internal.hpp"

namespace nabla::interp {

// ---- format specs ---------------------------------------------------------------------

namespace {

// Width and precision are at most this: past it a spec is an error, not a signed
// overflow (a fuzz finding) or a string of gigabytes. Python has no such cap, but no
// printout needs a million columns.
constexpr int kMaxFormatCount = 1000000;

// Reads the digits at spec[p] as a width or precision, moving p past them.
int read_format_count(const std::string& spec, size_t& p, const char* what) {
  int64_t n = 0;
  while (p < spec.size() && std::isdigit(static_cast<unsigned char>(spec[p]))) {
    n = n * 10 + (spec[p++] - '0');
    if (n > kMaxFormatCount) fail("format spec '" + spec + "': " + what + " is larger than " + std::to_string(kMaxFormatCount));
  }
  return static_cast<int>(n);
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

}  // namespace

std::string format_value(const Value& v0, const std::string& spec) {
  Value v = v0;
  if (v.tag == Tag::Tensor && v.t.defined() && v.t.numel() == 1) {
    v = is_floating(v.t.dtype()) ? Value::number(v.t.item())
        : v.t.dtype() == DType::b8 ? Value::boolean(v.t.item_int() != 0)
                                   : Value::integer(v.t.item_int());
  }
  size_t p = 0;
  char fill = ' ', align = 0, sign = '-';
  bool alt = false, comma = false;
  int width = -1, precision = -1;
  char type = 0;
  auto is_align = [](char c) { return c == '<' || c == '>' || c == '^' || c == '='; };
  if (spec.size() >= 2 && is_align(spec[1])) {
    fill = spec[0];
    align = spec[1];
    p = 2;
  } else if (!spec.empty() && is_align(spec[0])) {
    align = spec[0];
    p = 1;
  }
  if (p < spec.size() && (spec[p] == '+' || spec[p] == '-' || spec[p] == ' ')) sign = spec[p++];
  if (p < spec.size() && spec[p] == '#') {
    alt = true;
    ++p;
  }
  if (p < spec.size() && spec[p] == '0') {
    if (!align) {
      fill = '0';
      align = '=';
    }
    ++p;
  }
  if (p < spec.size() && std::isdigit(static_cast<unsigned char>(spec[p]))) width = read_format_count(spec, p, "the width");
  if (p < spec.size() && (spec[p] == ',' || spec[p] == '_')) {
    comma = true;
    ++p;
  }
  if (p < spec.size() && spec[p] == '.') {
    ++p;
    if (p >= spec.size() || !std::isdigit(static_cast<unsigned char>(spec[p]))) fail("format spec '" + spec + "': expected digits after '.'");
    precision = read_format_count(spec, p, "the precision");
  }
  if (p < spec.size()) type = spec[p++];
  if (p != spec.size()) fail("invalid format spec '" + spec + "'");
  (void)alt;

  std::string body;
  bool numeric = v.is_num();
  bool negative = false;
  if (type == 's' || (!type && !numeric)) {
    if (type == 's' && numeric) fail("format spec 's' needs a str, got " + std::string(type_name(v)));
    body = str(v);
    if (precision >= 0 && body.size() > static_cast<size_t>(precision)) body.resize(static_cast<size_t>(precision));
    numeric = false;
  } else {
    if (!numeric) fail("format spec '" + spec + "' needs a number, got " + type_name(v));
    if (type == 'd' || type == 'x' || type == 'X' || type == 'o' || type == 'b') {
      if (v.tag == Tag::Float) fail("format spec 'd' needs an int, got float");
      int64_t i = int_of(v);
      negative = i < 0;
      uint64_t u = negative ? static_cast<uint64_t>(-(i + 1)) + 1 : static_cast<uint64_t>(i);
      if (type == 'd') body = std::to_string(u);
      else if (type == 'b') {
        do {
          body.insert(body.begin(), static_cast<char>('0' + (u & 1)));
          u >>= 1;
        } while (u);
      } else {
        body = printf_number(type == 'x' ? "%llx" : type == 'X' ? "%llX" : "%llo", static_cast<unsigned long long>(u));
      }
    } else if (!type && v.tag != Tag::Float && precision < 0) {
      int64_t i = int_of(v);
      negative = i < 0;
      body = std::to_string(negative ? -static_cast<__int128>(i) > INT64_MAX ? 0 : -i : i);
      if (i == INT64_MIN) body = "9223372036854775808";
    } else {
      double d = v.as_double();
      negative = std::signbit(d) && !std::isnan(d);
      double a = std::fabs(d);
      int prec = precision < 0 ? 6 : precision;
      switch (type) {
        case 'f':
        case 'F': body = printf_number("%.*f", prec, a); break;
        case 'e':
        case 'E': body = printf_number(type == 'e' ? "%.*e" : "%.*E", prec, a); break;
        case 'g':
        case 'G': body = printf_number(type == 'g' ? "%.*g" : "%.*G", prec == 0 ? 1 : prec, a); break;
        case '%': body = printf_number("%.*f%%", prec, a * 100); break;
        case 0: body = precision < 0 ? float_repr(a) : printf_number("%.*g", prec == 0 ? 1 : prec, a); break;
        default: fail(std::string("unknown format code '") + type + "' for a number");
      }
      if (std::isinf(a)) body = type == 'F' || type == 'E' || type == 'G' ? "INF" : "inf";
      if (std::isnan(a)) body = type == 'F' || type == 'E' || type == 'G' ? "NAN" : "nan";
    }
    if (comma) {
      size_t end = body.find_first_of(".eE%");
      if (end == std::string::npos) end = body.size();
      std::string head = body.substr(0, end), rest = body.substr(end);
      std::string grouped;
      int count = 0;
      for (size_t k = head.size(); k-- > 0;) {
        grouped.insert(grouped.begin(), head[k]);
        if (++count % 3 == 0 && k > 0 && std::isdigit(static_cast<unsigned char>(head[k - 1]))) grouped.insert(grouped.begin(), ',');
      }
      body = grouped + rest;
    }
  }
  std::string sign_str;
  if (numeric) {
    if (negative) sign_str = "-";
    else if (sign == '+') sign_str = "+";
    else if (sign == ' ') sign_str = " ";
  }
  if (!align) align = numeric ? '>' : '<';
  size_t len = sign_str.size() + body.size();
  if (width < 0 || static_cast<size_t>(width) <= len) return sign_str + body;
  size_t padn = static_cast<size_t>(width) - len;
  switch (align) {
    case '<': return sign_str + body + std::string(padn, fill);
    case '^': return std::string(padn / 2, fill) + sign_str + body + std::string(padn - padn / 2, fill);
    case '=': return sign_str + std::string(padn, fill) + body;
    default: return std::string(padn, fill) + sign_str + body;
  }
}

}  // namespace nabla::interp
