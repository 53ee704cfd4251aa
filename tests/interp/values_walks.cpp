// Walks over values that hold themselves or nest deeply (issue 25 item 3, Note [Walks
// over nested values] in interp/values/value_walk.hpp): printing shows a cycle as Python
// does, comparisons of cycles are errors naming the operation, and a deep value either
// works or fails cleanly when the stack runs short (checked on a small stack).

#include <functional>
#include <memory>
#include <string>

#include "helpers.hpp"
#include "interp/builtins/builtins_internal.hpp"
#include "interp/values/value.hpp"
#include "interp/values/value_walk.hpp"
#include "stack_thread.hpp"

using namespace nabla::interp;
using nabla::testing::Session;

namespace {

// What f threw on a thread with a 1 MiB stack, half of it the guard's reserve ("" if
// nothing).
std::string on_small_stack(const std::function<void()>& f) { return nabla::testing::error_with_stack(1 << 20, f); }

Value deep_list(int n) {
  Value l = make_list({Value::integer(1)});
  for (int k = 0; k < n; ++k) l = make_list({l});
  return l;
}

Value self_list() {
  Value l = make_list();
  l.as<ListObj>()->items.push_back(l);
  return l;
}

// Breaks the cycle again so that the test leaks nothing.
void unlink(Value& l) { l.as<ListObj>()->items.clear(); }

}  // namespace

TEST_CASE("walks: repr of containers that hold themselves, at any distance") {
  Value l = self_list();
  CHECK(repr(l) == "[[...]]");
  CHECK(str(l) == "[[...]]");
  Value a = make_list(), b = make_list({a});
  a.as<ListObj>()->items.push_back(b);
  CHECK(repr(a) == "[[[...]]]");
  auto d = std::make_shared<DictObj>();
  Value dv = Value::object(Tag::Dict, d);
  d->set(make_str("me"), make_tuple({dv, make_str("x")}));
  CHECK(repr(dv) == "{'me': ({...}, 'x')}");
  CHECK(repr(make_list({l, l})) == "[[[...]], [[...]]]");  // the same list twice is not a cycle
  CHECK(holds_itself(l));
  CHECK(holds_itself(a));
  CHECK(holds_itself(dv));
  CHECK_FALSE(holds_itself(make_list({make_list(), make_list()})));
  unlink(l);
  unlink(a);
  d->entries.clear();
  d->index.clear();
}

TEST_CASE("walks: comparing cycles is an error naming the operation; identity is equal") {
  Value a = self_list(), b = self_list();
  CHECK(values_equal(a, a));  // the same list: equal, as in Python
  auto error = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error([&] { values_equal(a, b); }) == "==: the list contains itself (a reference cycle)");
  CHECK(error([&] { values_equal(a, b, "in"); }) == "in: the list contains itself (a reference cycle)");
  CHECK(error([&] { compare_for_sort(a, b, "max()"); }) == "max(): the list contains itself (a reference cycle)");
  CHECK(walk_path(Walk::equality).size() == 0);  // the error left the walk's path empty
  CHECK(walk_path(Walk::order).size() == 0);
  unlink(a);
  unlink(b);
}

TEST_CASE("walks: deep values compare, hash and print, or fail cleanly on a short stack") {
  // 2000 levels fit a 1 MiB stack; a million do not: the guard stops the walk.
  CHECK(on_small_stack([] {
          Value x = deep_list(2000), y = deep_list(2000);
          CHECK(values_equal(x, y));
          CHECK(compare_for_sort(x, y) == 0);
          CHECK(repr(x).size() == 2 * 2000 + 3);
        }) == "");
  Value x = deep_list(1000000), y = deep_list(1000000);
  std::string eq = on_small_stack([&] { values_equal(x, y); });
  CHECK(eq.find("==: the list is nested too deeply") == 0);
  std::string order = on_small_stack([&] { compare_for_sort(x, y, "sorted()"); });
  CHECK(order.find("sorted(): the list is nested too deeply") == 0);
  std::string printed = on_small_stack([&] { repr(x); });
  CHECK(printed.find("printing: the list is nested too deeply") == 0);
  Value t = make_tuple();
  for (int k = 0; k < 1000000; ++k) t = make_tuple({t});
  std::string hashed = on_small_stack([&] { ValueHash()(t); });
  CHECK(hashed.find("dict key: the tuple is nested too deeply") == 0);
  CHECK(on_small_stack([&] { check_dict_key(t); }) == "");  // iterative
}

TEST_CASE("walks: the language prints cycles and refuses to compare them") {
  Session s;
  CHECK(s.run("let l = []\nl.append(l)\nprint(l, f\"{l}\", str(l))") == "[[...]] [[...]] [[...]]\n");
  CHECK(s.run("let d = {}\nd['d'] = [d]\nprint(d)") == "{'d': [{...}]}\n");
  CHECK(s.echo("l") == "[[...]]");
  std::string e = s.error("let m = []\nm.append(m)\nprint(l == m)");
  CHECK(e.find("==: the list contains itself (a reference cycle)") != std::string::npos);
  CHECK(s.error("sorted([l, m])").find("sorted(): the list contains itself") != std::string::npos);
  CHECK(s.error("let k = {}\nk[(1, [2])] = 3").find("unhashable type: 'list'") != std::string::npos);
  CHECK(s.run("print(len(l), l == l, l[0][0] == l)") == "1 true true\n");  // the REPL goes on
}

TEST_CASE("walks: a model that holds itself prints once, and counts its parameters once") {
  Session s;
  s.run("import nn\nmodel Pair() {\n  a = nn.Linear(2, 2)\n  b = a\n  forward(x) = x\n}\nlet p = Pair()\np.me = p");
  std::string out = s.run("print(p)");
  CHECK(out.find("(me): Pair(...)") != std::string::npos);
  CHECK(out.find("# 6 parameters in total") != std::string::npos);  // a and b are one layer
}
