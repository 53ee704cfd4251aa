#include "helpers.hpp"

using nabla::testing::Session;

TEST_CASE("arithmetic and promotion") {
  Session s;
  CHECK(s.run("print(1 + 2, 7 / 2, 7 // 2, -7 // 2, 7 % 3, -7 % 3, 2 ** 10, 2 ** -1)") == "3 3.5 3 -4 1 2 1024 0.5\n");
  CHECK(s.run("print(1.5 * 2, 0.1 + 0.2, 1e20, 1.0, true + 1, 3 == 3.0)") == "3.0 0.30000000000000004 1e+20 1.0 2 true\n");
  CHECK(s.run("print(1 < 2, 2 <= 1, 'a' < 'b', [1, 2] == [1, 2], (1, 2) != (1, 3))") == "true false true true true\n");
  CHECK(s.run("print(true and 3, 0 or 'x', not 0, none or 5)") == "3 x true 5\n");
  CHECK(s.run("print(1 if 2 > 1 else 0, 3 in [1, 2, 3], 'b' in 'abc', 4 not in range(4))") == "1 true true true\n");
  CHECK(s.echo("2 ** 3 ** 2") == "512");
  CHECK(s.echo("'hi'") == "'hi'");
  CHECK(s.echo("none") == "");
}

TEST_CASE("strings and f-strings") {
  Session s;
  CHECK(s.run("let x = 3.14159\nprint(f\"{x:.2f}|{x:8.3f}|{x:<8.1f}|{x:e}|{42:05d}|{0.25:%}|{'ab':>4}|{'ab':^6}|\")") ==
        "3.14|   3.142|3.1     |3.141590e+00|00042|25.000000%|  ab|  ab  |\n");
  CHECK(s.run("print(f\"{1234567:,} {1.5:g} {12:x} {'s'} {[1, 'a']}\")") == "1,234,567 1.5 c s [1, 'a']\n");
  // Long widths and precisions are whole (not cut at a buffer's size), huge ones an error.
  CHECK(s.run("let third = f\"{1/3:.600f}\"\nprint(len(third), third[:20], third[-3:], len(f\"{7:1000}\"), len(f\"{2.5:1000e}\"))") ==
        "602 0.333333333333333314 000 1000 1000\n");
  CHECK(s.error("print(f\"{1.0:.1111111111e}\")").find("error: format spec '.1111111111e': the precision is larger than 1000000") != std::string::npos);
  // int64 values past 2^53 read back exactly (item() is a double): 2^63 - 1 would round up to 2^63.
  CHECK(s.run("let big = (tensor([4611686018427387904], dtype=i64) - 1) * 2 + 1\nprint(big[0].item(), int(big[0]), f\"{big[0]:d}\", [10, 20][tensor(1, dtype=i64)], big.tolist())") ==
        "9223372036854775807 9223372036854775807 9223372036854775807 20 [9223372036854775807]\n");
  CHECK(s.error("print(f\"{1.0:99999999999}\")").find("error: format spec '99999999999': the width is larger than 1000000") != std::string::npos);
  CHECK(s.run("print('a,b'.split(','), '-'.join(['x', 'y']), 'AbC'.lower(), '  s '.strip(), 'abc'[1:], 'abc'[-1])") ==
        "['a', 'b'] x-y abc s bc c\n");
  CHECK(s.run("print(str(1.0) + '!', len('abc'), 'ab' * 2, int('12') + 1, float('2.5'))") == "1.0! 3 abab 13 2.5\n");
}

TEST_CASE("lists, dicts, tuples, destructuring") {
  Session s;
  CHECK(s.run("let l = [1, 2, 3]\nl.append(4)\nl[0] = 10\nprint(l, l[-1], l[1:3], l[::-1], len(l))") ==
        "[10, 2, 3, 4] 4 [2, 3] [4, 3, 2, 10] 4\n");
  CHECK(s.run("let d = {'a': 1, 'b': 2}\nd['c'] = 3\nprint(d, d['b'], 'a' in d, d.keys(), d.get('z', 0))") ==
        "{'a': 1, 'b': 2, 'c': 3} 2 true ['a', 'b', 'c'] 0\n");
  CHECK(s.run("let (a, (b, c)) = (1, (2, 3))\nprint(a, b, c)\nlet t = (1,)\nprint(t, ())") == "1 2 3\n(1,) ()\n");
  CHECK(s.run("let p = 1\nlet q = 2\np, q = q, p\nprint(p, q)") == "2 1\n");
  CHECK(s.run("for (i, v) in enumerate(['a', 'b']) { print(i, v) }") == "0 a\n1 b\n");
  CHECK(s.run("for (k, v) in zip([1, 2], [3, 4]) { print(k + v) }") == "4\n6\n");
  CHECK(s.run("print(sorted([3, 1, 2]), sorted(['b', 'a'], reverse=true), sum([1, 2, 3]), max([1, 5, 2]), min(4, 2))") ==
        "[1, 2, 3] ['b', 'a'] 6 5 2\n");
  CHECK(s.run("print(list(range(2, 10, 3)), tuple([1, 2]), dict([('a', 1)]), abs(-3), round(2.5), round(3.14159, 2))") ==
        "[2, 5, 8] (1, 2) {'a': 1} 3 2 3.14\n");
}

TEST_CASE("closures, recursion, loops") {
  Session s;
  CHECK(s.run(R"(
fn make_counter() {
  let n = 0
  fn inc() {
    n = n + 1
    return n
  }
  return inc
}
let c = make_counter()
c()
c()
print(c())
let c2 = make_counter()
print(c2())
)") == "3\n1\n");
  CHECK(s.run("fn fib(n) = n if n < 2 else fib(n - 1) + fib(n - 2)\nprint(fib(20))") == "6765\n");
  CHECK(s.run(R"(
let out = []
let i = 0
while true {
  i += 1
  if i % 2 == 0 { continue }
  if i > 7 { break }
  out.append(i)
}
print(out)
)") == "[1, 3, 5, 7]\n");
  CHECK(s.run("let f = fn(x, y=2) = x * y\nprint(f(3), f(3, y=4), f(y=1, x=5))") == "6 12 5\n");
  CHECK(s.run("let total = 0\nfor i in range(5) { let sq = i * i\n total += sq }\nprint(total)") == "30\n");
}

TEST_CASE("errors: messages, locations, call trace") {
  Session s;
  CHECK(s.error("let x = 1\nprint(lossx)") == "t.dsl:2:7: error: undefined name 'lossx'; did you mean 'less'?\n  print(lossx)\n        ^~~~~");
  CHECK(s.error("y = 3") == "t.dsl:1:1: error: undefined name 'y' (declare it with let)\n  y = 3\n  ^");
  std::string e = s.error("fn f(a, b) = a + b\nf(1, 2, 3)");
  CHECK(e.find("t.dsl:2:1: error: f() takes 2 arguments but 3 were given") == 0);
  e = s.error("fn f(a, b) = a + b\nf(1, lr=2)");
  CHECK(e.find("f() got an unexpected keyword argument 'lr'") != std::string::npos);
  e = s.error("fn f(a, b) = a + b\nf(1)");
  CHECK(e.find("f() missing required argument 'b'") != std::string::npos);
  e = s.error("let l = [1, 2, 3]\nl[5]");
  CHECK(e.find("index 5 is out of range for list of length 3") != std::string::npos);
  CHECK(s.error("let n = 3\nn()").find("'int' object is not callable") != std::string::npos);
  CHECK(s.error("'a' + zeros([2])").find("cannot add str and tensor") != std::string::npos);
  CHECK(s.error("zeros([2]).foo").find("tensor has no attribute 'foo'") != std::string::npos);
  e = s.error("fn inner(x) {\n  return x + 'a'\n}\nfn step(x) {\n  return inner(x)\n}\nstep(1)");
  CHECK(e == "t.dsl:2:10: error: cannot add int and str\n    return x + 'a'\n           ^~~~~~~\n"
             "  at t.dsl:2:10 in inner()\n  at t.dsl:5:10 in step()\n  at t.dsl:7:1 in <module>");
  e = s.error("fn r(n) = r(n + 1)\nr(0)");
  CHECK(e.find("maximum recursion depth exceeded") != std::string::npos);
  // The environment survives errors.
  s.run("let kept = 5");
  s.error("kept = kept + 'x'");
  CHECK(s.run("print(kept)") == "5\n");
}

// Interpreter::reset (the REPL's :reset, the fuzzer between inputs): names, imports
// and shadowed builtins go; args, output and limits stay; what was made before the
// reset and is still referenced from nowhere is freed without trouble.
TEST_CASE("reset: a fresh session with the same settings") {
  Session s;
  s.interp.set_args({"--lr", "0.1"});
  nabla::Limits limits;
  limits.max_steps = 1000;
  s.interp.set_limits(limits);
  s.run(R"(
import nn
let x = 3
fn print(v) = 0
model Net() {
  fc = nn.Linear(2, 2)
  forward(x) = self.fc(x)
}
let net = Net()
let y = net(randn([1, 2]))
let loop = []
loop.append(loop)
)");
  CHECK(s.interp.has("x"));
  s.interp.reset();
  CHECK_FALSE(s.interp.has("x"));
  CHECK_FALSE(s.interp.has("net"));
  CHECK(s.error("x").find("'x'") != std::string::npos);
  CHECK(s.error("nn.Linear(2, 2)").find("'nn'") != std::string::npos);
  CHECK(s.run("print(1)") == "1\n");  // the builtin again, not the shadowing fn
  CHECK(s.run("print(args)") == "['--lr', '0.1']\n");
  CHECK(s.error("while true { }").find("step budget of 1000") != std::string::npos);
  CHECK(s.run("import nn\nlet m = nn.Linear(2, 3)\nprint(m(ones([1, 2])).shape)") == "(1, 3)\n");
}
