#include "tensor/attrs.hpp"

#include <cstdio>

namespace nabla {

void Attrs::set(const std::string& name, AttrValue v) {
  for (auto& a : items_)
    if (a.name == name) {
      a.value = std::move(v);
      return;
    }
  items_.push_back({name, std::move(v)});
}

void Attrs::erase(const std::string& name) {
  std::erase_if(items_, [&](const Attr& a) { return a.name == name; });
}

const AttrValue* Attrs::find(const std::string& name) const {
  for (const auto& a : items_)
    if (a.name == name) return &a.value;
  return nullptr;
}

const AttrValue& Attrs::get(const std::string& name) const {
  const AttrValue* v = find(name);
  if (!v) throw Error("missing attribute '" + name + "'");
  return *v;
}

bool Attrs::is_none(const std::string& name) const {
  const AttrValue* v = find(name);
  return !v || std::holds_alternative<NoneAttr>(*v);
}

int64_t Attrs::i(const std::string& name) const {
  const AttrValue& v = get(name);
  if (auto p = std::get_if<int64_t>(&v)) return *p;
  if (auto p = std::get_if<bool>(&v)) return *p;
  throw Error("attribute '" + name + "': expected an int, got " + attr_value_str(v));
}

double Attrs::f(const std::string& name) const {
  const AttrValue& v = get(name);
  if (auto p = std::get_if<double>(&v)) return *p;
  if (auto p = std::get_if<int64_t>(&v)) return static_cast<double>(*p);
  throw Error("attribute '" + name + "': expected a number, got " + attr_value_str(v));
}

bool Attrs::b(const std::string& name) const {
  const AttrValue& v = get(name);
  if (auto p = std::get_if<bool>(&v)) return *p;
  throw Error("attribute '" + name + "': expected a bool, got " + attr_value_str(v));
}

const std::vector<int64_t>& Attrs::ints(const std::string& name) const {
  const AttrValue& v = get(name);
  if (auto p = std::get_if<std::vector<int64_t>>(&v)) return *p;
  throw Error("attribute '" + name + "': expected a list of ints, got " + attr_value_str(v));
}

DType Attrs::dtype(const std::string& name) const {
  const AttrValue& v = get(name);
  if (auto p = std::get_if<DType>(&v)) return *p;
  throw Error("attribute '" + name + "': expected a dtype, got " + attr_value_str(v));
}

std::string attr_value_str(const AttrValue& v) {
  struct Printer {
    std::string operator()(NoneAttr) const { return "none"; }
    std::string operator()(int64_t x) const { return std::to_string(x); }
    std::string operator()(double x) const {
      char buf[32];
      std::snprintf(buf, sizeof buf, "%.17g", x);
      return buf;
    }
    std::string operator()(bool x) const { return x ? "true" : "false"; }
    std::string operator()(const std::vector<int64_t>& xs) const {
      std::string s = "[";
      for (size_t i = 0; i < xs.size(); ++i) s += (i ? ", " : "") + std::to_string(xs[i]);
      return s + "]";
    }
    std::string operator()(DType t) const { return dtype_name(t); }
  };
  return std::visit(Printer{}, v);
}

std::string Attrs::str() const {
  std::string s;
  for (size_t i = 0; i < items_.size(); ++i) s += (i ? ", " : "") + items_[i].name + "=" + attr_value_str(items_[i].value);
  return s;
}

}  // namespace nabla
