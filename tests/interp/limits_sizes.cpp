// Unbounded work the limits did not see (issue 25, item 7): builtins that build a big
// str, list or tensor from a count ask first (Note [Host memory budget] in
// tensor/allocator.cpp), so they fail at once, under --max-memory with the budget's
// error; shape arithmetic that overflows is an error naming the op (Note [Shape
// arithmetic] in autograd/ops/common.hpp). Each case must fail in well under a second:
// before the fix some grew memory for tens of seconds.
#include <chrono>
#include <string>

#include "helpers.hpp"
#include "tensor/allocator.hpp"

using nabla::testing::Session;

namespace {

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

nabla::Limits memory(size_t bytes) {
  nabla::Limits l;
  l.max_memory = bytes;
  return l;
}

// The error of `code`, which must come within a second.
std::string quick_error(Session& s, const std::string& code) {
  auto start = std::chrono::steady_clock::now();
  std::string e = s.error(code);
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  CHECK_MESSAGE(seconds < 1.0, code << " took " << seconds << " s");
  return e;
}

}  // namespace

TEST_CASE("sizes: a huge str, list or tuple from a count fails before it grows") {
  Session s;
  for (const std::string& code :
       {"let v = \"ab\" * 4611686018427387904", "let v = 4611686018427387904 * \"ab\"", "let v = [1, 2] * 2000000000000",
        "let v = (1, 2) * 4611686018427387904", "let v = list(range(1000000000000))",
        "let v = sorted(range(1000000000000))", "let v = (\"ab\" * 1000000).replace(\"a\", \"x\" * 1000000)",
        "let v = (\" \" * 1000000).join([\"a\"] * 1000000)", "let v = tuple(range(10 ** 13))"})
    CHECK_MESSAGE(contains(quick_error(s, code), "error: out of memory:"), code);
  CHECK(contains(quick_error(s, "let v = \"ab\" * 4611686018427387904"),
                 "out of memory: a str needs 4611686018427387904 x 2 bytes, more than any machine has (2^62)"));
  CHECK(contains(quick_error(s, "let v = [0] * 1099511627776"), "on the CPU for a list"));
  // Small ones are as before; a count <= 0 is empty.
  CHECK(s.run("print(\"ab\" * 3, [0] * 2, (1,) * 2, \"x\" * -4, [1] * 0, \"-\".join([\"a\", \"b\"]))") ==
        "ababab [0, 0] (1, 1)  [] a-b\n");
  CHECK(s.run("print(\"aXbXc\".replace(\"X\", \"--\"), [1] + [2], \"a\" + \"b\")") == "a--b--c [1, 2] ab\n");
}

TEST_CASE("sizes: tensors from a count fail before they fill") {
  Session s;
  for (const std::string& code :
       {"let v = linspace(0, 1, 4611686018427387904)", "let v = arange(0, 4611686018427387904, 1)",
        "let v = zeros([3037000500, 3037000500])", "let v = full([4611686018427387904], 1.0)",
        "let v = randint(0, 10, [4611686018427387904])", "let v = ones([1]).expand([4611686018427387904]) + 1"})
    CHECK_MESSAGE(contains(quick_error(s, code), "error: "), code);
  CHECK(contains(s.error("let v = linspace(0, 1, -1)"), "linspace(): steps must be non-negative, got -1"));
  CHECK(s.run("print(linspace(0, 1, 5), linspace(2, 3, 1), linspace(0, 1, 0).shape)") ==
        "tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000]) tensor([2.]) (0,)\n");
}

TEST_CASE("sizes: strings and lists built from a count are checked against --max-memory") {
  Session s;
  s.interp.set_limits(memory(size_t(10) << 20));
  std::string e = s.error("let v = \"a\" * 20000000");
  CHECK(contains(e, "t.dsl:1:9: error: memory budget of 10485760 bytes exceeded: a str needs 20000000 bytes and "));
  CHECK(contains(s.error("let v = [0] * 1000000"), "memory budget of 10485760 bytes exceeded: a list needs 24000000 bytes"));
  CHECK(contains(s.error("let v = list(range(1000000))"), "a list of a range needs 24000000 bytes"));
  CHECK(contains(s.error("let v = (\"x\" * 200000).join([\"a\"] * 100)"), "a str needs 19800100 bytes"));
  // The tensors in use count: 8 MiB of tensors leave no room for a 3 MB string.
  e = s.error("let t = zeros([2000000])\nlet v = \"a\" * 3000000");
  CHECK(contains(e, "a str needs 3000000 bytes and 8"));
  // Under the budget all is as usual, and the session goes on.
  CHECK(s.run("let v = \"a\" * 1000\nprint(len(v), len([0] * 1000))") == "1000 1000\n");
}

TEST_CASE("sizes: live strings and lists count under --max-memory, and give their bytes back") {
  Session s;
  auto& a = nabla::CpuAllocator::instance();
  s.run("import nn\nlet m = nn.Linear(4, 3)");
  size_t before = a.host_bytes();
  MESSAGE("strings and lists of a session with nn imported: " << before << " bytes");
  CHECK(before < (size_t(1) << 20));
  s.run("let big = \"x\" * 10000000\nlet many = [0] * 1000000");
  CHECK(a.host_bytes() >= before + 10000000 + 24000000);
  s.run("big = none\nmany = none");
  CHECK(a.host_bytes() < before + (size_t(1) << 20));
  // Under a budget, a list grown by append and a string grown by + stop at it.
  s.interp.set_limits(memory(size_t(50) << 20));
  std::string e = quick_error(s, "let l = []\nwhile true { l.append(\"y\" * 100000) }");
  CHECK(contains(e, "t.dsl:2:23: error: memory budget of 52428800 bytes exceeded: a str needs 100000 bytes and "));
  CHECK(contains(e, " by strings and lists"));
  e = quick_error(s, "let n = []\nlet i = 0\nwhile true {\n  n.append(i)\n  i = i + 1\n}");
  CHECK(contains(e, "t.dsl:4:3: error: memory budget of 52428800 bytes exceeded: a list needs"));
  e = quick_error(s, "let t = \"\"\nwhile true { t = t + \"abcdefgh\" * 1000 }");
  CHECK(contains(e, "memory budget of 52428800 bytes exceeded: a str needs"));
  e = quick_error(s, "let d = [1]\nwhile true { d[0:0] = d }");
  CHECK(contains(e, "memory budget of 52428800 bytes exceeded: a list needs"));
  // What those loops made is given back; the session goes on under the budget.
  s.run("l = none\nn = none\nt = none\nd = none");
  CHECK(a.host_bytes() < before + (size_t(1) << 20));
  CHECK(s.run("print(len(\"z\" * 1000000))") == "1000000\n");
}

TEST_CASE("sizes: check_host_request names what it was asked for") {
  auto& a = nabla::CpuAllocator::instance();
  CHECK_NOTHROW(a.check_host_request(1000, 24, "a list"));
  CHECK_THROWS_WITH_AS(a.check_host_request(size_t(1) << 62, 8, "a list"),
                       "out of memory: a list needs 4611686018427387904 x 8 bytes, more than any machine has (2^62)",
                       nabla::Error);
  size_t saved = a.set_limit(4096);
  CHECK_THROWS_WITH_AS(a.check_host_request(5000, 1, "a str"),
                       doctest::Contains("memory budget of 4096 bytes exceeded: a str needs 5000 bytes"), nabla::Error);
  a.set_limit(saved);
}

TEST_CASE("sizes: shape arithmetic that overflows names the op") {
  Session s;
  const std::string big = "ones([1]).expand([4611686018427387904])";
  CHECK(contains(s.error("let v = cat([" + big + ", " + big + "])"),
                 "error: cat: the size 4611686018427387904 + 4611686018427387904 does not fit in 64 bits"));
  CHECK(contains(s.error("let v = stack([" + big + ", " + big + "])"), "stack: the shape [2, 4611686018427387904]"));
  CHECK(contains(s.error("let v = " + big + " + ones([3, 1]).expand([3, 4611686018427387904])"),
                 "has more elements than fit in 64 bits"));
  CHECK(contains(s.error("let v = matmul(ones([1, 1]).expand([4611686018427387904, 1]), ones([1, 1]).expand([1, "
                         "4611686018427387904]))"),
                 "matmul: the shape [4611686018427387904, 4611686018427387904] has more elements"));
  CHECK(contains(s.error("let v = zeros([0]).reshape([4611686018427387904, 4611686018427387904, -1])"),
                 "reshape: shape [4611686018427387904, 4611686018427387904, -1] has more elements than fit"));
  CHECK(contains(s.error("let v = zeros([0]).reshape([4611686018427387904, 0, -1])"),
                 "reshape: shape [4611686018427387904, 0, -1] is invalid for input of shape [0]"));
  CHECK(contains(s.error("let v = ones([4]).reshape([4611686018427387904, 4611686018427387904])"),
                 "reshape: shape [4611686018427387904, 4611686018427387904] has more elements than fit in 64 bits"));
  CHECK(contains(s.error("let v = conv2d(ones([1, 1, 4, 4]), ones([1, 1, 1, 1]), padding=4611686018427387904)"),
                 "conv2d: an input of size 4 with padding 4611686018427387904 and stride 1 gives an output size past "
                 "64 bits"));
  CHECK(contains(s.error("let v = conv2d(ones([1, 1, 4, 4]), ones([1, 1, 2, 2]), dilation=9223372036854775807)"),
                 "is 4x4 after padding, smaller than the more than 2^63x"));
  CHECK(contains(s.error("let v = max_pool2d(ones([1, 1, 4, 4]), 2, padding=4611686018427387904)"),
                 "max_pool2d: argument 'padding' (4611686018427387904x4611686018427387904) must be at most half"));
  // Slices with a step near 2**63 take one element.
  CHECK(s.run("let x = arange(4)\nprint(x[::9223372036854775807], x[1::4611686018427387904].shape)") ==
        "tensor([0]) (1,)\n");
  s.run("let w = ones([4], requires_grad=true)\nlet y = w[1::9223372036854775807].sum()\nbackward(y)");
  CHECK(s.run("print(w.grad)") == "tensor([0., 1., 0., 0.])\n");
}
