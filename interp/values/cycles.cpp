// The cycle collector (Note [Reference cycles] in cycles.hpp), and what each tracked
// type references: kept here, in one place, so that a field added to a container is
// added to its visit and its release together.
#include "interp/values/cycles.hpp"

#include <unordered_map>
#include <unordered_set>

#include "interp/eval/evaluator.hpp"
#include "interp/values/object_regions.hpp"
#include "interp/values/value.hpp"

namespace nabla::interp {

namespace {
thread_local CycleRegistry* t_current = nullptr;
}  // namespace

// ---- references of values -------------------------------------------------------------

// The tracked object behind a value, if any (strings, ranges and natives hold no values).
static Tracked* tracked_of(const Value& v) {
  switch (v.tag) {
    case Tag::List: case Tag::Tuple: return v.as<ListObj>();
    case Tag::Dict: return v.as<DictObj>();
    case Tag::Func: return v.as<FuncObj>();
    case Tag::Bound: return v.as<BoundObj>();
    case Tag::ModelClass: case Tag::FnClass: return v.as<ModelClassObj>();
    case Tag::Instance: return v.as<InstanceObj>();
    case Tag::Module: return v.as<Module>();
    case Tag::Object: return v.as<ObjectObj>();
    default: return nullptr;
  }
}

void RefVisitor::visit(const Value& v) {
  if (Tracked* t = tracked_of(v)) reference(t, v.o.use_count());
}

void RefVisitor::visit(const std::vector<Value>& values) {
  for (const Value& v : values) visit(v);
}

void Graveyard::take(Value& v) {
  if (v.is_heap()) values.push_back(std::move(v));
  v = Value();
}

void Graveyard::take(std::vector<Value>& vs) {
  for (Value& v : vs) take(v);
  vs.clear();
}

// ---- each tracked type ----------------------------------------------------------------

void ListObj::visit_references(RefVisitor& v) const { v.visit(items); }
void ListObj::release_references(Graveyard& g) { g.take(items); }

void DictObj::visit_references(RefVisitor& v) const {
  for (const auto& [key, value] : entries) {
    v.visit(key);
    v.visit(value);
  }
  for (const auto& [key, at] : index) v.visit(key);
}
void DictObj::release_references(Graveyard& g) {
  for (auto& [key, value] : entries) {
    g.take(key);
    g.take(value);
  }
  entries.clear();
  index.clear();  // its keys are copies of the entries' (strings, numbers, tuples)
}

void FuncObj::visit_references(RefVisitor& v) const {
  v.visit(env);
  v.visit(module);
  v.visit(defaults);
}
void FuncObj::release_references(Graveyard& g) {
  g.take(env);
  g.take(module);
  g.take(defaults);
}

void BoundObj::visit_references(RefVisitor& v) const {
  v.visit(self);
  v.visit(func);
}
void BoundObj::release_references(Graveyard& g) {
  g.take(self);
  g.take(func);
}

void ModelClassObj::visit_references(RefVisitor& v) const {
  v.visit(env);
  v.visit(module);
  v.visit(defaults);
}
void ModelClassObj::release_references(Graveyard& g) {
  g.take(env);
  g.take(module);
  g.take(defaults);
}

void InstanceObj::visit_references(RefVisitor& v) const {
  v.visit(cls);
  for (const Field& f : fields) v.visit(f.value);
  v.visit(ctor_frame);
  for (const auto* hooks : {&forward_pre_hooks, &forward_hooks, &backward_hooks, &full_backward_hooks})
    for (const auto& [id, fn] : *hooks) v.visit(fn);
}
void InstanceObj::release_references(Graveyard& g) {
  g.take(cls);
  for (Field& f : fields) g.take(f.value);
  fields.clear();
  g.take(ctor_frame);
  for (auto* hooks : {&forward_pre_hooks, &forward_hooks, &backward_hooks, &full_backward_hooks}) {
    for (auto& [id, fn] : *hooks) g.take(fn);
    hooks->clear();
  }
}

void Module::visit_references(RefVisitor& v) const { v.visit(slots); }
void Module::release_references(Graveyard& g) {
  g.take(slots);
  defined.assign(defined.size(), 0);
  slots.resize(defined.size());
}

void ObjectObj::visit_references(RefVisitor& v) const {
  for (const auto& [name, value] : attrs) v.visit(value);
}
void ObjectObj::release_references(Graveyard& g) {
  for (auto& [name, value] : attrs) g.take(value);
  attrs.clear();
}

void Frame::visit_references(RefVisitor& v) const {
  for (int k = 0; k < nslots; ++k) v.visit(slots[k]);
  v.visit(parent);
  v.visit(self);
}
void Frame::release_references(Graveyard& g) {
  for (int k = 0; k < nslots; ++k) g.take(slots[k]);
  g.take(parent);
  g.take(self);
}

// ---- the registry -------------------------------------------------------------------

Tracked::Tracked() : region_(current_object_region()), capture_(current_capture()) {
  if (t_current) t_current->link(this);
}

Tracked::Tracked(const Tracked&) : Tracked() {}

Tracked::~Tracked() {
  if (registry_) registry_->unlink(this);
}

void CycleRegistry::link(Tracked* t) {
  t->registry_ = this;
  t->next_ = head_;
  if (head_) head_->prev_ = t;
  head_ = t;
  ++size_;
}

namespace {
// The objects release_all has still to empty; an object freed meanwhile (the last
// reference to it dropped by emptying another, through a path the graveyard does not
// hold, such as an autograd node's custom-function context) leaves the set, so that
// release_all never calls into a freed object.
thread_local std::unordered_set<Tracked*>* t_release_pending = nullptr;
}  // namespace

void CycleRegistry::unlink(Tracked* t) {
  if (t_release_pending) t_release_pending->erase(t);
  if (t->prev_) t->prev_->next_ = t->next_;
  else head_ = t->next_;
  if (t->next_) t->next_->prev_ = t->prev_;
  t->prev_ = t->next_ = nullptr;
  t->registry_ = nullptr;
  --size_;
}

CycleRegistry::~CycleRegistry() {
  while (head_) unlink(head_);
}

CycleRegistry::Scope::Scope(CycleRegistry* registry) : saved_(t_current) { t_current = registry; }
CycleRegistry::Scope::~Scope() { t_current = saved_; }

namespace {

// Per object during a collection: its strong count as its references report it, how
// many of those come from tracked objects, and whether something outside reaches it.
struct Count {
  long strong = 0;
  long from_tracked = 0;
  bool reachable = false;
};

struct CountReferences : RefVisitor {
  std::unordered_map<Tracked*, Count>& counts;
  explicit CountReferences(std::unordered_map<Tracked*, Count>& c) : counts(c) {}
  void reference(Tracked* target, long use_count) override {
    auto it = counts.find(target);
    if (it == counts.end()) return;  // not in this registry: it is someone else's to collect
    it->second.strong = use_count;
    ++it->second.from_tracked;
  }
};

struct MarkReachable : RefVisitor {
  std::unordered_map<Tracked*, Count>& counts;
  std::vector<Tracked*> pending;
  explicit MarkReachable(std::unordered_map<Tracked*, Count>& c) : counts(c) {}
  void reference(Tracked* target, long) override {
    auto it = counts.find(target);
    if (it == counts.end() || it->second.reachable) return;
    it->second.reachable = true;
    pending.push_back(target);
  }
};

}  // namespace

void CycleRegistry::release_all() {
  std::vector<Tracked*> all;
  all.reserve(size_);
  for (Tracked* t = head_; t; t = t->next_) all.push_back(t);
  std::unordered_set<Tracked*> pending(all.begin(), all.end());
  t_release_pending = &pending;
  {
    Graveyard graveyard;  // holds what the objects held until all are empty (see collect)
    for (Tracked* t : all)
      if (pending.erase(t)) t->release_references(graveyard);
    t_release_pending = nullptr;  // freeing the graveyard unlinks objects: the set is done
  }
}

size_t CycleRegistry::collect() {
  std::unordered_map<Tracked*, Count> counts;
  counts.reserve(size_);
  for (Tracked* t = head_; t; t = t->next_) counts.emplace(t, Count{});
  CountReferences count(counts);
  for (auto& [t, c] : counts) t->visit_references(count);
  // Held from outside: a reference that no tracked object accounts for (an object no
  // tracked object references at all is held from outside by definition).
  MarkReachable mark(counts);
  for (auto& [t, c] : counts) {
    if (c.from_tracked == 0 || c.from_tracked < c.strong) {
      c.reachable = true;
      mark.pending.push_back(t);
    }
  }
  while (!mark.pending.empty()) {
    Tracked* t = mark.pending.back();
    mark.pending.pop_back();
    t->visit_references(mark);
  }
  // Empty every garbage object before freeing anything, so that no object is freed
  // while the collector still holds a pointer to it.
  Graveyard graveyard;
  size_t garbage = 0;
  for (auto& [t, c] : counts) {
    if (c.reachable) continue;
    t->release_references(graveyard);
    ++garbage;
  }
  counts.clear();
  return garbage;  // graveyard frees the cycles here
}

}  // namespace nabla::interp
