// The cycle collector (Note [Reference cycles] in interp/values/cycles.hpp): cycles of
// values that hold a tensor must give the tensor's memory back once nothing outside
// reaches them (after the eval, or when the interpreter goes), and nothing that is
// still reachable may be freed. The CPU allocator's live bytes tell.
#include <memory>
#include <string>

#include "helpers.hpp"
#include "tensor/allocator.hpp"

using nabla::testing::Session;

namespace {

size_t live_bytes() { return nabla::CpuAllocator::instance().stats().allocated; }

constexpr size_t kTensorBytes = 4000000;  // zeros([1000000]): 4 MB of f32

}  // namespace

TEST_CASE("cycles: closures kept in their own frame are freed after the eval") {
  Session s;
  s.run("fn make() {\n  let t = zeros([1000000])\n  let keep = fn() = t.sum()\n  return 0\n}");
  size_t before = live_bytes();
  s.run("for i in range(10) { make() }");
  CHECK(live_bytes() < before + kTensorBytes);  // ten frames, each holding 4 MB, were cycles
}

TEST_CASE("cycles: a list that holds itself, a model that holds its bound method") {
  Session s;
  size_t before = live_bytes();
  s.run("let l = [zeros([1000000])]\nl.append(l)");
  s.run("model M() {\n  w = zeros([1000000])\n  forward(x) = x\n}\nlet m = M()\nm.again = m\nm.f = m.forward");
  CHECK(live_bytes() >= before + 2 * kTensorBytes);  // still reachable: kept
  CHECK(s.run("print(len(l[1][1]), m.again.again.w.shape)") == "2 (1000000,)\n");
  s.run("l = none\nm = none");
  CHECK(live_bytes() < before + kTensorBytes);
}

TEST_CASE("cycles: a closure that escapes keeps its frame") {
  Session s;
  s.run("fn counter() {\n  let n = 0\n  fn step() {\n    n = n + 1\n    return n\n  }\n  return step\n}\nlet c = counter()");
  CHECK(s.run("print(c(), c(), c())") == "1 2 3\n");  // the frame survived the collections in between
  s.run("fn holder() {\n  let t = ones([1000000])\n  let get = fn() = t\n  return get\n}\nlet g = holder()");
  CHECK(s.run("print(g().sum().item())") == "1000000.0\n");
}

TEST_CASE("cycles: a module and its functions are freed with the interpreter") {
  size_t before = live_bytes();
  {
    Session s;
    s.run("import nn\nlet w = zeros([1000000])\nfn uses_w() = w.sum()\nlet layer = nn.Linear(1000, 1000)");
    CHECK(live_bytes() >= before + kTensorBytes);
  }
  CHECK(live_bytes() < before + kTensorBytes);  // the module <-> function cycle held w and the layer
}
