// The module walk (Note [Module walk] in module_walk.hpp): submodules of a model,
// every module once, and the tensors they hold once.
#include "interp/models/module_walk.hpp"

#include <unordered_map>

namespace nabla::interp {

size_t AddressSet::slot_of(const void* p, size_t mask) {
  auto x = static_cast<uint64_t>(reinterpret_cast<uintptr_t>(p));
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdULL;  // a 64-bit finalizer's mix: addresses are aligned
  x ^= x >> 33;
  return static_cast<size_t>(x) & mask;
}

bool AddressSet::insert(const void* p) {
  if ((size_ + 1) * 2 > slots_.size()) grow();
  size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(p, mask);; i = (i + 1) & mask) {
    if (slots_[i] == p) return false;
    if (!slots_[i]) {
      slots_[i] = p;
      ++size_;
      return true;
    }
  }
}

bool AddressSet::contains(const void* p) const {
  if (slots_.empty()) return false;
  size_t mask = slots_.size() - 1;
  for (size_t i = slot_of(p, mask); slots_[i]; i = (i + 1) & mask)
    if (slots_[i] == p) return true;
  return false;
}

void AddressSet::grow() {
  std::vector<const void*> old = std::move(slots_);
  slots_.assign(old.empty() ? 64 : old.size() * 2, nullptr);
  size_ = 0;
  for (const void* p : old)
    if (p) insert(p);
}

std::string join_path(const std::string& prefix, const std::string& name) {
  return prefix.empty() ? name : prefix + "." + name;
}

bool is_container(const Value& v) { return v.tag == Tag::List || v.tag == Tag::Tuple || v.tag == Tag::Dict; }

namespace {

// The models inside a container field, depth first in item order; containers are
// opened once each, and with an explicit stack, since they may nest a million deep.
void container_modules(const std::string& name, const Value& field, std::vector<std::pair<std::string, Value>>& out,
                       AddressSet& seen_containers) {
  std::vector<std::pair<std::string, Value>> stack{{name, field}};
  std::vector<std::pair<std::string, Value>> items;
  while (!stack.empty()) {
    auto [path, v] = std::move(stack.back());
    stack.pop_back();
    if (v.tag == Tag::Instance) {
      out.emplace_back(std::move(path), std::move(v));
      continue;
    }
    if (!seen_containers.insert(v.o.get())) continue;
    items.clear();
    if (v.tag == Tag::Dict) {
      for (auto& [k, x] : v.as<DictObj>()->entries)
        if (x.tag == Tag::Instance || is_container(x)) items.emplace_back(join_path(path, str(k)), x);
    } else {
      auto& xs = v.as<ListObj>()->items;
      for (size_t k = 0; k < xs.size(); ++k)
        if (xs[k].tag == Tag::Instance || is_container(xs[k])) items.emplace_back(join_path(path, std::to_string(k)), xs[k]);
    }
    for (auto it = items.rbegin(); it != items.rend(); ++it) stack.push_back(std::move(*it));
  }
}

}  // namespace

void field_submodules(const Field& f, std::vector<std::pair<std::string, Value>>& out, AddressSet& seen_containers) {
  if (f.value.tag == Tag::Instance) out.emplace_back(f.name, f.value);
  else if (is_container(f.value)) container_modules(f.name, f.value, out, seen_containers);
}

void direct_submodules(const InstanceObj& model, std::vector<std::pair<std::string, Value>>& out,
                       AddressSet& seen_containers) {
  for (const Field& f : model.fields) field_submodules(f, out, seen_containers);
}

std::string submodule_name(const InstanceObj& model, const InstanceObj& child) {
  std::vector<std::pair<std::string, Value>> found;
  AddressSet seen_containers;
  for (const Field& f : model.fields) {
    if (f.value.tag == Tag::Instance) {
      if (f.value.o.get() == &child) return f.name;
      continue;
    }
    if (!is_container(f.value)) continue;
    found.clear();
    field_submodules(f, found, seen_containers);
    for (auto& [name, module] : found)
      if (module.o.get() == &child) return name;
  }
  return "";
}

bool holds_models(const Value& container) {
  std::vector<std::pair<std::string, Value>> found;
  AddressSet seen;
  container_modules("", container, found, seen);
  return !found.empty();
}

std::vector<ModuleVisit> walk_modules(const Value& root) {
  std::vector<ModuleVisit> out;
  if (root.tag != Tag::Instance) return out;
  AddressSet seen_modules, seen_containers;
  // Marked when popped, not when pushed: the first path of a module is then the one
  // a recursive depth-first walk in field order would give.
  std::vector<ModuleVisit> stack{{root, ModuleVisit::kNoParent, ""}};
  std::vector<std::pair<std::string, Value>> subs;
  while (!stack.empty()) {
    ModuleVisit visit = std::move(stack.back());
    stack.pop_back();
    if (!seen_modules.insert(visit.module.o.get())) continue;
    size_t index = out.size();
    out.push_back(std::move(visit));
    subs.clear();
    direct_submodules(*out.back().module.as<InstanceObj>(), subs, seen_containers);
    for (auto it = subs.rbegin(); it != subs.rend(); ++it)
      if (!seen_modules.contains(it->second.o.get())) stack.push_back({it->second, index, std::move(it->first)});
  }
  return out;
}

std::string path_of(const std::vector<ModuleVisit>& visits, size_t k) {
  std::vector<const std::string*> names;
  for (; k != ModuleVisit::kNoParent && visits[k].parent != ModuleVisit::kNoParent; k = visits[k].parent)
    names.push_back(&visits[k].name);
  std::string path;
  for (auto it = names.rbegin(); it != names.rend(); ++it) path = join_path(path, **it);
  return path;
}

bool field_wanted(const Field& f, TensorKinds kinds) {
  if (f.value.tag != Tag::Tensor || !f.value.t.defined()) return false;
  if (f.kind == FieldKind::parameter) return kinds != TensorKinds::buffers;
  if (f.kind != FieldKind::buffer) return false;
  return kinds == TensorKinds::state ? f.persistent : kinds != TensorKinds::parameters;
}

std::vector<std::pair<std::string, Tensor>> named_tensors(const Value& root, TensorKinds kinds, bool names) {
  std::vector<std::pair<std::string, Tensor>> out;
  AddressSet seen;
  std::vector<ModuleVisit> visits = walk_modules(root);
  for (size_t k = 0; k < visits.size(); ++k) {
    std::string path;
    bool have_path = false;
    for (const Field& f : visits[k].module.as<InstanceObj>()->fields) {
      if (!field_wanted(f, kinds)) continue;
      if (!seen.insert(f.value.t.impl())) continue;
      if (!names) {
        out.emplace_back(std::string(), f.value.t);
        continue;
      }
      if (!have_path) path = path_of(visits, k), have_path = true;
      out.emplace_back(join_path(path, f.name), f.value.t);
    }
  }
  return out;
}

std::vector<std::pair<std::string, std::vector<std::string>>> tensor_aliases(const Value& root, TensorKinds kinds) {
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;  // in first-name order
  std::unordered_map<const void*, size_t> group_of;
  std::vector<ModuleVisit> visits = walk_modules(root);
  for (size_t k = 0; k < visits.size(); ++k)
    for (const Field& f : visits[k].module.as<InstanceObj>()->fields) {
      if (!field_wanted(f, kinds)) continue;
      std::string name = join_path(path_of(visits, k), f.name);
      auto [it, first] = group_of.emplace(f.value.t.impl(), groups.size());
      if (first) groups.push_back({name, {}});
      else groups[it->second].second.push_back(name);
    }
  std::erase_if(groups, [](const auto& g) { return g.second.empty(); });
  return groups;
}

int64_t parameter_elements(const Value& root) {
  int64_t n = 0;
  for (auto& [name, t] : named_tensors(root, TensorKinds::parameters, false)) n += t.numel();
  return n;
}

// A key under another path of a shared module or tied weight (PyTorch's state_dict
// lists every path) still finds its tensor.
const Tensor* resolve_key(const Value& model, const std::string& key) {
  Value cur = model;
  size_t start = 0;
  for (;;) {
    size_t dot = key.find('.', start);
    std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    const Value* next = nullptr;
    if (cur.tag == Tag::Instance) {
      Field* f = cur.as<InstanceObj>()->find(part);
      if (f && dot == std::string::npos)
        return (f->kind == FieldKind::parameter || f->kind == FieldKind::buffer) && f->value.tag == Tag::Tensor ? &f->value.t
                                                                                                              : nullptr;
      if (f) next = &f->value;
    } else if (cur.tag == Tag::List || cur.tag == Tag::Tuple) {
      auto& items = cur.as<ListObj>()->items;
      for (size_t k = 0; k < items.size() && !next; ++k)
        if (std::to_string(k) == part) next = &items[k];
    } else if (cur.tag == Tag::Dict) {
      for (auto& [k, x] : cur.as<DictObj>()->entries)
        if (!next && str(k) == part) next = &x;
    }
    if (!next || dot == std::string::npos) return nullptr;
    cur = *next;
    start = dot + 1;
  }
}

TrainingFlags::TrainingFlags(const Value& model) {
  if (model.tag != Tag::Instance) return;
  for (const ModuleVisit& visit : walk_modules(model)) {
    auto* inst = visit.module.as<InstanceObj>();
    Field* f = inst->find("training");
    saved_.push_back({visit.module, f != nullptr, f && truthy(f->value)});
  }
}

TrainingFlags::~TrainingFlags() {
  for (const Saved& s : saved_) {
    auto* inst = s.module.as<InstanceObj>();
    if (s.present) inst->find("training")->value = Value::boolean(s.value);
    else std::erase_if(inst->fields, [](const auto& f) { return f.name == "training"; });
  }
}

}  // namespace nabla::interp
