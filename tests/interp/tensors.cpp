#include <atomic>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "autograd/op_table.hpp"
#include "helpers.hpp"

using nabla::testing::Session;

TEST_CASE("tensors: factories, promotion, attributes") {
  Session s;
  CHECK(s.run("let x = tensor([[1, 2], [3, 4]])\nprint(x.dtype, x.shape, x.ndim, x.numel(), x.sum().item())") ==
        "i64 (2, 2) 2 4 10\n");
  CHECK(s.run("let y = tensor([1.0, 2.0])\nprint((y * 2.5).dtype, (y + 1).dtype, (tensor([1, 2]) * 1.5).dtype, (tensor([1, 2]) + 1).dtype)") ==
        "f32 f32 f32 i64\n");
  CHECK(s.run("print(tensor([1.0], dtype=f64).dtype, zeros(2, 3).shape, ones([2]).tolist(), full([2], 7).tolist())") ==
        "f64 (2, 3) [1.0, 1.0] [7, 7]\n");
  CHECK(s.run("print(arange(4).tolist(), tensor([true, false]).dtype, tensor([[1, 2], [3, 4]]).T.tolist())") ==
        "[0, 1, 2, 3] bool [[1, 3], [2, 4]]\n");
  CHECK(s.run("let a = tensor([[1.0, 2.0], [3.0, 4.0]])\nprint((a @ a).tolist(), a.sum(dim=1).tolist(), a.mean(1, keepdim=true).shape)") ==
        "[[7.0, 10.0], [15.0, 22.0]] [3.0, 7.0] (2, 1)\n");
  CHECK(s.run("let (v, i) = max(tensor([[1.0, 5.0], [7.0, 2.0]]), 1)\nprint(v.tolist(), i.tolist(), argmax(tensor([1, 9, 3])).item())") ==
        "[5.0, 7.0] [1, 0] 1\n");
  CHECK(s.run("print(relu(tensor([-1.0, 2.0])).tolist(), tensor([-1.0, 2.0]).relu().tolist(), clamp(tensor([-2.0, 2.0]), min=-1).tolist())") ==
        "[0.0, 2.0] [0.0, 2.0] [-1.0, 2.0]\n");
  CHECK(s.run("print(cross_entropy(tensor([[0.0, 0.0]]), tensor([1]), reduction='sum').item() > 0.69)") == "true\n");
  CHECK(s.run("let p = split(arange(5), 2)\nprint(len(p), p[2].tolist(), cat([ones(1), zeros(1)]).tolist())") == "3 [4] [1.0, 0.0]\n");
  CHECK(s.error("zeros([2, 3]) @ zeros([2, 3])").find("t.dsl:1:1: error: matmul:") == 0);
}

TEST_CASE("tensor indexing with gradients") {
  Session s;
  CHECK(s.run(R"(
let x = arange(12).float().reshape(3, 4)
print(x[1].tolist(), x[-1, 2].item(), x[:, 1].tolist(), x[0, 1:3].tolist(), x[..., 0].tolist())
print(x[none].shape, x[:, none, 1].shape, x[::2, ::3].tolist())
print(x[x > 8].tolist(), x[tensor([2, 0])][:, 0].tolist(), x[[0, 0]].shape)
)") == "[4.0, 5.0, 6.0, 7.0] 10.0 [1.0, 5.0, 9.0] [1.0, 2.0] [0.0, 4.0, 8.0]\n"
       "(1, 3, 4) (3, 1) [[0.0, 3.0], [8.0, 11.0]]\n"
       "[9.0, 10.0, 11.0] [8.0, 0.0] (2, 4)\n");
  // Gradients flow back through every kind of index.
  CHECK(s.run(R"(
let w = ones([3, 4], requires_grad=true)
let y = w[1, 1:3].sum() * 2 + w[w > 0][0] + w[tensor([2, 2])][:, 3].sum()
y.backward()
print(w.grad.tolist())
)") == "[[1.0, 0.0, 0.0, 0.0], [0.0, 2.0, 2.0, 0.0], [0.0, 0.0, 0.0, 2.0]]\n");
  CHECK(s.run(R"(
let z = zeros([2, 3])
z[0] = 1
z[:, 2] = tensor([5.0, 6.0])
z[z == 0] = 9
print(z.tolist())
)") == "[[1.0, 1.0, 5.0], [9.0, 9.0, 6.0]]\n");
  CHECK(s.error("zeros([2])[5]").find("index 5 is out of range for dim 0 of a tensor of length 2") != std::string::npos);
}

TEST_CASE("autograd from the language: backward, grad, create_graph, hooks, no_grad") {
  Session s;
  CHECK(s.run(R"(
let x = tensor([2.0], requires_grad=true)
let y = x ** 3
let d1 = grad(y.sum(), x, create_graph=true)
let d2 = grad(d1.sum(), x)
print(d1.tolist(), d2.tolist())
)") == "[12.0] [12.0]\n");
  CHECK(s.run(R"(
let a = tensor([1.0, 2.0], requires_grad=true)
let seen = []
let h = a.register_hook(fn(g) = g * 10)
(a * a).sum().backward()
print(a.grad.tolist(), a.is_leaf, (a * 2).grad_fn, a.grad_fn)
h.remove()
a.grad = none
(a * a).sum().backward()
print(a.grad.tolist())
no_grad {
  let b = a * 2
  print(b.requires_grad)
}
)") == "[20.0, 40.0] true MulBackward none\n[2.0, 4.0]\nfalse\n");
  CHECK(s.error("profile(1) { }").find("profile takes keyword arguments only (sort, group, rows, trace, print)") !=
        std::string::npos);
}

TEST_CASE("models: fields, parameters, forward, printing") {
  Session s;
  CHECK(s.run(R"(
model Linear(d_in, d_out, bias=true) {
  weight = randn([d_out, d_in], requires_grad=true)
  b = zeros([d_out], requires_grad=true) if bias else none
  forward(x) {
    let y = x @ weight.T
    return y + b if b != none else y
  }
}
model MLP(d_in, d_hidden, d_out) {
  fc1 = Linear(d_in, d_hidden)
  fc2 = Linear(d_hidden, d_out)
  steps = zeros([1])
  name = "mlp"
  forward(x) = self.fc2(relu(fc1(x)))
  count() {
    steps = steps + 1
    return steps.item()
  }
}
manual_seed(0)
let m = MLP(4, 8, 2)
let out = m(randn([3, 4]))
print(out.shape, len(m.parameters()), m.name, m.count(), m.count())
for (n, p) in m.named_parameters() { print(n, p.shape) }
print(m)
let loss = out.sum()
loss.backward()
print(m.fc1.weight.grad.shape, m.fc2.b.grad.tolist())
)") == "(3, 2) 4 mlp 1.0 2.0\n"
       "fc1.weight (8, 4)\nfc1.b (8,)\nfc2.weight (2, 8)\nfc2.b (2,)\n"
       "MLP(\n  d_in=4, d_hidden=8, d_out=2\n"
       "  (fc1): Linear(d_in=4, d_out=8, bias=true)  # 40 parameters\n"
       "  (fc2): Linear(d_in=8, d_out=2, bias=true)  # 18 parameters\n"
       ")  # 58 parameters in total\n"
       "(8, 4) [3.0, 3.0]\n");
  CHECK(s.error("model A() { forward(x) = x }\nA().nope").find("model A has no attribute 'nope'") != std::string::npos);
}

TEST_CASE("custom differentiable function and gradcheck") {
  Session s;
  CHECK(s.run(R"(
function Square {
  forward(ctx, x) {
    ctx.save(x)
    return x * x
  }
  backward(ctx, g) {
    let (x,) = ctx.saved
    return 2 * x * g
  }
}
let x = tensor([1.0, -2.0, 3.0], dtype=f64, requires_grad=true)
let y = Square(x)
print(y.grad_fn)
y.sum().backward()
print(x.grad.tolist())
print(gradcheck(Square, x))
let d = grad(Square(x).sum(), x, create_graph=true)
print(grad(d.sum(), x).tolist())
function Bad {
  forward(ctx, x) = x * x
  backward(ctx, g) = g
}
print(gradcheck(Bad, x))
)").find("SquareBackward\n[2.0, -4.0, 6.0]\ntrue\n[2.0, 2.0, 2.0]\n"
             "gradcheck: input 0 element 0: analytic ") == 0);
}

TEST_CASE("every op of the table is reachable by name") {
  Session s;
  for (const nabla::OpDef& row : nabla::op_table()) {
    CAPTURE(row.name);
    CHECK(s.echo(std::string("type(") + row.name + ")") == "'builtin'");
  }
  CHECK(s.run(R"(
let x = randn([2, 3], requires_grad=true)
let checks = [exp(x), log(abs(x) + 1), sqrt(abs(x)), rsqrt(abs(x) + 1), sign(x), sin(x), cos(x), tanh(x),
  sigmoid(x), gelu(x), silu(x), erf(x), neg(x), maximum(x, 0.0), minimum(x, 0.0), where(x > 0, x, 0.0),
  pow(x, 2), var(x), std(x, dim=1), logsumexp(x, dim=1), softmax(x, dim=1), log_softmax(x, 1),
  transpose(x, 0, 1), permute(x, 1, 0), x.view(3, 2), x.reshape([6]), expand(x[0:1], [4, 3]), squeeze(x[none]),
  unsqueeze(x, 0), slice(x, 1, 0, 2), select(x, 0, 1), to_dtype(x, f64), contiguous(x.T), x.flatten(),
  linear(x, ones([4, 3])), mse_loss(x, zeros([2, 3])), layer_norm(x, [3]), dropout(x, 0.5, training=false),
  stack([x, x]), gather(x, 1, tensor([[0], [1]])), index_select(x, 1, tensor([2])), embedding(tensor([1, 0]), x),
  nll_loss(log_softmax(x, 1), tensor([0, 2])), binary_cross_entropy(sigmoid(x), ones([2, 3])),
  binary_cross_entropy_with_logits(x, ones([2, 3])), scatter_add(zeros([2, 3]), 1, tensor([[0], [1]]), x[:, 0:1]),
  conv2d(randn([1, 1, 4, 4]), randn([2, 1, 3, 3]), padding=1), max_pool2d(randn([1, 1, 4, 4]), 2),
  avg_pool2d(randn([1, 1, 4, 4]), kernel_size=2, stride=2),
  batch_norm(randn([4, 3]), zeros([3]), ones([3]), training=true)]
let total = 0.0
for c in checks { total = total + c.float().sum().item() * 0 }
print(len(checks), total)
)") == "50 0.0\n");
}

TEST_CASE("test blocks: expect, expect_close, expect_error") {
  const char* path = "/tmp/nabla_interp_tests.dsl";
  {
    std::ofstream f(path);
    f << R"(let base = 2
test "passes" {
  expect(base == 2)
  expect_close(tensor([1.0, 2.0]), [1.0, 2.0 + 1e-7])
  expect_error("1 + 'a'", "cannot add")
}
test "fails twice" {
  expect(base == 3, "base is 3")
  expect_close(0.5, 0.6)
}
test "raises" {
  let q = undefined_thing
}
test "after" {
  expect(true)
}
)";
  }
  nabla::Interpreter interp;
  nabla::TestReport r = interp.run_tests(path);
  CHECK(r.passed == 2);
  CHECK(r.failed == 2);
  REQUIRE(r.failures.size() == 3);
  CHECK(r.failures[0].find("test \"fails twice\": /tmp/nabla_interp_tests.dsl:8:3: error: expectation failed: base is 3") == 0);
  CHECK(r.failures[1].find("expect_close failed at element 0: 0.5 vs 0.6") != std::string::npos);
  CHECK(r.failures[2].find("undefined name 'undefined_thing'") != std::string::npos);
}

TEST_CASE("interrupt stops a loop and keeps globals") {
  Session s;
  s.run("let before = 41");
  std::thread t([&] {
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    s.interp.interrupt();
  });
  std::string e = s.error("let i = 0\nwhile true { i = i + 1 }");
  t.join();
  CHECK(e.find("interrupted") != std::string::npos);
  CHECK(s.interp.number("before") == 41);
  CHECK(s.interp.number("i").value_or(0) > 0);
  CHECK(s.run("print(before + 1)") == "42\n");
}

TEST_CASE("embedding API") {
  Session s;
  s.run("let w = ones([2])\nlet k = 3\nlet name = 'n'\nfn f() = 1");
  CHECK(s.interp.has("w"));
  CHECK(!s.interp.has("nothing"));
  CHECK(s.interp.tensor("w")->numel() == 2);
  CHECK(s.interp.number("k") == 3);
  CHECK(s.interp.str("name") == "n");
  auto names = s.interp.global_names();
  for (const char* n : {"f", "k", "name", "w", "print", "randn"})
    CHECK_MESSAGE(std::find(names.begin(), names.end(), n) != names.end(), n);
  auto members = s.interp.member_names("w");
  CHECK(std::find(members.begin(), members.end(), "backward") != members.end());
  s.interp.set_args({"a", "b"});
  CHECK(s.run("print(args)") == "['a', 'b']\n");
}
