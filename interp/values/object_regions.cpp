// Note [Objects changed inside a lowered region] (object_regions.hpp).
#include "interp/values/object_regions.hpp"

#include "interp/eval/evaluator.hpp"
#include "interp/values/cycles.hpp"

namespace nabla::interp {

namespace {

thread_local std::vector<const Tracked*> t_growable;
uint32_t next_region = 0;  // regions are captured on the evaluator's thread
uint32_t last_capture = 0;

}  // namespace

uint32_t next_capture_number() {
  if (++last_capture == 0) ++last_capture;  // after 2^32 captures, 0 still means none
  return last_capture;
}

ObjectRegionScope::ObjectRegionScope() : saved_(object_scopes::region), saved_growable_(t_growable) {
  object_scopes::region = ++next_region;
  if (object_scopes::region == 0) object_scopes::region = ++next_region;  // after 2^32 regions, 0 still means none
  t_growable.clear();
}

ObjectRegionScope::~ObjectRegionScope() {
  object_scopes::region = saved_;
  t_growable = std::move(saved_growable_);
}

void allow_appends_in_region(const Tracked* list) { t_growable.push_back(list); }

void check_change_in_capture(const Tracked& obj, const std::string& what) {
  // Note [What a capture read] (interp/eval/capture_reads.hpp): compile() runs the
  // function once, so a change to an object made before it would happen once.
  if (object_scopes::capture != 0 && obj.capture() < object_scopes::capture)
    fail("compile() runs the function once, while capturing, so it cannot " + what +
         " made before the call: the graph would not make the change again at later calls. Return the new "
         "value instead, or change it outside the compiled function (or under `if not is_compiling() { }`)");
}

void check_change_in_compiled(const Tracked& obj, const std::string& what, bool appends) {
  check_change_in_region(obj, what, appends);
  check_change_in_capture(obj, what);
}

void check_change_in_region(const Tracked& obj, const std::string& what, bool appends) {
  if (object_scopes::region == 0 || obj.region() == object_scopes::region) return;
  if (appends)
    for (const Tracked* list : t_growable)
      if (list == &obj) return;
  fail("a lowered loop or branch (compile, script mode) runs its body once, while capturing, so it cannot " + what +
       " made outside it: the change would happen once, not at every step or in the branch taken. Assign a variable "
       "instead and use it after the statement (a for over a range or rows may append one tensor per step to a list)");
}

}  // namespace nabla::interp
