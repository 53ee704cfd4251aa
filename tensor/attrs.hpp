// Op attributes (a tensor-level notion: kernels read them): the non-tensor arguments of an op (dims, strides, eps, ...), kept by
// name so that the interpreter, the IR printer and error messages all use the names
// declared in the op's row.
#pragma once
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "tensor/dtype.hpp"
#include "tensor/error.hpp"

namespace nabla {

// none is an attribute left unset on purpose (e.g. clamp without a max).
struct NoneAttr {
  bool operator==(const NoneAttr&) const { return true; }
};
using AttrValue = std::variant<NoneAttr, int64_t, double, bool, std::vector<int64_t>, DType>;

struct Attr {
  std::string name;
  AttrValue value;
};

class Attrs {
 public:
  Attrs() = default;
  Attrs(std::initializer_list<Attr> init) : items_(init) {}

  void set(const std::string& name, AttrValue v);
  void erase(const std::string& name);  // nothing when absent
  bool has(const std::string& name) const { return find(name) != nullptr; }
  bool is_none(const std::string& name) const;
  int64_t i(const std::string& name) const;
  double f(const std::string& name) const;  // accepts an int attribute too
  bool b(const std::string& name) const;
  const std::vector<int64_t>& ints(const std::string& name) const;
  DType dtype(const std::string& name) const;
  const AttrValue& value(const std::string& name) const { return get(name); }
  const std::vector<Attr>& items() const { return items_; }
  std::string str() const;  // "dim=1, keepdim=true"

 private:
  const AttrValue* find(const std::string& name) const;
  const AttrValue& get(const std::string& name) const;
  std::vector<Attr> items_;
};

std::string attr_value_str(const AttrValue& v);

}  // namespace nabla
