// Note [What a capture read] (capture_reads.hpp).
#include "interp/eval/capture_reads.hpp"

#include <cmath>
#include <cstring>

#include "autograd/grad_mode.hpp"
#include "autograd/ops.hpp"
#include "graph/ir.hpp"
#include "interp/eval/evaluator.hpp"
#include "interp/models/module_walk.hpp"
#include "interp/values/object_regions.hpp"

namespace nabla::interp {

struct ReadRecorder {
  ReadGuards* into = nullptr;
  uint64_t start_serial = 0;  // tensors with a smaller serial existed before the capture
  std::unordered_set<std::string> keys;  // each place once: its first read is what the run saw
  ReadRecorder* outer = nullptr;
};

namespace {

constexpr int kMaxDepth = 8;  // deeper items compare by identity


ReadSnapshot snapshot(const Value& v, int depth) {
  ReadSnapshot s;
  s.tag = v.tag;
  if (v.tag <= Tag::DType && v.tag != Tag::Tensor) {
    s.scalar = v;
  } else if (v.tag == Tag::Tensor) {
    s.tensor = v.t;
    if (v.t.defined()) s.sizes = v.t.sizes();
  } else if (v.tag == Tag::Str) {
    s.text = v.as<StrObj>()->s;
  } else {
    s.obj = v.o;
    if (depth < kMaxDepth && (v.tag == Tag::List || v.tag == Tag::Tuple))
      for (const Value& item : v.as<ListObj>()->items) s.items.push_back(snapshot(item, depth + 1));
    if (depth < kMaxDepth && v.tag == Tag::Dict)
      for (const auto& [key, value] : v.as<DictObj>()->entries) {
        s.items.push_back(snapshot(key, depth + 1));
        s.items.push_back(snapshot(value, depth + 1));
      }
  }
  return s;
}

bool same_scalar(const Value& a, const Value& b) {
  switch (a.tag) {
    case Tag::None: return true;
    case Tag::Bool: return a.b == b.b;
    case Tag::Int: return a.i == b.i;
    case Tag::DType: return a.dt == b.dt;
    default: return std::memcmp(&a.f, &b.f, sizeof a.f) == 0 || (std::isnan(a.f) && std::isnan(b.f));
  }
}

bool same_object(const std::weak_ptr<Obj>& seen, const std::shared_ptr<Obj>& now) {
  // The weak reference keeps the control block: a new object at the old address differs.
  return !seen.owner_before(now) && !now.owner_before(seen) && !seen.expired();
}

bool matches(const ReadSnapshot& s, const Value& v, int depth) {
  if (s.tag != v.tag) return false;
  if (v.tag <= Tag::DType && v.tag != Tag::Tensor) return same_scalar(s.scalar, v);
  if (v.tag == Tag::Tensor)
    return s.tensor.defined() == v.t.defined() &&
           (!v.t.defined() || (s.tensor.is_same(v.t) && s.sizes == v.t.sizes() && s.tensor.dtype() == v.t.dtype()));
  if (v.tag == Tag::Str) return s.text == v.as<StrObj>()->s;
  if (!same_object(s.obj, v.o)) return false;
  if (depth >= kMaxDepth) return true;
  if (v.tag == Tag::List || v.tag == Tag::Tuple) {
    const auto& items = v.as<ListObj>()->items;
    if (items.size() != s.items.size()) return false;
    for (size_t k = 0; k < items.size(); ++k)
      if (!matches(s.items[k], items[k], depth + 1)) return false;
  }
  if (v.tag == Tag::Dict) {
    const auto& entries = v.as<DictObj>()->entries;
    if (entries.size() * 2 != s.items.size()) return false;
    for (size_t k = 0; k < entries.size(); ++k)
      if (!matches(s.items[2 * k], entries[k].first, depth + 1) ||
          !matches(s.items[2 * k + 1], entries[k].second, depth + 1))
        return false;
  }
  return true;
}

// What the place holds now; null when its holder is gone (the guard then fails).
const Value* current(const ReadGuard& g) {
  switch (g.where) {
    case ReadGuard::Where::module_slot: {
      auto m = std::static_pointer_cast<Module>(g.module.lock());
      return m && g.slot < static_cast<int>(m->slots.size()) ? &m->slots[g.slot] : nullptr;
    }
    case ReadGuard::Where::frame_slot: {
      auto f = g.frame.lock();
      return f && g.slot < f->nslots ? &f->slots[g.slot] : nullptr;
    }
    case ReadGuard::Where::field: {
      auto inst = std::static_pointer_cast<InstanceObj>(g.instance.lock());
      const Field* f = inst ? inst->find(g.name) : nullptr;
      return f ? &f->value : nullptr;
    }
    case ReadGuard::Where::structure: return nullptr;  // compared as text by structure_changed
  }
  return nullptr;
}

// A model's structure (Note [A model's structure is a read too]): the names of its
// submodules, parameters and buffers, in order, and the ids of its hooks.
std::string structure_text(const InstanceObj& inst) {
  std::string s;
  for (const Field& f : inst.fields)
    if (f.kind != FieldKind::attribute) s += f.name + ",";
  for (const auto* hooks : {&inst.forward_pre_hooks, &inst.forward_hooks, &inst.backward_hooks, &inst.full_backward_hooks}) {
    s += "|";
    for (const auto& [id, fn] : *hooks) s += std::to_string(id) + ",";
  }
  return s;
}

// Which structure guard fails now ("" when it holds).
std::string structure_changed(const ReadGuard& g) {
  auto inst = std::static_pointer_cast<InstanceObj>(g.instance.lock());
  if (!inst) return "a model the function called is gone";
  if (structure_text(*inst) == g.seen.text) return "";
  return "the submodules, parameters or hooks of the " + inst->cls->decl->name +
         " the function used changed (a layer appended, a hook registered or removed; Note [A model's structure is a "
         "read too])";
}

std::string seen_text(const ReadSnapshot& s) {
  if (s.tag <= Tag::DType && s.tag != Tag::Tensor) return repr(s.scalar);
  if (s.tag == Tag::Str) return repr(make_str(s.text));
  if (s.tag == Tag::Tensor) return "another tensor";
  if (s.tag == Tag::List || s.tag == Tag::Tuple || s.tag == Tag::Dict) return "other items";
  return "another object";
}

bool record(const std::string& key, ReadGuard g, const Value& v) {
  if (!t_read_recorder->keys.insert(key).second) return false;
  g.seen = snapshot(v, 0);
  t_read_recorder->into->items.push_back(std::move(g));
  return true;
}

std::string address_key(const void* p, const std::string& rest) {
  return std::to_string(reinterpret_cast<uintptr_t>(p)) + ":" + rest;
}

}  // namespace

std::string ReadGuards::changed() const {
  for (const ReadGuard& g : items) {
    if (g.where == ReadGuard::Where::structure) {
      if (std::string why = structure_changed(g); !why.empty()) return why;
      continue;
    }
    const Value* now = current(g);
    const char* kind = g.where == ReadGuard::Where::field ? "attribute '" : "variable '";
    if (!now) return std::string(kind) + g.name + "' the function read is gone";
    if (!matches(g.seen, *now, 0)) {
      bool plain = g.seen.tag <= Tag::DType && g.seen.tag != Tag::Tensor && now->tag <= Tag::DType && now->tag != Tag::Tensor;
      return std::string(kind) + g.name + "' the function read " +
             (plain ? "is " + repr(*now) + ", it was " + seen_text(g.seen) : "holds " + seen_text(g.seen) + " now") +
             " (Note [What a capture read])";
    }
  }
  return "";
}

CaptureReadScope::CaptureReadScope(ReadGuards& into)
    : saved_capture_(current_capture()), saved_recorder_(t_read_recorder), into_(into) {
  set_current_capture(next_capture_number());
  auto* r = new ReadRecorder;
  r->into = &into;
  r->outer = t_read_recorder;
  r->start_serial = new_tensor_serial();
  t_read_recorder = r;
}

CaptureReadScope::~CaptureReadScope() {
  ReadRecorder* r = t_read_recorder;
  t_read_recorder = saved_recorder_;
  set_current_capture(saved_capture_);
  delete r;
  if (t_read_recorder) note_reads(into_);  // the enclosing capture read them too
}

void note_module_read(Module& m, int slot, const std::string& name, const Value& v) {
  if (!t_read_recorder || m.capture() >= current_capture()) return;
  ReadGuard g{ReadGuard::Where::module_slot};
  g.module = m.shared_from_this();
  g.slot = slot;
  g.name = name;
  record(address_key(static_cast<const Obj*>(&m), std::to_string(slot)), std::move(g), v);
}

void note_frame_read(Frame& f, int slot, const std::string& name, const Value& v) {
  if (!t_read_recorder || f.capture() >= current_capture()) return;
  ReadGuard g{ReadGuard::Where::frame_slot};
  g.frame = f.shared_from_this();
  g.slot = slot;
  g.name = name;
  record(address_key(&f, std::to_string(slot)), std::move(g), v);
}

void note_field_read(const Value& instance, const std::string& name, const Value& v) {
  if (!t_read_recorder || instance.tag != Tag::Instance) return;
  const auto* inst = instance.as<InstanceObj>();
  if (inst->capture() >= current_capture()) return;
  ReadGuard g{ReadGuard::Where::field};
  g.instance = instance.o;
  g.name = name;
  record(address_key(static_cast<const Obj*>(inst), name), std::move(g), v);
}

namespace {

void note_one_structure(const Value& instance) {
  const auto* inst = instance.as<InstanceObj>();
  if (inst->capture() >= current_capture()) return;
  std::string key = address_key(static_cast<const Obj*>(inst), "\x01structure");
  if (!t_read_recorder->keys.insert(key).second) return;
  ReadGuard g{ReadGuard::Where::structure};
  g.instance = instance.o;
  g.name = "\x01structure";
  g.seen.tag = Tag::Str;
  g.seen.text = structure_text(*inst);
  t_read_recorder->into->items.push_back(std::move(g));
}

}  // namespace

void note_structure_read(const Value& instance, bool under) {
  if (!t_read_recorder || instance.tag != Tag::Instance) return;
  if (!under) return note_one_structure(instance);
  for (const ModuleVisit& visit : walk_modules(instance)) note_one_structure(visit.module);
}

// Note [A tensor field written in a capture]
// `self.state = self.state * 0.9 + x` in a compiled forward: the capture's run sets the
// field once, and the graph, reading the field's tensor live, would neither write it at
// later calls nor read what the last call wrote (the capture's value stayed, the first
// call applied the update twice, and each call captured again). So when the field holds
// a tensor made before the capture that needs no gradient, and the new value has its
// shape, dtype and device and needs none either, the write is an in-place copy into
// the field's tensor: a copy node, as BatchNorm's running statistics are written
// (Note [Capturing writes] puts back what the capture's run wrote), so each call writes
// once and the field keeps its tensor. A value that needs a gradient, put into a field
// the function read, is refused (the copy would drop it; .detach() says it is state),
// and so is any other tensor put there: the graph read the old tensor. A tensor or
// none put where the function did not read and no copy can (prune's hook recomputing
// `weight`, FSDP's gathered views) is let through: the graph makes the new tensor at
// each call, and the field keeps what the capture left (the gap that remains).
FieldWrite tensor_field_write(InstanceObj& obj, const std::string& name, const Value& v) {
  const Field* f = obj.find(name);
  auto tensor_slot = [](const Value& x) { return x.tag == Tag::Tensor || x.tag == Tag::None; };
  if (!t_read_recorder || !f || !tensor_slot(v) || !tensor_slot(f->value)) return FieldWrite::check;
  if (obj.capture() >= current_capture()) return FieldWrite::through;  // the capture's own model
  const Value& old = f->value;
  // The value it holds again (none over none, the same tensor): nothing changes.
  if ((old.tag == Tag::None && v.tag == Tag::None) || (old.tag == Tag::Tensor && v.tag == Tag::Tensor && old.t.impl() == v.t.impl()))
    return FieldWrite::through;
  std::string what = "attribute '" + name + "' of a " + obj.cls->decl->name;
  bool before = old.tag == Tag::Tensor && old.t.impl()->serial < t_read_recorder->start_serial;
  bool read = t_read_recorder->keys.count(address_key(static_cast<const Obj*>(&obj), name)) > 0;
  if (before && v.tag == Tag::Tensor && !old.t.requires_grad() && old.t.sizes() == v.t.sizes() &&
      old.t.dtype() == v.t.dtype() && old.t.device() == v.t.device()) {
    bool needs_grad = v.t.requires_grad() && grad_enabled();
    if (needs_grad && !read) return FieldWrite::through;  // prune's recomputed weight: the graph makes it
    if (needs_grad)
      fail("compile() writes a tensor into " + what + " at each call as an in-place copy into the tensor it holds, "
           "which would drop the new value's gradient: assign a value that needs none (.detach(), or compute it "
           "inside no_grad { }), or return it instead");
    NoGradGuard no_grad;
    Tensor dst = old.t;
    copy_(dst, v.t);
    return FieldWrite::written;
  }
  // A tensor the capture itself made (FSDP's gathered parameters, set to none after
  // forward) is the graph's own value, not a read of the field: any new value may go in.
  const bool made_in_capture = old.tag == Tag::Tensor && !before;
  if (read && !made_in_capture)
    fail("compile() runs the function once, while capturing, and the graph reads " + what + " as the tensor it held "
         "then, so it cannot set it to " + (v.tag == Tag::Tensor ? graph::meta_str({v.t.sizes(), v.t.dtype()}) : "none") +
         ": the graph writes a field at each call only as an in-place copy into a tensor made before the call, of the "
         "same shape, dtype and device, that needs no gradient (found " +
         (old.tag == Tag::Tensor ? graph::meta_str({old.t.sizes(), old.t.dtype()}) +
                                       (old.t.requires_grad() ? " that requires grad" : "")
                                 : std::string("none")) +
         "). Return the new value instead, or keep the field's shape and dtype");
  return FieldWrite::through;
}

void note_reads(const ReadGuards& reads) {
  if (!t_read_recorder) return;
  for (const ReadGuard& g : reads.items) {
    const void* holder = nullptr;
    uint32_t made = 0;  // the capture that made the holder: one made by the enclosing capture is its own
    if (g.where == ReadGuard::Where::frame_slot) {
      auto f = g.frame.lock();
      holder = f.get();
      made = f ? f->capture() : 0;
    } else {
      bool on_model = g.where == ReadGuard::Where::field || g.where == ReadGuard::Where::structure;
      auto o = on_model ? g.instance.lock() : g.module.lock();
      holder = o.get();
      if (o) made = on_model ? static_cast<InstanceObj*>(o.get())->capture() : static_cast<Module*>(o.get())->capture();
    }
    if (!holder || made >= current_capture()) continue;
    bool named = g.where == ReadGuard::Where::field || g.where == ReadGuard::Where::structure;
    std::string key = address_key(holder, named ? g.name : std::to_string(g.slot));
    if (t_read_recorder->keys.insert(key).second) t_read_recorder->into->items.push_back(g);
  }
}

}  // namespace nabla::interp
