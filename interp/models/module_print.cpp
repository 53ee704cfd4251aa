// print(model): a model's tree of fields. Each parameter and buffer with its shape
// (and a flag when it holds NaN or Inf), each submodule nested and followed by its
// number of parameters, each list, tuple or dict that holds models item by item; the
// outermost closes with the total. A module or container met again (shared, or a
// cycle: `r.me = r`) is shown once in full and then by name only (Note [Module walk]).
#include <algorithm>
#include <unordered_map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/models/module_walk.hpp"

namespace nabla::interp {

namespace {

// Deeper modules print as `Name(...)`: output that grows with the square of the depth
// (each line indented by it) stays bounded, and so does the recursion.
constexpr int kMaxPrintDepth = 64;

std::string with_commas(int64_t n) {
  std::string s = std::to_string(n), out;
  for (size_t k = 0; k < s.size(); ++k) {
    if (k && (s.size() - k) % 3 == 0) out += ',';
    out += s[k];
  }
  return out;
}

std::string parameters_note(int64_t n) {
  return "  # " + with_commas(n) + (n == 1 ? " parameter" : " parameters");
}

// " !! holds NaN" / " !! holds Inf" for a floating tensor with such values, else "".
std::string nonfinite_flag(const Tensor& t) {
  if (!t.defined() || !is_floating(t.dtype()) || t.numel() == 0) return "";
  NoGradGuard ng;
  Tensor x = detach(t);
  if (sum(ne(x, x)).item() > 0) return " !! holds NaN";
  Tensor d = sub(x, x);  // NaN where x is infinite
  if (sum(ne(d, d)).item() > 0) return " !! holds Inf";
  return "";
}

// Whether a constructor argument shows in a model's header, as PyTorch's extra_repr
// shows hyperparameters: numbers, bools, strings, none, dtypes, and lists, tuples and
// dicts of those; not tensors, models or functions, nor containers holding them (an
// optimizer's parameter list).
bool is_hyperparameter(const Value& v, int depth = 0) {
  switch (v.tag) {
    case Tag::None:
    case Tag::Bool:
    case Tag::Int:
    case Tag::Float:
    case Tag::DType:
    case Tag::Str: return true;
    case Tag::List:
    case Tag::Tuple: {
      const auto& items = v.as<ListObj>()->items;
      return depth < 2 && items.size() <= 16 &&
             std::all_of(items.begin(), items.end(), [&](const Value& x) { return is_hyperparameter(x, depth + 1); });
    }
    default: return false;
  }
}

// PyTorch's activations show inplace only when it is true (ReLU(), ReLU(inplace=True));
// its dropouts always show it (Dropout(p=0.5, inplace=False)). A layer's factory
// arguments device and dtype never show (its extra_repr leaves them out).
bool hidden_like_torch(const InstanceObj& m, const std::string& name, const Value& v) {
  if (name == "device" || name == "dtype") return true;
  return name == "inplace" && v.tag == Tag::Bool && !v.b && m.cls->decl->name.find("Dropout") == std::string::npos;
}

// "in_features=3, out_features=4, bias=true": the model's constructor arguments as
// they were bound (defaults included), read from its field of the same name when that
// holds a plain value other than none (a scheduler's changed lr shows), in the order
// they were declared.
std::string hyperparameters(const InstanceObj& m) {
  if (!m.ctor_frame) return "";  // printed while it is being constructed
  const auto& params = m.cls->decl->params;
  std::string out;
  for (size_t k = 0; k < params.size() && static_cast<int>(k) < m.ctor_frame->nslots; ++k) {
    const Value* v = &m.ctor_frame->slots[k];
    for (const Field& f : m.fields)
      if (f.name == params[k].name && f.kind == FieldKind::attribute && !f.value.is_none() &&
          is_hyperparameter(f.value))
        v = &f.value;  // not a none field: Linear(bias=false) keeps none where its bias would be
    if (!is_hyperparameter(*v) || hidden_like_torch(m, params[k].name, *v)) continue;
    // an empty *rest (nn.Sequential() filled by add_module) says nothing: no "layers=()"
    if (params[k].variadic && v->tag == Tag::Tuple && v->as<ListObj>()->items.empty()) continue;
    out += (out.empty() ? "" : ", ") + params[k].name + "=" + repr(*v);
  }
  return out;
}

// Note: the counts follow the order print shows things in (fields in order, a
// submodule's tree where its field is), not walk_modules' order (a module's own
// tensors first): a tensor counts in the module where it is first shown, and where
// it shows again it says "same tensor as PATH", so the counts add up to the total.
class ModelPrinter {
 public:
  explicit ModelPrinter(const Value& root) { count(root); }

  std::string print(const Value& root) {
    module(root, "", 0);
    int64_t total = nodes_.empty() ? 0 : nodes_[0].count;
    if (total > 0) out_ += parameters_note(total) + " in total";
    return std::move(out_);
  }

 private:
  // A module in print order: where it was first met (parent node, field name) and
  // the parameters first shown in its tree.
  struct Node {
    size_t parent;
    std::string name;
    int64_t count = 0;
  };
  std::vector<Node> nodes_;
  std::unordered_map<const Obj*, size_t> node_of_;
  std::unordered_map<const void*, std::pair<size_t, const std::string*>> tensor_home_;  // node, field name
  std::unordered_map<const Obj*, std::string> shown_;  // module or container -> its first path
  std::string out_;

  // One entry of a module in field order: a tensor field, or a model it holds.
  struct Item {
    const Field* tensor = nullptr;
    std::string name;
    Value module;
  };

  std::vector<Item> items_of(const InstanceObj& m, AddressSet& seen_containers) {
    std::vector<Item> items;
    std::vector<std::pair<std::string, Value>> subs;
    for (const Field& f : m.fields) {
      if ((f.kind == FieldKind::parameter || f.kind == FieldKind::buffer) && f.value.tag == Tag::Tensor) {
        items.push_back({&f, "", Value()});
        continue;
      }
      subs.clear();
      field_submodules(f, subs, seen_containers);
      for (auto& [name, v] : subs) items.push_back({nullptr, std::move(name), std::move(v)});
    }
    return items;
  }

  // Depth first in print order, with an explicit stack (the printer stops at
  // kMaxPrintDepth, the counts do not).
  void count(const Value& root) {
    if (root.tag != Tag::Instance) return;
    AddressSet seen_containers;
    struct Step {
      size_t node;
      std::vector<Item> items;
      size_t next = 0;
    };
    std::vector<Step> stack;
    auto enter = [&](const Value& m, size_t parent, std::string name) {
      node_of_.emplace(m.o.get(), nodes_.size());
      nodes_.push_back({parent, std::move(name)});
      stack.push_back({nodes_.size() - 1, items_of(*m.as<InstanceObj>(), seen_containers)});
    };
    enter(root, ModuleVisit::kNoParent, "");
    while (!stack.empty()) {
      Step& top = stack.back();
      if (top.next == top.items.size()) {
        size_t node = top.node;
        stack.pop_back();
        if (nodes_[node].parent != ModuleVisit::kNoParent) nodes_[nodes_[node].parent].count += nodes_[node].count;
        continue;
      }
      Item& item = top.items[top.next++];
      size_t node = top.node;
      if (item.tensor) {
        const Field& f = *item.tensor;
        if (tensor_home_.emplace(f.value.t.impl(), std::make_pair(node, &f.name)).second &&
            f.kind == FieldKind::parameter)
          nodes_[node].count += f.value.t.numel();
      } else if (!node_of_.count(item.module.o.get())) {
        Value m = item.module;
        enter(m, node, std::move(item.name));  // invalidates top
      }
    }
  }

  std::string node_path(size_t node) const {
    std::vector<const std::string*> names;
    for (; nodes_[node].parent != ModuleVisit::kNoParent; node = nodes_[node].parent) names.push_back(&nodes_[node].name);
    std::string path;
    for (auto it = names.rbegin(); it != names.rend(); ++it) path = join_path(path, **it);
    return path;
  }

  static std::string where(const std::string& path) { return path.empty() ? "the model itself" : path; }

  // A module in full, or by name when it was shown already or is too deep.
  void module(const Value& v, const std::string& path, int indent) {
    auto* m = v.as<InstanceObj>();
    const std::string& name = m->cls->decl->name;
    if (auto it = shown_.find(m); it != shown_.end()) {
      out_ += name + "(...)  # same module as " + where(it->second);
      return;
    }
    if (indent / 2 >= kMaxPrintDepth) {
      out_ += name + "(...)";
      return;
    }
    shown_.emplace(m, path);
    std::string args = hyperparameters(*m);
    out_ += name + "(";
    size_t header_end = out_.size();
    fields(*m, path, indent, args.empty());
    if (out_.size() == header_end) {  // no lines: PyTorch's one-line form, Linear(in_features=3, ...)
      out_ += args + ")";
      return;
    }
    if (!args.empty()) {
      std::string line(1, '\n');  // built by appends: "\n" + s trips GCC 12's false -Wrestrict
      line.append(static_cast<size_t>(indent + 2), ' ').append(args);
      out_.insert(header_end, line);
    }
    out_ += '\n';
    out_.append(static_cast<size_t>(indent), ' ');
    out_ += ")";
  }

  // A module's lines: each submodule as PyTorch shows children, `(fc1): Linear(...)`,
  // each container of models; its parameters and buffers when its header shows no
  // hyperparameters (`weight: Parameter[4, 3]`), else only those that are flagged
  // (NaN, Inf, a tensor shown before).
  void fields(const InstanceObj& m, const std::string& path, int indent, bool all_tensors) {
    std::string pad(static_cast<size_t>(indent + 2), ' ');
    for (const Field& f : m.fields) {
      bool shown_container = is_container(f.value) && holds_models(f.value);
      if (f.kind == FieldKind::attribute && !shown_container) continue;
      if (f.value.tag == Tag::Instance) {
        out_ += "\n" + pad + "(" + f.name + "): ";
        submodule(f.value, join_path(path, f.name), indent + 2);
      } else if (shown_container) {
        out_ += "\n" + pad + "(" + f.name + "): ";
        container(f.value, join_path(path, f.name), indent + 2);
      } else if (std::string line = tensor_line(m, f); all_tensors || line.find(" !! ") != std::string::npos ||
                                                         line.find("  # same tensor") != std::string::npos) {
        out_ += "\n" + pad + f.name + ": " + line;
      }
    }
  }

  void submodule(const Value& v, const std::string& path, int indent) {
    bool first = !shown_.count(v.o.get());
    module(v, path, indent);
    auto node = node_of_.find(v.o.get());
    int64_t n = first && node != node_of_.end() ? nodes_[node->second].count : 0;
    if (n > 0) out_ += parameters_note(n);
  }

  std::string tensor_line(const InstanceObj& m, const Field& f) {
    const Tensor& t = f.value.t;
    std::string line = std::string(f.kind == FieldKind::parameter ? "Parameter" : "Buffer") + t.shape_str() +
                       (t.dtype() == DType::f32 ? "" : std::string(" ") + dtype_name(t.dtype())) + nonfinite_flag(t);
    auto home = tensor_home_.find(t.impl());
    auto node = node_of_.find(&m);
    if (home == tensor_home_.end() || node == node_of_.end()) return line;
    auto [first_node, first_name] = home->second;
    if (first_node != node->second || *first_name != f.name)
      line += "  # same tensor as " + join_path(node_path(first_node), *first_name);
    return line;
  }

  // A list, tuple or dict that holds models: one item a line.
  void container(const Value& v, const std::string& path, int indent) {
    const char* kind = v.tag == Tag::List ? "list" : v.tag == Tag::Tuple ? "tuple" : "dict";
    const char* open = v.tag == Tag::List ? "[" : v.tag == Tag::Tuple ? "(" : "{";
    const char* close = v.tag == Tag::List ? "]" : v.tag == Tag::Tuple ? ")" : "}";
    if (auto it = shown_.find(v.o.get()); it != shown_.end()) {
      out_ += std::string(open) + "..." + close + "  # same " + kind + " as " + where(it->second);
      return;
    }
    if (indent / 2 >= kMaxPrintDepth) {
      out_ += std::string(open) + "..." + close;
      return;
    }
    shown_.emplace(v.o.get(), path);
    std::string pad(static_cast<size_t>(indent + 2), ' ');
    out_ += open;
    auto item = [&](const std::string& key, const Value& x) {
      out_ += "\n" + pad + "(" + key + "): ";
      if (x.tag == Tag::Instance) submodule(x, join_path(path, key), indent + 2);
      else if (is_container(x) && holds_models(x)) container(x, join_path(path, key), indent + 2);
      else out_ += repr(x);
    };
    if (v.tag == Tag::Dict) {
      for (auto& [k, x] : v.as<DictObj>()->entries) item(str(k), x);
    } else {
      auto& items = v.as<ListObj>()->items;
      for (size_t k = 0; k < items.size(); ++k) item(std::to_string(k), items[k]);
    }
    out_ += "\n";
    out_.append(static_cast<size_t>(indent), ' ');
    out_ += close;
  }
};

}  // namespace

std::string model_repr(const Value& model) {
  ModelPrinter printer(model);
  return printer.print(model);
}

}  // namespace nabla::interp
