// Methods of strings, lists, tuples and dicts (split, join, append, keys, ...):
// their names for get_attr and completion, and the calls. Tensor methods are
// builtins_tensor.cpp's.
#include <algorithm>

#include "interp/builtins/builtins_internal.hpp"
#include "tensor/allocator.hpp"

namespace nabla::interp {

// ---- container methods ------------------------------------------------------------------

static const std::vector<std::string>& str_methods() {
  static const std::vector<std::string> m = {"split", "join", "upper", "lower", "strip", "lstrip", "rstrip",
                                             "replace", "startswith", "endswith", "find", "count", "format"};
  return m;
}
static const std::vector<std::string>& list_methods() {
  static const std::vector<std::string> m = {"append", "pop", "extend", "insert", "index", "count", "copy",
                                             "clear", "reverse", "sort", "remove"};
  return m;
}
static const std::vector<std::string>& tuple_methods() {
  static const std::vector<std::string> m = {"index", "count"};
  return m;
}
static const std::vector<std::string>& dict_methods() {
  static const std::vector<std::string> m = {"keys", "values", "items", "get", "pop", "update", "copy", "clear",
                                             "setdefault"};
  return m;
}

std::vector<std::string> container_method_names(Tag tag) {
  switch (tag) {
    case Tag::Str: return str_methods();
    case Tag::List: return list_methods();
    case Tag::Tuple: return tuple_methods();
    case Tag::Dict: return dict_methods();
    default: return {};
  }
}

bool has_container_method(Tag tag, const std::string& name) {
  auto names = container_method_names(tag);
  return std::find(names.begin(), names.end(), name) != names.end();
}

static void arity(const CallArgs& a, const std::string& name, size_t lo, size_t hi) {
  if (!a.kw.empty() && name != "sort") fail(name + "() takes no keyword arguments");
  if (a.pos.size() < lo || a.pos.size() > hi) {
    std::string want = lo == hi ? std::to_string(lo) : std::to_string(lo) + " to " + std::to_string(hi);
    fail(name + "() takes " + want + " argument" + (hi == 1 ? "" : "s") + " but " + std::to_string(a.pos.size()) +
         (a.pos.size() == 1 ? " was" : " were") + " given");
  }
}

static const std::string& str_arg(const Value& v, const std::string& fn) {
  if (v.tag != Tag::Str) fail(fn + "() expects a str, got " + type_name(v));
  return v.as<StrObj>()->s;
}

Value container_method(Evaluator& ev, const Value& self, const std::string& name, CallArgs& a) {
  if (self.tag == Tag::Str) {
    const std::string& s = self.as<StrObj>()->s;
    if (name == "upper" || name == "lower") {
      arity(a, name, 0, 0);
      std::string out = s;
      for (char& c : out) c = static_cast<char>(name == "upper" ? std::toupper(c) : std::tolower(c));
      return make_str(out);
    }
    if (name == "strip" || name == "lstrip" || name == "rstrip") {
      arity(a, name, 0, 1);
      std::string chars = a.pos.empty() ? " \t\n\r\f\v" : str_arg(a.pos[0], name);
      size_t b = name == "rstrip" ? 0 : s.find_first_not_of(chars);
      if (b == std::string::npos) return make_str("");
      size_t e = name == "lstrip" ? s.size() : s.find_last_not_of(chars) + 1;
      return make_str(s.substr(b, e - b));
    }
    if (name == "split") {
      arity(a, name, 0, 1);
      std::vector<Value> out;
      if (a.pos.empty() || a.pos[0].is_none()) {
        size_t k = 0;
        while (k < s.size()) {
          while (k < s.size() && std::isspace(static_cast<unsigned char>(s[k]))) ++k;
          size_t b = k;
          while (k < s.size() && !std::isspace(static_cast<unsigned char>(s[k]))) ++k;
          if (k > b) out.push_back(make_str(s.substr(b, k - b)));
        }
      } else {
        const std::string& sep = str_arg(a.pos[0], name);
        if (sep.empty()) fail("split(): empty separator");
        size_t b = 0, k;
        while ((k = s.find(sep, b)) != std::string::npos) {
          out.push_back(make_str(s.substr(b, k - b)));
          b = k + sep.size();
        }
        out.push_back(make_str(s.substr(b)));
      }
      return make_list(std::move(out));
    }
    if (name == "join") {
      arity(a, name, 1, 1);
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
    if (name == "replace") {
      arity(a, name, 2, 2);
      const std::string& from = str_arg(a.pos[0], name);
      const std::string& to = str_arg(a.pos[1], name);
      size_t count = 0;
      if (from.empty()) count = s.size() + 1;  // Python: before each byte and at the end
      else
        for (size_t k = s.find(from); k != std::string::npos; k = s.find(from, k + from.size())) ++count;
      // Note [Host memory budget]: each match may grow (a 1-byte match, a 1 MB replacement).
      if (to.size() > from.size()) CpuAllocator::instance().check_host_request(count, to.size() - from.size(), "a str");
      std::string out;
      if (from.empty()) {  // "abc".replace("", "-") is "-a-b-c-"
        out.reserve(s.size() + count * to.size());
        out += to;
        for (char c : s) (out += c) += to;
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
    if (name == "startswith" || name == "endswith") {
      arity(a, name, 1, 1);
      const std::string& p = str_arg(a.pos[0], name);
      bool r = p.size() <= s.size() &&
               (name == "startswith" ? s.compare(0, p.size(), p) == 0 : s.compare(s.size() - p.size(), p.size(), p) == 0);
      return Value::boolean(r);
    }
    if (name == "find") {
      arity(a, name, 1, 1);
      size_t k = s.find(str_arg(a.pos[0], name));
      return Value::integer(k == std::string::npos ? -1 : static_cast<int64_t>(k));
    }
    if (name == "count") {
      arity(a, name, 1, 1);
      const std::string& p = str_arg(a.pos[0], name);
      if (p.empty()) return Value::integer(static_cast<int64_t>(s.size()) + 1);
      int64_t n = 0;
      for (size_t k = s.find(p); k != std::string::npos; k = s.find(p, k + p.size())) ++n;
      return Value::integer(n);
    }
    if (name == "format") {
      std::string out;
      size_t next = 0;
      for (size_t k = 0; k < s.size(); ++k) {
        if (s[k] == '{' && k + 1 < s.size() && s[k + 1] == '{') {
          out += '{';
          ++k;
        } else if (s[k] == '}' && k + 1 < s.size() && s[k + 1] == '}') {
          out += '}';
          ++k;
        } else if (s[k] == '{') {
          size_t e = s.find('}', k);
          if (e == std::string::npos) fail("format(): unclosed '{'");
          std::string field = s.substr(k + 1, e - k - 1);
          std::string spec;
          auto colon = field.find(':');
          if (colon != std::string::npos) {
            spec = field.substr(colon + 1);
            field = field.substr(0, colon);
          }
          const Value* v = nullptr;
          if (field.empty()) {
            if (next >= a.pos.size()) fail("format(): not enough arguments");
            v = &a.pos[next++];
          } else if (std::isdigit(static_cast<unsigned char>(field[0]))) {
            size_t i = std::stoul(field);
            if (i >= a.pos.size()) fail("format(): index " + field + " out of range");
            v = &a.pos[i];
          } else {
            v = a.find_kw(field);
            if (!v) fail("format(): no argument named '" + field + "'");
          }
          out += spec.empty() ? str(*v) : format_value(*v, spec);
          k = e;
        } else {
          out += s[k];
        }
      }
      return make_str(out);
    }
  }
  if (self.tag == Tag::List || self.tag == Tag::Tuple) {
    auto& items = self.as<ListObj>()->items;
    if (name == "index") {
      arity(a, name, 1, 1);
      for (size_t k = 0; k < items.size(); ++k)
        if (values_equal(items[k], a.pos[0], "index()")) return Value::integer(static_cast<int64_t>(k));
      fail(repr(a.pos[0]) + " is not in " + type_name(self));
    }
    if (name == "count") {
      arity(a, name, 1, 1);
      int64_t n = 0;
      for (auto& x : items) n += values_equal(x, a.pos[0], "count()");
      return Value::integer(n);
    }
    // Growth is charged to the memory budget first (Note [Host memory budget]).
    if (name == "append") {
      arity(a, name, 1, 1);
      self.as<ListObj>()->reserve_items(1);
      items.push_back(a.pos[0]);
      return Value();
    }
    if (name == "extend") {
      arity(a, name, 1, 1);
      std::vector<Value> more = ev.iterate(a.pos[0]);
      self.as<ListObj>()->reserve_items(more.size());
      for (auto& x : more) items.push_back(std::move(x));
      return Value();
    }
    if (name == "insert") {
      arity(a, name, 2, 2);
      int64_t n = static_cast<int64_t>(items.size());
      int64_t i = index_int(a.pos[0], "list");
      if (i < 0) i = std::max<int64_t>(0, i + n);
      i = std::min(i, n);
      self.as<ListObj>()->reserve_items(1);
      items.insert(items.begin() + i, a.pos[1]);
      return Value();
    }
    if (name == "pop") {
      arity(a, name, 0, 1);
      if (items.empty()) fail("pop from empty list");
      int64_t i = a.pos.empty() ? -1 : index_int(a.pos[0], "list");
      int64_t k = wrap_index(i, static_cast<int64_t>(items.size()), "list");
      Value v = items[static_cast<size_t>(k)];
      items.erase(items.begin() + k);
      return v;
    }
    if (name == "remove") {
      arity(a, name, 1, 1);
      for (size_t k = 0; k < items.size(); ++k)
        if (values_equal(items[k], a.pos[0], "remove()")) {
          items.erase(items.begin() + static_cast<long>(k));
          return Value();
        }
      fail(repr(a.pos[0]) + " is not in list");
    }
    if (name == "copy") {
      arity(a, name, 0, 0);
      return make_list(items);
    }
    if (name == "clear") {
      arity(a, name, 0, 0);
      items.clear();
      return Value();
    }
    if (name == "reverse") {
      arity(a, name, 0, 0);
      std::reverse(items.begin(), items.end());
      return Value();
    }
    if (name == "sort") {
      CallArgs b;
      b.pos.push_back(self);
      b.kw = a.kw;
      Value sorted = ev.call_value(*ev.main_module->get("sorted"), b);
      items = sorted.as<ListObj>()->items;
      return Value();
    }
  }
  if (self.tag == Tag::Dict) {
    auto* d = self.as<DictObj>();
    if (name == "keys" || name == "values" || name == "items") {
      arity(a, name, 0, 0);
      std::vector<Value> out;
      for (auto& [k, v] : d->entries)
        out.push_back(name == "keys" ? k : name == "values" ? v : make_tuple({k, v}));
      return make_list(std::move(out));
    }
    if (name == "get") {
      arity(a, name, 1, 2);
      Value* v = d->find(a.pos[0]);
      return v ? *v : a.pos.size() > 1 ? a.pos[1] : Value();
    }
    if (name == "setdefault") {
      arity(a, name, 1, 2);
      Value* v = d->find(a.pos[0]);
      if (v) return *v;
      Value dv = a.pos.size() > 1 ? a.pos[1] : Value();
      check_dict_key(a.pos[0]);
      d->set(a.pos[0], dv);
      return dv;
    }
    if (name == "pop") {
      arity(a, name, 1, 2);
      Value* v = d->find(a.pos[0]);
      if (!v) {
        if (a.pos.size() > 1) return a.pos[1];
        fail("key " + repr(a.pos[0]) + " not found in dict");
      }
      Value out = *v;
      d->erase(a.pos[0]);
      return out;
    }
    if (name == "update") {
      arity(a, name, 1, 1);
      if (a.pos[0].tag != Tag::Dict) fail(std::string("update() expects a dict, got ") + type_name(a.pos[0]));
      for (auto& [k, v] : a.pos[0].as<DictObj>()->entries) d->set(k, v);
      return Value();
    }
    if (name == "copy") {
      arity(a, name, 0, 0);
      auto c = std::make_shared<DictObj>(*d);
      return Value::object(Tag::Dict, c);
    }
    if (name == "clear") {
      arity(a, name, 0, 0);
      d->entries.clear();
      d->index.clear();
      return Value();
    }
  }
  fail(std::string(type_name(self)) + " has no attribute '" + name + "'");
}

}  // namespace nabla::interp
