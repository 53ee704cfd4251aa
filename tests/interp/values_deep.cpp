// Deep values (issue 25 item 1): freeing a value nested a million deep must not
// recurse per level (Note [Freeing deep values] in interp/values/value.cpp), through every
// kind of value that holds values, and neither may the cycle collector nor the
// interpreter's teardown. The chains are built and freed on a thread with a small
// stack, so that a free that recursed per level would overflow it whatever the
// process's stack limit is.

#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

#include "helpers.hpp"
#include "interp/values/cycles.hpp"
#include "interp/values/value.hpp"
#include "stack_thread.hpp"

using namespace nabla::interp;
using nabla::testing::Session;

namespace {

constexpr int kDeep = 1000000;

// What f threw on a thread whose stack is `stack_bytes` ("" if nothing).
std::string on_small_stack(const std::function<void()>& f, size_t stack_bytes = 512 * 1024) {
  return nabla::testing::error_with_stack(stack_bytes, f);
}

Value deep_list(int n) {
  Value l = make_list();
  for (int k = 0; k < n; ++k) l = make_list({l});
  return l;
}

}  // namespace

TEST_CASE("values: lists, tuples and dicts nested 10^6 deep are freed without recursion") {
  CHECK(on_small_stack([] {
          Value l = deep_list(kDeep);
          l = Value();  // freed here, on a 512 KiB stack
          Value t = make_tuple();
          for (int k = 0; k < kDeep; ++k) t = make_tuple({t, Value::integer(k)});
          t = Value();
          Value d = Value::object(Tag::Dict, std::make_shared<DictObj>());
          for (int k = 0; k < kDeep; ++k) {
            auto next = std::make_shared<DictObj>();
            next->set(make_str("next"), d);
            d = Value::object(Tag::Dict, next);
          }
        }) == "");  // d goes out of scope at the end of the job
}

TEST_CASE("values: chains through bound methods, objects, functions' defaults and models' fields") {
  CHECK(on_small_stack([] {
          Value bound, object, func, mixed;
          for (int k = 0; k < kDeep / 4; ++k) {
            auto b = std::make_shared<BoundObj>();
            b->self = bound;
            bound = Value::object(Tag::Bound, b);
            auto o = std::make_shared<ObjectObj>();
            o->set("next", object);
            object = Value::object(Tag::Object, o);
            auto f = std::make_shared<FuncObj>();
            f->defaults.push_back(func);
            func = Value::object(Tag::Func, f);
            // A chain that changes kind at every level.
            Value step = k % 3 == 0 ? make_list({mixed}) : k % 3 == 1 ? make_tuple({mixed}) : Value::object(Tag::Bound, [&] {
              auto m = std::make_shared<BoundObj>();
              m->self = mixed;
              return m;
            }());
            mixed = step;
          }
        }) == "");
}

TEST_CASE("values: a wide list of small lists frees each directly, and shared items survive") {
  Value shared = make_list({Value::integer(7)});
  {
    std::vector<Value> items;
    for (int k = 0; k < 100000; ++k) items.push_back(make_list({shared, deep_list(3)}));
    Value wide = make_list(std::move(items));
  }
  CHECK(shared.as<ListObj>()->items.size() == 1);
  CHECK(shared.o.use_count() == 1);
}

TEST_CASE("values: the cycle collector and release_all handle a 10^6-long cycle on a small stack") {
  CHECK(on_small_stack([] {
          CycleRegistry registry;
          {
            CycleRegistry::Scope scope(&registry);
            Value head = make_list();
            Value tail = head;
            for (int k = 0; k < kDeep; ++k) {
              Value next = make_list();
              tail.as<ListObj>()->items.push_back(next);
              tail = next;
            }
            tail.as<ListObj>()->items.push_back(head);  // closes the cycle
            CHECK(registry.collect() == 0);             // held from here: nothing is garbage
          }
          CHECK(registry.collect() == static_cast<size_t>(kDeep + 1));
          CHECK(registry.size() == 0);
          {
            CycleRegistry::Scope scope(&registry);
            Value kept = deep_list(kDeep);
            registry.release_all();  // the teardown: empties every list, frees nothing held
            CHECK(kept.as<ListObj>()->items.empty());
          }
        }) == "");
}

TEST_CASE("values: an interpreter frees deep globals at teardown and at reset") {
  Session s;
  s.run("let l = []\nfor i in range(300000) { l = [l, {'k': (l,)}] }");
  s.interp.reset();
  CHECK(s.run("print('after')") == "after\n");
  s.run("let d = {}\nfor i in range(300000) { d = {'d': d} }");
}  // the interpreter goes here, freeing d on this (main) thread

// Note [Checked casts] (interp/values/value.hpp): reaching a value's object as another
// kind is an error that names both kinds, never a read through a wrong pointer.
TEST_CASE("as<T>() checks the value's kind") {
  Value list = make_list({Value::integer(1)});
  CHECK(list.as<ListObj>()->items.size() == 1);
  Value tuple = make_tuple({Value::integer(1)});
  CHECK(tuple.as<ListObj>()->items.size() == 1);  // a tuple is a ListObj too
  CHECK_THROWS_WITH(Value::integer(3).as<ListObj>(),
                    doctest::Contains("internal error: expected a list or tuple value, found int"));
  CHECK_THROWS_WITH(list.as<DictObj>(), doctest::Contains("expected a dict value, found list"));
  CHECK_THROWS_WITH(Value().as<StrObj>(), doctest::Contains("expected a str value, found none"));
  CHECK(list.as<Obj>() != nullptr);  // a plain Obj* fits any object
}
