// print(model): a model's tree of fields. Each parameter and buffer with its shape
// (and a flag when it holds NaN or Inf), each submodule nested and followed by its
// number of parameters, each list, tuple or dict that holds models item by item; the
// outermost closes with the total. A module or container met again (shared, or a
// cycle: `r.me = r`) is shown once in full and then by name only (Note [Module walk]).
#include <unordered_map>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "interp/module_walk.hpp"

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

class ModelPrinter {
 public:
  explicit ModelPrinter(const Value& root) {
    // Each parameter counts in the module the walk first found it in, and each
    // module's count takes in those of the modules first found through it, so the
    // counts add up to the total.
    std::vector<ModuleVisit> visits = walk_modules(root);
    std::vector<int64_t> own(visits.size(), 0);
    AddressSet seen;
    for (size_t k = 0; k < visits.size(); ++k)
      for (const Field& f : visits[k].module.as<InstanceObj>()->fields)
        if (f.kind == FieldKind::parameter && f.value.tag == Tag::Tensor && seen.insert(f.value.t.impl()))
          own[k] += f.value.t.numel();
    for (size_t k = visits.size(); k-- > 1;) own[visits[k].parent] += own[k];
    counts_.reserve(visits.size());
    for (size_t k = 0; k < visits.size(); ++k) counts_[visits[k].module.o.get()] = own[k];
    total_ = own.empty() ? 0 : own[0];
  }

  std::string print(const Value& root) {
    module(root, "", 0);
    if (total_ > 0) out_ += parameters_note(total_) + " in total";
    return std::move(out_);
  }

 private:
  std::string out_;
  std::unordered_map<const Obj*, int64_t> counts_;
  std::unordered_map<const Obj*, std::string> shown_;  // module or container -> its first path
  int64_t total_ = 0;

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
    out_ += name + "(";
    fields(*m, path, indent);
    out_ += ")";
  }

  void fields(const InstanceObj& m, const std::string& path, int indent) {
    bool any = false;
    std::string pad(static_cast<size_t>(indent + 2), ' ');
    for (const Field& f : m.fields) {
      bool shown_container = is_container(f.value) && holds_models(f.value);
      if (f.kind == FieldKind::attribute && !shown_container) continue;
      any = true;
      out_ += "\n" + pad + f.name + ": ";
      if (f.value.tag == Tag::Instance) submodule(f.value, join_path(path, f.name), indent + 2);
      else if (shown_container) container(f.value, join_path(path, f.name), indent + 2);
      else tensor_line(f);
    }
    if (any) {
      out_ += '\n';
      out_.append(static_cast<size_t>(indent), ' ');
    }
  }

  void submodule(const Value& v, const std::string& path, int indent) {
    bool first = !shown_.count(v.o.get());
    module(v, path, indent);
    int64_t n = first ? counts_[v.o.get()] : 0;
    if (n > 0) out_ += parameters_note(n);
  }

  void tensor_line(const Field& f) {
    const Tensor& t = f.value.t;
    out_ += std::string(f.kind == FieldKind::parameter ? "Parameter" : "Buffer") + t.shape_str() +
            (t.dtype() == DType::f32 ? "" : std::string(" ") + dtype_name(t.dtype())) + nonfinite_flag(t);
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
      out_ += "\n" + pad + key + ": ";
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
