// The REPL's completion logic (interp/app/repl.hpp), without a terminal: which
// expression a '.' completes members of, and the candidates for names, members and
// commands, keyword arguments after '('; and what :help prints (Interpreter::help).
// tests/repl/repl_pty_test.cpp drives the real binary.
#include <doctest/doctest.h>

#include <algorithm>
#include <span>

#include "interp/app/repl.hpp"
#include "interp/builtins/builtin_table.hpp"

using nabla::member_target;
using nabla::repl_completions;

namespace {
bool contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}
}  // namespace

TEST_CASE("member_target: the chain of names, attributes and indexing before a '.'") {
  CHECK(member_target("x.", 1) == "x");
  CHECK(member_target("m.fc1.", 5) == "m.fc1");
  CHECK(member_target("print(xs[0].", 11) == "xs[0]");
  CHECK(member_target("xs[i + 1].", 9) == "xs[i + 1]");
  CHECK(member_target("a + b.", 5) == "b");
  CHECK(member_target("f(x).", 4) == "");  // a call could have side effects
  CHECK(member_target("1.", 1) == "");     // a number
  CHECK(member_target("x].", 2) == "");    // unbalanced
}

TEST_CASE("repl_completions: globals and keywords, commands, members") {
  nabla::Interpreter interp;
  REQUIRE(interp.eval("let zeta = 1").ok);
  REQUIRE(interp.eval("let t = zeros([2])").ok);
  auto names = repl_completions(interp, "ze", 0);
  CHECK(contains(names, "zeta"));
  CHECK(contains(names, "print"));
  CHECK(contains(names, "while"));
  CHECK(std::is_sorted(names.begin(), names.end()));
  CHECK(contains(repl_completions(interp, ":he", 1), "help"));
  CHECK(contains(repl_completions(interp, ":gr", 1), "graph"));
  CHECK(contains(repl_completions(interp, ":pa", 1), "passes"));
  auto members = repl_completions(interp, "print(t.s", 8);
  CHECK(contains(members, "shape"));
  CHECK(contains(members, "sum"));
  CHECK(repl_completions(interp, "f(t).s", 5).empty());
}

TEST_CASE("repl_completions: a str, list or dict member completes to exactly its builtin table") {
  // Note [Builtin tables]: completion lists the rows that dispatch calls.
  nabla::Interpreter interp;
  REQUIRE(interp.eval("let s = \"abc\"\nlet xs = [1]\nlet d = {\"k\": 1}").ok);
  auto names_of = [](std::span<const nabla::interp::MethodEntry> rows) {
    std::vector<std::string> out;
    for (const auto& row : rows) out.push_back(row.name);
    std::sort(out.begin(), out.end());
    return out;
  };
  CHECK(repl_completions(interp, "s.", 2) == names_of(nabla::interp::container_methods(nabla::interp::Tag::Str)));
  CHECK(repl_completions(interp, "xs.", 3) == names_of(nabla::interp::container_methods(nabla::interp::Tag::List)));
  CHECK(repl_completions(interp, "d.", 2) == names_of(nabla::interp::container_methods(nabla::interp::Tag::Dict)));
}

// The first line of help's text: the signature.
std::string signature_line(nabla::Interpreter& interp, const std::string& name) {
  nabla::HelpResult h = interp.help(name);
  INFO(name << ": " << h.error);
  REQUIRE(h.ok);
  return h.text.substr(0, h.text.find('\n'));
}

TEST_CASE("help: the signature and doc of :help, from the builtin tables and DSL declarations") {
  nabla::Interpreter interp;
  CHECK(signature_line(interp, "print") == "print(*values, sep=\" \", end=\"\\n\", flush=false)");
  CHECK(interp.help("print").text.find("  Example: print(") != std::string::npos);
  CHECK(signature_line(interp, "str.split") == "str.split(sep=none)");
  CHECK(signature_line(interp, "math.sqrt") == "math.sqrt(x)");
  CHECK(signature_line(interp, "model.parameters") == "model.parameters(recurse=true)");
  CHECK(signature_line(interp, "relu") == "relu(input)");
  CHECK(signature_line(interp, "Tensor.sum") == "Tensor.sum(input, dims=[], keepdim=false, dtype=none)");
  // Standard-library modules before any import, and their models' methods.
  CHECK(signature_line(interp, "nn.Linear") == "nn.Linear(in_features, out_features, bias=true, device=none, dtype=none)");
  CHECK(signature_line(interp, "optim.Adam.step") == "optim.Adam.step()");
  CHECK(signature_line(interp, "nn") == "module nn (not imported in this session: `import nn` to use it)");
  CHECK(!interp.has("nn"));  // found, not imported
  CHECK(interp.help("nn").text.find("_pair") == std::string::npos);  // private names stay out
  CHECK(signature_line(interp, "f32") == "f32 = f32 (dtype)");  // a value, not a function
  CHECK(interp.help("nope").error == "undefined name 'nope'");
  CHECK(interp.help("nn.Nope").error == "module 'nn' has no attribute 'Nope'");
  REQUIRE(interp.eval("let len = 3").ok);
  CHECK(signature_line(interp, "len") == "len = 3 (int)");  // the name no longer holds the builtin
}

TEST_CASE("call_target and keyword completion: after 'name(' the callee's keyword arguments") {
  using nabla::call_target;
  CHECK(call_target("f(", 2) == "f");
  CHECK(call_target("nn.Linear(4, ", 13) == "nn.Linear");
  CHECK(call_target("g(f(x), ", 8) == "g");
  CHECK(call_target("f(x", 3) == "");        // inside an argument, not at its start
  CHECK(call_target("xs[", 3) == "");
  CHECK(call_target("f(x).g(", 7) == "");    // a call before: completion runs no code
  CHECK(call_target("m.fc(\"(\", ", 10) == "m.fc");
  nabla::Interpreter interp;
  REQUIRE(interp.eval("import nn\nfn area(w, h=2) = w * h\nlet t = zeros([2])\nlet s = \"a\"").ok);
  auto conv = repl_completions(interp, "conv2d(x, ", 10);
  CHECK(contains(conv, "stride="));
  CHECK(contains(conv, "groups="));
  CHECK(contains(conv, "print"));  // a positional argument may be any name
  CHECK(contains(repl_completions(interp, "nn.Linear(3, 4, ", 16), "bias="));
  CHECK(contains(repl_completions(interp, "area(", 5), "h="));
  CHECK(contains(repl_completions(interp, "t.sum(", 6), "keepdim="));
  CHECK(contains(repl_completions(interp, "s.split(", 8), "sep="));
  CHECK(!contains(repl_completions(interp, "area(1) + ", 10), "h="));
}

TEST_CASE("repl_completions: private names (a leading '_') only for a word that starts with '_'") {
  nabla::Interpreter interp;
  REQUIRE(interp.eval("import nn").ok);
  CHECK(!contains(repl_completions(interp, "nn.", 3), "_pair"));
  CHECK(contains(repl_completions(interp, "nn.", 3), "Linear"));
}
