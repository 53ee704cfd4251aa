// Methods of strings, lists, tuples and dicts (split, join, append, keys, ...): one
// table per receiver kind (Note [Builtin tables] in builtin_table.hpp), which
// get_attr, call_method, completion and :help all read. Tensor methods are
// builtins_tensor.cpp's, model methods interp/models/model_methods.cpp's.
#include <algorithm>

#include <set>

#include "lang/utf8_text.hpp"
#include "interp/values/object_regions.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

namespace {

// Positional arguments between lo and hi, and no keywords (list.sort and str.format
// read keywords and do not ask).
void arity(const CallArgs& a, const std::string& name, size_t lo, size_t hi) {
  if (!a.kw.empty()) fail(name + "() takes no keyword arguments");
  if (a.pos.size() < lo || a.pos.size() > hi) {
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    fail(name + "() takes " + want + " argument" + (hi == 1 ? "" : "s") + " but " + std::to_string(a.pos.size()) +
         (a.pos.size() == 1 ? " was" : " were") + " given");
  }
}

const std::string& str_arg(const Value& v, const std::string& fn) {
  if (v.tag != Tag::Str) fail(fn + "() expects a str, got " + type_name(v));
  return v.as<StrObj>()->s;
}

const std::string& text_of(const Value& self) { return self.as<StrObj>()->s; }

// ---- str ----------------------------------------------------------------------------------

Value change_case(const Value& self, CallArgs& a, bool upper) {
  arity(a, upper ? "upper" : "lower", 0, 0);
  return make_str(utf8_change_case(text_of(self), upper));
}
Value str_upper(Evaluator&, const Value& self, CallArgs& a) { return change_case(self, a, true); }
Value str_lower(Evaluator&, const Value& self, CallArgs& a) { return change_case(self, a, false); }

// strip, lstrip and rstrip: `name` says which ends. The characters to strip are
// characters, not bytes: byte-wise, "\u{e9}a".strip("\u{e8}") cut the first byte of
// the e-acute, both starting with 0xC3, and left invalid UTF-8.
Value strip_ends(const Value& self, CallArgs& a, const std::string& name) {
  arity(a, name, 0, 1);
  const std::vector<std::string> chars = utf8_chars(text_of(self));
  const bool whitespace = a.pos.empty() || a.pos[0].is_none();
  const std::vector<std::string> set = whitespace ? std::vector<std::string>{} : utf8_chars(str_arg(a.pos[0], name));
  auto stripped = [&](const std::string& c) {
    if (whitespace) return utf8_char_is(c, CharClass::space);
    return std::find(set.begin(), set.end(), c) != set.end();
  };
  size_t b = 0, e = chars.size();
  if (name != "rstrip")
    while (b < e && stripped(chars[b])) ++b;
  if (name != "lstrip")
    while (e > b && stripped(chars[e - 1])) --e;
  std::string out;
  for (size_t k = b; k < e; ++k) out += chars[k];
  return make_str(std::move(out));
}
Value str_strip(Evaluator&, const Value& self, CallArgs& a) { return strip_ends(self, a, "strip"); }
Value str_lstrip(Evaluator&, const Value& self, CallArgs& a) { return strip_ends(self, a, "lstrip"); }
Value str_rstrip(Evaluator&, const Value& self, CallArgs& a) { return strip_ends(self, a, "rstrip"); }

// str.split() without a separator: runs of Python's whitespace (by character, as strip).
std::vector<Value> split_on_whitespace(const std::string& s) {
  std::vector<Value> out;
  std::string word;
  for (const std::string& c : utf8_chars(s)) {
    if (!utf8_char_is(c, CharClass::space)) {
      word += c;
    } else if (!word.empty()) {
      out.push_back(make_str(std::move(word)));
      word.clear();
    }
  }
  if (!word.empty()) out.push_back(make_str(std::move(word)));
  return out;
}

Value str_split(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "split", 0, 1);
  const std::string& s = text_of(self);
  if (a.pos.empty() || a.pos[0].is_none()) return make_list(split_on_whitespace(s));
  const std::string& sep = str_arg(a.pos[0], "split");
  if (sep.empty()) fail("split(): empty separator");
  std::vector<Value> out;
  size_t b = 0, k;
  while ((k = s.find(sep, b)) != std::string::npos) {
    out.push_back(make_str(s.substr(b, k - b)));
    b = k + sep.size();
  }
  out.push_back(make_str(s.substr(b)));
  return make_list(std::move(out));
}

Value str_join(Evaluator& ev, const Value& self, CallArgs& a) {
  arity(a, "join", 1, 1);
  const std::string& s = text_of(self);
  std::vector<Value> parts = ev.iterate(a.pos[0]);
  size_t total = parts.empty() ? 0 : s.size() * (parts.size() - 1);  // the separators
  for (auto& x : parts) {
    if (x.tag != Tag::Str) fail(std::string("join() expects strings, got ") + type_name(x));
    total += x.as<StrObj>()->s.size();
  }
  // Note [Host memory budget]: a long separator times many parts is asked for first.
  if (!parts.empty() && s.size() > SIZE_MAX / parts.size()) total = SIZE_MAX;
  CpuAllocator::instance().check_host_request(total, 1, "a str");
  std::string out;
  out.reserve(total);
  for (size_t k = 0; k < parts.size(); ++k) {
    if (k) out += s;
    out += parts[k].as<StrObj>()->s;
  }
  return make_str(std::move(out));
}

Value str_replace(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "replace", 2, 2);
  const std::string& s = text_of(self);
  const std::string& from = str_arg(a.pos[0], "replace");
  const std::string& to = str_arg(a.pos[1], "replace");
  size_t count = 0;
  if (from.empty()) count = static_cast<size_t>(utf8_length(s)) + 1;  // Python: before each character and at the end
  else
    for (size_t k = s.find(from); k != std::string::npos; k = s.find(from, k + from.size())) ++count;
  // Note [Host memory budget]: each match may grow (a 1-byte match, a 1 MB replacement).
  if (to.size() > from.size()) CpuAllocator::instance().check_host_request(count, to.size() - from.size(), "a str");
  std::string out;
  if (from.empty()) {  // "abc".replace("", "-") is "-a-b-c-"
    out.reserve(s.size() + count * to.size());
    out += to;
    for (const std::string& c : utf8_chars(s)) (out += c) += to;
    return make_str(std::move(out));
  }
  size_t b = 0, k;
  while ((k = s.find(from, b)) != std::string::npos) {
    out.append(s, b, k - b);
    out += to;
    b = k + from.size();
  }
  out.append(s, b, std::string::npos);
  return make_str(std::move(out));
}

Value has_affix(const Value& self, CallArgs& a, bool prefix) {
  const char* name = prefix ? "startswith" : "endswith";
  arity(a, name, 1, 1);
  const std::string& s = text_of(self);
  const std::string& p = str_arg(a.pos[0], name);
  bool r = p.size() <= s.size() &&
           (prefix ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
  return Value::boolean(r);
}
Value str_startswith(Evaluator&, const Value& self, CallArgs& a) { return has_affix(self, a, true); }
Value str_endswith(Evaluator&, const Value& self, CallArgs& a) { return has_affix(self, a, false); }

// find, rfind, index and rindex: sub's first (last) place in s[start:end], counted in
// characters as Python's; index and rindex fail where find gives -1.
int64_t str_search(const Value& self, CallArgs& a, const std::string& name, bool last) {
  arity(a, name, 1, 3);
  const std::string& s = text_of(self);
  const std::string& sub = str_arg(a.pos[0], name);
  const int64_t n = utf8_length(s);
  auto position = [&](size_t k, int64_t fallback) {  // a slice bound, wrapped and clamped as Python's
    if (a.pos.size() <= k || a.pos[k].is_none()) return fallback;
    int64_t i = index_int(a.pos[k], (name + "()").c_str());
    if (i < 0) i = std::max<int64_t>(i + n, 0);
    return std::min(i, n);
  };
  const int64_t start = position(1, 0), end = position(2, n);
  if (a.pos.size() > 1 && !a.pos[1].is_none() && index_int(a.pos[1], (name + "()").c_str()) > n) return -1;
  if (end < start) return -1;
  const size_t from = utf8_byte_of_index(s, start), to = utf8_byte_of_index(s, end);
  const std::string window = s.substr(from, to - from);
  const size_t k = last ? window.rfind(sub) : window.find(sub);
  if (k == std::string::npos) return -1;
  return start + utf8_index_of_byte(window, k);
}
Value str_find(Evaluator&, const Value& self, CallArgs& a) { return Value::integer(str_search(self, a, "find", false)); }
Value str_rfind(Evaluator&, const Value& self, CallArgs& a) { return Value::integer(str_search(self, a, "rfind", true)); }
Value str_index(Evaluator&, const Value& self, CallArgs& a) {
  const int64_t k = str_search(self, a, "index", false);
  if (k < 0) fail("index(): substring not found");
  return Value::integer(k);
}
Value str_rindex(Evaluator&, const Value& self, CallArgs& a) {
  const int64_t k = str_search(self, a, "rindex", true);
  if (k < 0) fail("rindex(): substring not found");
  return Value::integer(k);
}

Value str_count(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "count", 1, 1);
  const std::string& s = text_of(self);
  const std::string& p = str_arg(a.pos[0], "count");
  if (p.empty()) return Value::integer(utf8_length(s) + 1);  // the places between characters
  int64_t n = 0;
  for (size_t k = s.find(p); k != std::string::npos; k = s.find(p, k + p.size())) ++n;
  return Value::integer(n);
}

// isdigit, isalpha, isalnum, isspace: whether the string is not empty and every
// character is of the class (by code point, as Python's: "\u{e9}".isalpha() is true;
// isdigit is 0-9); isupper, islower: whether it has a cased letter and none of the
// other case, as Python's.
constexpr char kIsDigit[] = "isdigit", kIsAlpha[] = "isalpha", kIsAlnum[] = "isalnum", kIsSpace[] = "isspace";

template <CharClass kClass, const char* kName>
Value str_is(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, kName, 0, 0);
  const std::vector<std::string> chars = utf8_chars(text_of(self));
  bool all = !chars.empty();
  for (const std::string& c : chars) all = all && utf8_char_is(c, kClass);
  return Value::boolean(all);
}
template <bool kUpper>
Value str_is_case(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, kUpper ? "isupper" : "islower", 0, 0);
  const CharClass same = kUpper ? CharClass::upper : CharClass::lower;
  const CharClass other_case = kUpper ? CharClass::lower : CharClass::upper;
  bool cased = false, other = false;
  for (const std::string& c : utf8_chars(text_of(self))) {
    cased = cased || utf8_char_is(c, same);
    other = other || utf8_char_is(c, other_case);
  }
  return Value::boolean(cased && !other);
}

// The argument a replacement field names: "" the next positional one, "2" the third,
// "name" a keyword. A number too long for an index is out of range (std::stoul threw,
// and the message was "stoul"); "0.x" and "0[1]" (Python's attribute and item lookups)
// are refused, not read as argument 0.
const Value& format_argument(const std::string& field, const CallArgs& a, size_t& next) {
  if (field.empty()) {
    if (next >= a.pos.size()) fail("format(): not enough arguments");
    return a.pos[next++];
  }
  if (field.find_first_of(".[") != std::string::npos)
    fail("format(): field '" + field + "': attribute and item lookups in a field are not supported (format the value first)");
  if (std::all_of(field.begin(), field.end(), [](char c) { return c >= '0' && c <= '9'; })) {
    if (field.size() > 9 || std::stoul(field) >= a.pos.size())
      fail("format(): index " + field + " out of range (" + std::to_string(a.pos.size()) + " positional arguments)");
    return a.pos[std::stoul(field)];
  }
  const Value* v = a.find_kw(field);
  if (!v) fail("format(): no argument named '" + field + "'");
  return *v;
}

// One replacement field, "{field!conversion:spec}", starting at s[k]; returns the index
// of its '}'. The conversion is Python's !s (str) or !r (repr).
size_t format_field(const std::string& s, size_t k, const CallArgs& a, size_t& next, std::string& out) {
  size_t e = s.find('}', k);
  if (e == std::string::npos) fail("format(): unclosed '{'");
  std::string field = s.substr(k + 1, e - k - 1);
  std::string spec, conversion;
  auto colon = field.find(':');
  if (colon != std::string::npos) {
    spec = field.substr(colon + 1);
    field = field.substr(0, colon);
  }
  auto bang = field.find('!');
  if (bang != std::string::npos) {
    conversion = field.substr(bang + 1);
    field = field.substr(0, bang);
    if (conversion != "s" && conversion != "r")
      fail("format(): unknown conversion '!" + conversion + "' (expected !s or !r)");
  }
  const Value& v = format_argument(field, a, next);
  if (conversion == "r") {
    const Value shown = make_str(repr(v));
    out += spec.empty() ? repr(v) : format_value(shown, spec);
  } else {
    out += spec.empty() ? str(v) : format_value(conversion == "s" ? make_str(str(v)) : v, spec);
  }
  return e;
}

Value str_format(Evaluator&, const Value& self, CallArgs& a) {
  const std::string& s = text_of(self);
  std::string out;
  size_t next = 0;
  for (size_t k = 0; k < s.size(); ++k) {
    bool doubled = k + 1 < s.size() && s[k + 1] == s[k];
    if ((s[k] == '{' || s[k] == '}') && doubled) out += s[k++];  // "{{" and "}}" are the braces
    else if (s[k] == '{') k = format_field(s, k, a, next, out);
    else if (s[k] == '}') fail("format(): single '}' encountered (a brace is written '}}')");
    else out += s[k];
  }
  return make_str(out);
}

const MethodEntry kStrMethods[] = {
    {"split", str_split, "split(sep=none)",
     "The pieces between each sep, or between runs of whitespace without one. Example: \"a,b\".split(\",\")"},
    {"join", str_join, "join(iterable)",
     "The strings of iterable with this one between them. Example: \", \".join([\"a\", \"b\"])"},
    {"upper", str_upper, "upper()", "This string in upper case. Example: \"abc\".upper()"},
    {"lower", str_lower, "lower()", "This string in lower case. Example: \"ABC\".lower()"},
    {"strip", str_strip, "strip(chars=whitespace)",
     "This string without the given characters at either end. Example: \"  x \".strip()"},
    {"lstrip", str_lstrip, "lstrip(chars=whitespace)",
     "This string without the given characters at its start. Example: \"  x\".lstrip()"},
    {"rstrip", str_rstrip, "rstrip(chars=whitespace)",
     "This string without the given characters at its end. Example: \"x\\n\".rstrip(\"\\n\")"},
    {"replace", str_replace, "replace(old, new)",
     "This string with every old replaced by new. Example: \"a-b\".replace(\"-\", \"_\")"},
    {"startswith", str_startswith, "startswith(prefix)",
     "Whether this string starts with prefix. Example: \"/tmp/a\".startswith(\"/\")"},
    {"endswith", str_endswith, "endswith(suffix)",
     "Whether this string ends with suffix. Example: \"main.dsl\".endswith(\".dsl\")"},
    {"find", str_find, "find(sub, start=none, end=none)",
     "The index (in characters) of the first sub in this string's [start:end], or -1. Example: \"hello\".find(\"l\")"},
    {"rfind", str_rfind, "rfind(sub, start=none, end=none)",
     "The index (in characters) of the last sub in this string's [start:end], or -1. Example: \"hello\".rfind(\"l\")"},
    {"index", str_index, "index(sub, start=none, end=none)",
     "find's index, an error where sub is not found. Example: \"héllo\".index(\"l\")"},
    {"rindex", str_rindex, "rindex(sub, start=none, end=none)",
     "rfind's index, an error where sub is not found. Example: \"héllo\".rindex(\"l\")"},
    {"count", str_count, "count(sub)",
     "How many times sub occurs, without overlaps. Example: \"banana\".count(\"an\")"},
    {"isdigit", str_is<CharClass::digit, kIsDigit>, "isdigit()",
     "Whether this string is not empty and all digits (0-9). Example: \"42\".isdigit()"},
    {"isalpha", str_is<CharClass::alpha, kIsAlpha>, "isalpha()",
     "Whether this string is not empty and all letters. Example: \"abc\".isalpha()"},
    {"isalnum", str_is<CharClass::alnum, kIsAlnum>, "isalnum()",
     "Whether this string is not empty and all letters or digits. Example: \"a1\".isalnum()"},
    {"isspace", str_is<CharClass::space, kIsSpace>, "isspace()",
     "Whether this string is not empty and all whitespace. Example: \" \\t\".isspace()"},
    {"isupper", str_is_case<true>, "isupper()",
     "Whether this string has a letter and no lower-case one. Example: \"ABC1\".isupper()"},
    {"islower", str_is_case<false>, "islower()",
     "Whether this string has a letter and no upper-case one. Example: \"abc1\".islower()"},
    {"format", str_format, "format(*args, **kwargs)",
     "This string with each {} field replaced by an argument, as Python's. Example: \"{} = {:.3f}\".format(\"loss\", "
     "0.25)"},
};

// ---- list and tuple -------------------------------------------------------------------------

std::vector<Value>& items_of(const Value& self) { return self.as<ListObj>()->items; }

Value sequence_index(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "index", 1, 1);
  auto& items = items_of(self);
  for (size_t k = 0; k < items.size(); ++k)
    if (values_equal(items[k], a.pos[0], "index()")) return Value::integer(static_cast<int64_t>(k));
  fail(repr(a.pos[0]) + " is not in " + type_name(self));
}

Value sequence_count(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "count", 1, 1);
  int64_t n = 0;
  for (auto& x : items_of(self)) n += values_equal(x, a.pos[0], "count()");
  return Value::integer(n);
}

// Growth is charged to the memory budget first (Note [Host memory budget]).
Value list_append(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "append", 1, 1);
  self.as<ListObj>()->reserve_items(1);
  items_of(self).push_back(a.pos[0]);
  return Value();
}

Value list_extend(Evaluator& ev, const Value& self, CallArgs& a) {
  arity(a, "extend", 1, 1);
  std::vector<Value> more = ev.iterate(a.pos[0]);
  self.as<ListObj>()->reserve_items(more.size());
  for (auto& x : more) items_of(self).push_back(std::move(x));
  return Value();
}

Value list_insert(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "insert", 2, 2);
  auto& items = items_of(self);
  int64_t n = static_cast<int64_t>(items.size());
  int64_t i = index_int(a.pos[0], "list");
  if (i < 0) i = std::max<int64_t>(0, i + n);
  i = std::min(i, n);
  self.as<ListObj>()->reserve_items(1);
  items.insert(items.begin() + i, a.pos[1]);
  return Value();
}

Value list_pop(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "pop", 0, 1);
  auto& items = items_of(self);
  if (items.empty()) fail("pop from empty list");
  int64_t i = a.pos.empty() ? -1 : index_int(a.pos[0], "list");
  int64_t k = wrap_index(i, static_cast<int64_t>(items.size()), "list");
  Value v = items[static_cast<size_t>(k)];
  items.erase(items.begin() + k);
  return v;
}

Value list_remove(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "remove", 1, 1);
  auto& items = items_of(self);
  for (size_t k = 0; k < items.size(); ++k)
    if (values_equal(items[k], a.pos[0], "remove()")) {
      items.erase(items.begin() + static_cast<long>(k));
      return Value();
    }
  fail(repr(a.pos[0]) + " is not in list");
}

Value list_copy(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "copy", 0, 0);
  return make_list(items_of(self));
}

Value list_clear(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "clear", 0, 0);
  items_of(self).clear();
  return Value();
}

Value list_reverse(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "reverse", 0, 0);
  std::reverse(items_of(self).begin(), items_of(self).end());
  return Value();
}

// In place, through the builtin sorted() (its key= and reverse= keywords and errors).
Value list_sort(Evaluator& ev, const Value& self, CallArgs& a) {
  CallArgs b;
  b.pos.push_back(self);
  b.kw = a.kw;
  // The builtin itself: the main module's name `sorted` may be the user's own (a
  // `fn sorted(x)` made l.sort() call it and store what it returned).
  Value sorted = sorted_builtin(ev, b);
  items_of(self) = sorted.as<ListObj>()->items;
  return Value();
}

const MethodEntry kListMethods[] = {
    {"append", list_append, "append(x)", "Adds x at the end of this list. Example: let xs = [1, 2]; xs.append(3)"},
    {"pop", list_pop, "pop(index=-1)",
     "Removes the item at index (the last by default) and returns it. Example: let xs = [1, 2, 3]; xs.pop(0)"},
    {"extend", list_extend, "extend(iterable)",
     "Adds every item of iterable at the end. Example: let xs = [1, 2, 3]; xs.extend([4, 5])"},
    {"insert", list_insert, "insert(index, x)",
     "Puts x before the item at index. Example: let xs = [2, 3]; xs.insert(0, 1)"},
    {"index", sequence_index, "index(x)",
     "The index of the first item equal to x; an error if none is. Example: [1, 2, 3].index(3)"},
    {"count", sequence_count, "count(x)", "How many items equal x. Example: [0, 1, 0].count(0)"},
    {"copy", list_copy, "copy()",
     "A new list with the same items (not copies of them). Example: let ys = [1, 2].copy()"},
    {"clear", list_clear, "clear()", "Removes every item. Example: let xs = [1, 2]; xs.clear()"},
    {"reverse", list_reverse, "reverse()", "Reverses this list in place. Example: let xs = [1, 2, 3]; xs.reverse()"},
    {"sort", list_sort, "sort(key=none, reverse=false)",
     "Sorts this list in place, as sorted() orders. Example: let xs = [(\"a\", 2), (\"b\", 5)]; xs.sort(key=fn(p) = "
     "p[1], reverse=true)"},
    {"remove", list_remove, "remove(x)",
     "Removes the first item equal to x; an error if none is. Example: let xs = [1, 2, 3]; xs.remove(3)"},
};

const MethodEntry kTupleMethods[] = {
    {"index", sequence_index, "index(x)",
     "The index of the first item equal to x; an error if none is. Example: (1, 2, 3).index(3)"},
    {"count", sequence_count, "count(x)", "How many items equal x. Example: (0, 1, 0).count(0)"},
};

// ---- dict ---------------------------------------------------------------------------------

DictObj& dict_of(const Value& self) { return *self.as<DictObj>(); }

// keys, values and items, as lists in insertion order.
Value dict_view(const Value& self, CallArgs& a, const std::string& name) {
  arity(a, name, 0, 0);
  std::vector<Value> out;
  for (auto& [k, v] : dict_of(self).entries) out.push_back(name == "keys" ? k : name == "values" ? v : make_tuple({k, v}));
  return make_list(std::move(out));
}
Value dict_keys(Evaluator&, const Value& self, CallArgs& a) { return dict_view(self, a, "keys"); }
Value dict_values(Evaluator&, const Value& self, CallArgs& a) { return dict_view(self, a, "values"); }
Value dict_items(Evaluator&, const Value& self, CallArgs& a) { return dict_view(self, a, "items"); }

Value dict_get(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "get", 1, 2);
  Value* v = dict_of(self).find(a.pos[0]);
  return v ? *v : a.pos.size() > 1 ? a.pos[1] : Value();
}

Value dict_setdefault(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "setdefault", 1, 2);
  Value* v = dict_of(self).find(a.pos[0]);
  if (v) return *v;
  Value dv = a.pos.size() > 1 ? a.pos[1] : Value();
  check_dict_key(a.pos[0]);
  dict_of(self).set(a.pos[0], dv);
  return dv;
}

Value dict_pop(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "pop", 1, 2);
  Value* v = dict_of(self).find(a.pos[0]);
  if (!v) {
    if (a.pos.size() > 1) return a.pos[1];
    fail("key " + repr(a.pos[0]) + " not found in dict");
  }
  Value out = *v;
  dict_of(self).erase(a.pos[0]);
  return out;
}

Value dict_update(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "update", 1, 1);
  if (a.pos[0].tag != Tag::Dict) fail(std::string("update() expects a dict, got ") + type_name(a.pos[0]));
  for (auto& [k, v] : a.pos[0].as<DictObj>()->entries) dict_of(self).set(k, v);
  return Value();
}

Value dict_copy(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "copy", 0, 0);
  return Value::object(Tag::Dict, std::make_shared<DictObj>(dict_of(self)));
}

Value dict_clear(Evaluator&, const Value& self, CallArgs& a) {
  arity(a, "clear", 0, 0);
  dict_of(self).entries.clear();
  dict_of(self).index.clear();
  return Value();
}

const MethodEntry kDictMethods[] = {
    {"keys", dict_keys, "keys()",
     "The keys, as a list in insertion order. Example: let d = {\"lr\": 0.1, \"momentum\": 0.9}; for k in d.keys() { "
     "print(k) }"},
    {"values", dict_values, "values()",
     "The values, as a list in insertion order. Example: sum({\"a\": 1, \"b\": 2}.values())"},
    {"items", dict_items, "items()",
     "The (key, value) pairs, as a list in insertion order. Example: let d = {\"lr\": 0.1}; for (k, v) in d.items() { "
     "print(k, v) }"},
    {"get", dict_get, "get(key, default=none)",
     "The value of key, or default when key is missing. Example: {\"momentum\": 0.9}.get(\"lr\", 0.1)"},
    {"pop", dict_pop, "pop(key, default)",
     "Removes key and returns its value; default, or an error, when key is missing. Example: let d = {\"lr\": 0.1}; "
     "d.pop(\"lr\")"},
    {"update", dict_update, "update(other)",
     "Sets every key of the dict other to its value there. Example: let d = {\"lr\": 0.1}; d.update({\"lr\": 0.01})"},
    {"copy", dict_copy, "copy()",
     "A new dict with the same entries (not copies of them). Example: let e = {\"lr\": 0.1}.copy()"},
    {"clear", dict_clear, "clear()", "Removes every entry. Example: let d = {\"lr\": 0.1}; d.clear()"},
    {"setdefault", dict_setdefault, "setdefault(key, default=none)",
     "The value of key; when key is missing, sets it to default first. Example: let d = {}; d.setdefault(\"seen\", "
     "[]).append(1)"},
};

}  // namespace

std::span<const MethodEntry> container_methods(Tag tag) {
  switch (tag) {
    case Tag::Str: return kStrMethods;
    case Tag::List: return kListMethods;
    case Tag::Tuple: return kTupleMethods;
    case Tag::Dict: return kDictMethods;
    default: return {};
  }
}

std::vector<std::string> container_method_names(Tag tag) {
  std::vector<std::string> out;
  for (const MethodEntry& m : container_methods(tag)) out.push_back(m.name);
  return out;
}

bool has_container_method(Tag tag, const std::string& name) {
  return find_entry(container_methods(tag), name) != nullptr;
}

// The methods that change their list or dict in place (Note [Objects changed inside
// a lowered region]).
bool changes_in_place(Tag tag, const std::string& name) {
  static const std::set<std::string> list_changes = {"append", "pop",     "extend", "insert",
                                                     "clear",  "reverse", "sort",   "remove"};
  static const std::set<std::string> dict_changes = {"pop", "update", "clear", "setdefault"};
  if (tag == Tag::List) return list_changes.count(name) > 0;
  return tag == Tag::Dict && dict_changes.count(name) > 0;
}

Value container_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& a) {
  if (const MethodEntry* m = find_entry(container_methods(self.tag), name)) {
    // Outside any lowered region or capture the check cannot fail: skip building its
    // message and the name lookup (list.append runs this at every call).
    bool checked = current_object_region() != 0 || current_capture() != 0;
    if (checked && changes_in_place(self.tag, name)) {
      const Tracked& obj = self.tag == Tag::List ? static_cast<const Tracked&>(*self.as<ListObj>())
                                                 : static_cast<const Tracked&>(*self.as<DictObj>());
      check_change_in_compiled(obj, (name == "append" ? "append to a " : "call " + name + "() on a ") + type_name(self),
                               name == "append");
    }
    return m->function(ev, self, a);
  }
  fail(std::string(type_name(self)) + " has no attribute '" + name + "'" + ev.attribute_hint(self, name));
}

}  // namespace nabla::interp
