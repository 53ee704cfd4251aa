// Note [What a capture read]
// compile() runs the function once and keeps the ops it recorded. Everything else the
// run read is baked into the graph: a global float `lr` is a constant of `x * lr`, a
// global tensor `g` is bound as that tensor, `self.scale` and `L[0]` as they were. A
// later call after `lr = 2.0`, `g = other`, `m.scale = 5.0` or `L[0] = t` would silently
// give the old results. So while the function runs, every variable it reads from
// outside the call (a module's global, a variable of a frame made before the capture,
// a field of a model made before it) is noted with what it held, and these notes are
// guards of the graph, as the arguments' shapes are: a call whose reads differ
// captures again (gm.explain() names the variable). Numbers and strings compare by
// value, tensors and objects by identity (a tensor changed in place is read live by
// the graph), lists, tuples and dicts by their items. The converse, a change the run
// makes to what it did not make (`calls = calls + 1` on a global, `self.n = ...`),
// would happen once, at the capture. Assigning a global or enclosing variable
// or a model's attribute is an error at the statement (check_change_in_capture in
// object_regions.hpp), but for a tensor put where a tensor was (Note [A tensor field
// written in a capture], capture_reads.cpp). One gap remains: a tensor (or none) put
// where the function did not read (prune's `weight` recomputed by a hook, FSDP's
// gathered views) is let through, the attribute keeping what the capture left while
// the graph computes the new tensor at each call.
//
// Note [A model's structure is a read too]
// A model's fields are read one by one, but a capture also reads what no field read
// shows: which submodules, parameters and buffers a model holds (`for l in
// self.layers` walks a ModuleList's fields through children(), and
// `self.layers.append(l)` adds one without touching a field the run read) and which
// hooks run around each module it calls (`m.register_forward_hook(h)` after the
// capture). So a call of a model made before the capture notes the model's
// structure, its field names and the ids of its hooks, and a builtin model method
// (children(), parameters(), modules(), ...) notes that of every module under it;
// a call after an append, a new or removed hook captures again.
#pragma once
#include <memory>
#include <string>
#include <unordered_set>
#include <vector>

#include "interp/values/value.hpp"

namespace nabla::interp {

struct Frame;
struct Module;
struct InstanceObj;
struct ReadRecorder;  // the reads one capture noted (capture_reads.cpp)

// A value as it was read: numbers and strings by value, a tensor held, an object by
// a weak reference (its identity), a list, tuple or dict with its items as they were.
struct ReadSnapshot {
  Tag tag = Tag::None;
  Value scalar;     // None, Bool, Int, Float, DType
  std::string text; // Str
  Tensor tensor;
  Shape sizes;
  std::weak_ptr<Obj> obj;
  std::vector<ReadSnapshot> items;
};

// One place read from outside the function's call, and what it held.
struct ReadGuard {
  enum class Where { module_slot, frame_slot, field, structure } where;
  std::weak_ptr<Obj> module, instance;  // module_slot: the module; field, structure: the model
  std::weak_ptr<Frame> frame;           // frame_slot
  int slot = 0;
  std::string name;
  ReadSnapshot seen;
};

struct ReadGuards {
  std::vector<ReadGuard> items;
  // "" when every place still holds what it held, else which one changed.
  std::string changed() const;
};

// While alive, compile() captures on this thread: objects made now are the capture's,
// and the reads below are noted in `into` (then handed on to an enclosing capture).
class CaptureReadScope {
 public:
  explicit CaptureReadScope(ReadGuards& into);
  ~CaptureReadScope();
  CaptureReadScope(const CaptureReadScope&) = delete;
  CaptureReadScope& operator=(const CaptureReadScope&) = delete;

 private:
  uint32_t saved_capture_;
  ReadRecorder* saved_recorder_;
  ReadGuards& into_;
};

// Whether a capture notes reads now (the evaluator's hot paths test this first, so
// inline: the recorder of the capture under way on this thread, null when none).
inline thread_local ReadRecorder* t_read_recorder = nullptr;
inline bool noting_reads() { return t_read_recorder != nullptr; }
void note_module_read(Module& m, int slot, const std::string& name, const Value& v);
void note_frame_read(Frame& f, int slot, const std::string& name, const Value& v);
void note_field_read(const Value& instance, const std::string& name, const Value& v);
// Note [A model's structure is a read too]: the model's field names and hooks; with
// `under`, those of every module under it too.
void note_structure_read(const Value& instance, bool under = false);
// `obj.name = v` while compile() captures (Note [A tensor field written in a capture]):
// check (not a tensor put where a tensor or none was: check_change_in_capture decides),
// through (set the field as usual), or written (the write was an in-place copy into the
// field's tensor, which the graph repeats at each call: leave the field as it is).
// Fails when the graph cannot make the write at each call.
enum class FieldWrite { check, through, written };
FieldWrite tensor_field_write(InstanceObj& obj, const std::string& name, const Value& v);
// A graph module called while another captures: its graph's reads are the caller's too.
void note_reads(const ReadGuards& reads);

}  // namespace nabla::interp
