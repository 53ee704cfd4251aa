// Note [Objects changed inside a lowered region] (object_regions.hpp).
#include "interp/values/object_regions.hpp"

#include "interp/eval/evaluator.hpp"
#include "interp/values/cycles.hpp"

namespace nabla::interp {

namespace {

thread_local uint32_t t_region = 0;
thread_local std::vector<const Tracked*> t_growable;
uint32_t next_region = 0;  // regions are captured on the evaluator's thread

}  // namespace

uint32_t current_object_region() { return t_region; }

ObjectRegionScope::ObjectRegionScope() : saved_(t_region), saved_growable_(t_growable) {
  t_region = ++next_region;
  if (t_region == 0) t_region = ++next_region;  // after 2^32 regions, 0 still means none
  t_growable.clear();
}

ObjectRegionScope::~ObjectRegionScope() {
  t_region = saved_;
  t_growable = std::move(saved_growable_);
}

void allow_appends_in_region(const Tracked* list) { t_growable.push_back(list); }

void check_change_in_region(const Tracked& obj, const std::string& what, bool appends) {
  if (t_region == 0 || obj.region() == t_region) return;
  if (appends)
    for (const Tracked* list : t_growable)
      if (list == &obj) return;
  fail("a lowered loop or branch (compile, script mode) runs its body once, while capturing, so it cannot " + what +
       " made outside it: the change would happen once, not at every step or in the branch taken. Assign a variable "
       "instead and use it after the statement (a for over a range or rows may append one tensor per step to a list)");
}

}  // namespace nabla::interp
