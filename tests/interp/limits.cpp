// Interpreter::set_limits: the step budget, the memory budget and sandbox mode (what
// the fuzzer of tests/fuzz/ runs untrusted programs under). Each limit must stop a
// program at its line with a clean error, and leave the interpreter usable.
#include <string>

#include "helpers.hpp"
#include "tensor/allocator.hpp"

using nabla::testing::Session;

namespace {

nabla::Limits steps(uint64_t n) {
  nabla::Limits l;
  l.max_steps = n;
  return l;
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("step budget: an endless loop is an error at its line") {
  Session s;
  s.interp.set_limits(steps(1000));
  std::string e = s.error("let x = 1\nwhile true { x = x + 1 }");
  CHECK(contains(e, "t.dsl:2:"));
  CHECK(contains(e, "error: step budget of 1000 exceeded"));
  // An empty body spends steps too (one per iteration), and so does recursion.
  CHECK(contains(s.error("while true {}"), "step budget of 1000 exceeded"));
  CHECK(contains(s.error("fn f(n) = f(n + 1)\nf(0)"), "step budget of 1000 exceeded"));
  CHECK(contains(s.error("for i in range(1000000) {}"), "step budget of 1000 exceeded"));
  // The state survives and each eval starts a new count.
  CHECK(s.run("print(x > 1)") == "true\n");
  CHECK(s.run("let n = 0\nfor i in range(300) { n = n + i }\nprint(n)") == "44850\n");
}

TEST_CASE("step budget: counts statements, iterations and calls exactly") {
  Session s;
  // 1 (let) + 1 (for) + 5 iterations + 5 statements in the body = 12 steps.
  const std::string program = "let n = 0\nfor i in range(5) { n = n + i }";
  s.interp.set_limits(steps(12));
  s.run(program);
  s.interp.set_limits(steps(11));
  CHECK(contains(s.error(program), "step budget of 11 exceeded"));
}

TEST_CASE("step budget: expect_error cannot swallow it for good") {
  Session s;
  s.interp.set_limits(steps(500));
  // expect_error catches the first overrun; the next statement fails again.
  std::string e = s.error("expect_error(\"while true {}\", \"budget\")\nlet after = 1");
  CHECK(contains(e, "t.dsl:2:1: error: step budget of 500 exceeded"));
}

TEST_CASE("step budget: off by default") {
  Session s;
  CHECK(s.run("let n = 0\nfor i in range(200000) { n = n + 1 }\nprint(n)") == "200000\n");
}

TEST_CASE("memory budget: a tensor past it is not allocated") {
  Session s;
  nabla::Limits l;
  l.max_memory = size_t{64} << 20;
  s.interp.set_limits(l);
  std::string e = s.error("let small = zeros([1000])\nlet big = zeros([100000, 1000])");
  CHECK(contains(e, "t.dsl:2:"));
  CHECK(contains(e, "memory budget of 67108864 bytes exceeded: a tensor needs 400000000 bytes"));
  CHECK(s.run("print(small.shape)") == "(1000,)\n");
  // Under the budget it works; the cap is gone once the eval ends.
  CHECK(s.run("let ok = zeros([1000, 1000])\nprint(ok.sum().item())") == "0.0\n");
  CHECK(nabla::CpuAllocator::instance().set_limit(0) == 0);
  // Many tensors that together pass it fail too.
  std::string many = s.error("let keep = []\nfor i in range(100) { keep.append(ones([1000, 1000])) }");
  CHECK(contains(many, "memory budget of 67108864 bytes exceeded"));
}

TEST_CASE("sandbox: builtins that reach outside fail by name") {
  Session s;
  nabla::Limits l;
  l.sandbox = true;
  s.interp.set_limits(l);
  const char* cases[][2] = {
      {"save({'w': zeros([2])}, '/tmp/nabla_sandbox.safetensors')", "save() is not available in sandbox mode"},
      {"load('/tmp/x.safetensors')", "load() is not available in sandbox mode"},
      {"load_metadata('/tmp/x.safetensors')", "load_metadata() is not available in sandbox mode"},
      {"read_text('/etc/hostname')", "read_text() is not available in sandbox mode"},
      {"render_autograd(zeros([2]), '/tmp/x.dot')", "render_autograd() is not available in sandbox mode"},
      {"import data\ndata.read_idx('/tmp/x.idx')", "data.read_idx() is not available in sandbox mode"},
      {"import data\ndata.read_csv('/tmp/x.csv')", "data.read_csv() is not available in sandbox mode"},
      {"import data\ndata.file_exists('/etc/hostname')", "data.file_exists() is not available in sandbox mode"},
      {"import dist\ndist.init()", "dist.init() is not available in sandbox mode"},
      {"import time\ntime.sleep(100)", "time.sleep() is not available in sandbox mode"},
      {"import \"other.dsl\"", "import \"other.dsl\" is not available in sandbox mode"},
      {"import no_such_module", "import no_such_module is not available in sandbox mode"},
      {"fn f(x) = x * 2\nlet gm = compile(f, zeros([2]))\ngm.render('/tmp/x.dot')", "render() is not available"},
      {"profile(trace='/tmp/x.json', print=false) { zeros([2]) }", "profile(trace=...) is not available"},
      {"profile(print=false) { zeros([2]) }\nlast_profile().export_chrome_trace('/tmp/x.json')",
       "export_chrome_trace() is not available"},
  };
  for (auto& c : cases) {
    INFO(c[0]);
    CHECK(contains(s.error(c[0]), c[1]));
  }
  // The embedded standard library still imports and runs.
  CHECK(s.run("import nn\nlet m = nn.Linear(2, 3)\nprint(m(zeros([1, 2])).shape)") == "(1, 3)\n");
}
