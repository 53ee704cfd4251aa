// The cycle collector of the language's values (Note [Reference cycles]).
//
// Note [Reference cycles]
// Values are reference counted (shared_ptr), which frees everything but cycles, and
// the language makes cycles as a matter of course: a module's functions point back at
// the module, a closure kept in the frame it closes over points at that frame, a list
// can hold itself, a model can keep one of its own bound methods. Such a cycle would
// leak when the last reference from outside it goes (LeakSanitizer found them:
// docs/hardening.md).
//
// The collector is CPython's trial deletion. Every container (Frame, Module, list and
// tuple, dict, function, bound method, model class, instance, object) is a Tracked,
// linked into the registry of the evaluator that made it. A collection counts, for
// each tracked object, the references that other tracked objects hold to it; an
// object with more references than that is held from outside (the C++ stack, the
// evaluator's roots, a native function, a tensor hook) and survives with all it
// reaches; what remains are cycles that nothing outside reaches, which are emptied
// and so freed. References the collector cannot see (captured by a std::function,
// held by a native object) count as outside references: a miss keeps objects
// alive, it never frees a live one.
//
// Collections run when nothing of the language is running: after each job of the
// Interpreter's worker (each eval, REPL entry, test block). When the evaluator is
// destroyed, every object it made is emptied (release_all). The registry is not locked: an evaluator's objects are made and freed
// on its worker thread, or on the thread that owns the Interpreter while no job runs.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

namespace nabla::interp {

struct Value;
class CycleRegistry;

// What a collection sees of one reference: the object it points at and that
// object's strong reference count (shared_ptr::use_count of the reference).
class RefVisitor {
 public:
  virtual void reference(class Tracked* target, long use_count) = 0;
  void visit(const Value& v);
  template <class T>
  void visit(const std::shared_ptr<T>& p) {
    if (p) reference(p.get(), p.use_count());
  }
  void visit(const std::vector<Value>& values);

 protected:
  ~RefVisitor() = default;
};

// Where the references of garbage objects go when they are emptied; freeing it
// frees the cycles, after the collector has stopped looking at them.
struct Graveyard {
  std::vector<Value> values;
  std::vector<std::shared_ptr<void>> others;
  void take(Value& v);
  void take(std::vector<Value>& values);
  template <class T>
  void take(std::shared_ptr<T>& p) {
    if (p) others.push_back(std::move(p));
  }
};

// A container of values: links itself into the registry current on its thread
// (none: untracked, which only makes it an outside holder of what it references).
class Tracked {
 public:
  Tracked();
  Tracked(const Tracked&);  // a copy is a new object: it links itself, not the original's links
  Tracked& operator=(const Tracked&) { return *this; }
  virtual ~Tracked();

  // The lowered region (script mode) this object was made in, 0 outside one: see
  // Note [Objects changed inside a lowered region] in interp/values/object_regions.hpp.
  uint32_t region() const { return region_; }
  // The compile() capture under way when this object was made, 0 outside one: see
  // Note [What a capture read] in interp/eval/capture_reads.hpp.
  uint32_t capture() const { return capture_; }

  // Every reference this object holds to a tracked object.
  virtual void visit_references(RefVisitor& v) const = 0;
  // Moves every reference out (the object is garbage; its cycle falls apart).
  virtual void release_references(Graveyard& g) = 0;

 private:
  friend class CycleRegistry;
  Tracked* prev_ = nullptr;
  Tracked* next_ = nullptr;
  CycleRegistry* registry_ = nullptr;
  uint32_t region_;
  uint32_t capture_;
};

class CycleRegistry {
 public:
  CycleRegistry() = default;
  ~CycleRegistry();  // objects still alive are detached: they outlive it untracked
  CycleRegistry(const CycleRegistry&) = delete;
  CycleRegistry& operator=(const CycleRegistry&) = delete;

  // Frees the cycles that nothing outside them reaches; returns how many objects.
  size_t collect();
  // Empties every object (its evaluator is going, and with it every use of them):
  // this also frees cycles that run through what the collector cannot see, such as
  // a tensor whose autograd node holds a custom function's class. Objects held from
  // outside stay alive, empty.
  void release_all();
  size_t size() const { return size_; }

  // While alive, objects made on this thread join `registry` (restores the previous).
  class Scope {
   public:
    explicit Scope(CycleRegistry* registry);
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;

   private:
    CycleRegistry* saved_;
  };

 private:
  friend class Tracked;
  void link(Tracked* t);
  void unlink(Tracked* t);
  Tracked* head_ = nullptr;
  size_t size_ = 0;
};

}  // namespace nabla::interp
