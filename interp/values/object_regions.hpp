// Note [Objects changed inside a lowered region]
// Script mode (interp/eval/script/) runs the body of a lowered loop or branch once, on
// real values, while it captures the region: a cond runs both branches, a while_loop
// and a scan one trip. Tensors it makes become the region's values, but a list, dict
// or model it changes in place is changed once, by the capture, and never again by the
// node: `hs.append(x)` in a while on a tensor left one item whatever the trip count,
// and `self.n = self.n + 1` counted once. So while a region captures, changing a
// container or model made outside it (append, pop, d[k] = v, obj.f = v, ...) is an
// error that says so; one made inside the region is the region's own. The exception
// is a list a `for` appends one tensor to per step, which the scan stacks
// (interp/eval/script/control_flow.cpp allows it).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nabla::interp {

class Tracked;

// The region capture under way on this thread (0: none): what Tracked objects record.
namespace object_scopes {
// The region and the capture under way on this thread (0: none). Read on every
// container made and every global written, so inline.
inline thread_local uint32_t region = 0;
inline thread_local uint32_t capture = 0;
}  // namespace object_scopes
inline uint32_t current_object_region() { return object_scopes::region; }

// While alive, objects made on this thread belong to a fresh region; restores the
// enclosing one after.
class ObjectRegionScope {
 public:
  ObjectRegionScope();
  ~ObjectRegionScope();
  ObjectRegionScope(const ObjectRegionScope&) = delete;
  ObjectRegionScope& operator=(const ObjectRegionScope&) = delete;

 private:
  uint32_t saved_;
  std::vector<const Tracked*> saved_growable_;
};

// The compile() capture under way on this thread (0: none), what Tracked objects
// record; a capture nested in another has a larger number. The scope that sets it is
// CaptureReadScope (interp/eval/capture_reads.hpp): Note [What a capture read].
inline uint32_t current_capture() { return object_scopes::capture; }
inline void set_current_capture(uint32_t capture) { object_scopes::capture = capture; }
uint32_t next_capture_number();

// An outside list the current region may append to (a scan's stacked output).
void allow_appends_in_region(const Tracked* list);

// Fails when a region captures and `obj` was made outside it; `what` names the change
// ("append to a list").
void check_change_in_region(const Tracked& obj, const std::string& what, bool appends = false);
// Fails when compile() captures and `obj` (a model, a module's globals, an enclosing
// frame) was made before: Note [What a capture read].
void check_change_in_capture(const Tracked& obj, const std::string& what);
// Both: a list, dict or object changed in place (append, d[k] = v, o.f = v) changes
// once, at the capture, when it was made outside the region or before the capture.
void check_change_in_compiled(const Tracked& obj, const std::string& what, bool appends = false);

}  // namespace nabla::interp
