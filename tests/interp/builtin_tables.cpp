// The builtin tables (Note [Builtin tables] in interp/builtins/builtin_table.hpp):
// every row is complete, names are unique within a table, every builtin that exists
// has a row, and dispatch, member names and completion read the same rows.
#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "helpers.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/builtins/help.hpp"
#include "interp/eval/evaluator.hpp"

using nabla::interp::BuiltinEntry;
using nabla::interp::MethodEntry;
using nabla::interp::Tag;
using nabla::testing::Session;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) { return s.rfind(prefix, 0) == 0; }

// A doc of one sentence and an example.
void check_doc(const std::string& doc) {
  CHECK(doc.find("Example: ") != std::string::npos);
  CHECK(doc.find("Example: ") > 0);  // a sentence comes first
}

// One row's fields: a name, a signature that calls it by that name, and a doc (in
// op_conventions(), an op of the table has its row's doc instead: OpDef::doc).
template <class Entry>
void check_row(const std::string& table, const Entry& e) {
  INFO(table << ": " << (e.name ? e.name : "(null)"));
  REQUIRE(e.name != nullptr);
  REQUIRE(e.signature != nullptr);
  CHECK(static_cast<bool>(e.function));
  CHECK(std::string(e.name).size() > 0);
  CHECK(starts_with(e.signature, std::string(e.name) + "("));
  const nabla::OpDef* row = table == "op conventions" ? nabla::find_op(e.name) : nullptr;
  CHECK_MESSAGE((e.doc == nullptr) == (row != nullptr), "a doc belongs in the entry or in the op's row, once");
  if (e.doc) check_doc(e.doc);
}

template <class Entry>
void check_table(const std::string& table, std::span<const Entry> rows) {
  CHECK(!rows.empty());
  std::set<std::string> seen;
  for (const Entry& e : rows) {
    check_row(table, e);
    if (e.name) CHECK_MESSAGE(seen.insert(e.name).second, table << " has two rows named " << e.name);
  }
}

template <class Entry>
std::vector<std::string> sorted_names(std::span<const Entry> rows) {
  std::vector<std::string> out;
  for (const Entry& e : rows) out.push_back(e.name);
  std::sort(out.begin(), out.end());
  return out;
}

const std::pair<const char*, Tag> kReceivers[] = {
    {"str", Tag::Str}, {"list", Tag::List}, {"tuple", Tag::Tuple}, {"dict", Tag::Dict}};

}  // namespace

TEST_CASE("builtin tables: every row has a name, a signature that calls it and a doc with an example") {
  for (const nabla::interp::BuiltinLibrary* library : nabla::interp::builtin_libraries()) {
    REQUIRE(library->name != nullptr);
    check_table(library->name, library->functions);
  }
  for (auto [kind, tag] : kReceivers) check_table(kind, nabla::interp::container_methods(tag));
  check_table("model", nabla::interp::model_methods());
  check_table("tensor", nabla::interp::tensor_methods());
  check_table("op conventions", nabla::interp::op_conventions());
}

TEST_CASE("builtin tables: a global name is in one library, or deliberately replaces an op") {
  // abs, max, min, sum, pow, round, any and all are Python's, and call the op (or the
  // composite) for a tensor.
  const std::set<std::string> replaced_ops = {"abs", "max", "min", "sum", "pow", "round", "any", "all"};
  std::map<std::string, std::string> owner;
  for (const nabla::interp::BuiltinLibrary* library : nabla::interp::builtin_libraries()) {
    if (library->module) continue;
    for (const BuiltinEntry& e : library->functions) {
      INFO(e.name);
      CHECK_MESSAGE(owner.emplace(e.name, library->name).second, "in both " << owner[e.name] << " and " << library->name);
      bool is_op = nabla::find_op(e.name) != nullptr || nabla::interp::find_entry(nabla::interp::op_conventions(), e.name);
      CHECK(is_op == replaced_ops.count(e.name) > 0);
    }
  }
  std::set<std::string> modules;
  for (const nabla::interp::BuiltinLibrary* library : nabla::interp::builtin_libraries())
    if (library->module) CHECK_MESSAGE(modules.insert(library->module).second, "two libraries make " << library->module);
}

TEST_CASE("builtin tables: every builtin function, module function and op has a doc") {
  nabla::interp::Evaluator ev;
  size_t functions = 0;
  for (auto& [name, value] : ev.builtins) {
    if (value.tag != Tag::Native) continue;  // the dtype names are values
    ++functions;
    auto doc = nabla::interp::find_builtin_doc(name);
    REQUIRE_MESSAGE(doc.has_value(), "no row documents the builtin " << name);
    CHECK(starts_with(doc->signature, name + "("));
    check_doc(doc->doc);
  }
  CHECK(functions > 150);  // the ops and every library
  for (auto& [module, make] : ev.native_modules) {
    auto m = make(ev);
    for (size_t k = 0; k < m->slot_names.size(); ++k) {
      if (m->slots[k].tag != Tag::Native) continue;  // math.pi
      auto doc = nabla::interp::find_builtin_doc(module + "." + m->slot_names[k]);
      CHECK_MESSAGE(doc.has_value(), "no row documents " << module << "." << m->slot_names[k]);
    }
  }
  for (const nabla::OpDef& row : nabla::op_table()) {
    INFO(row.name);
    auto doc = nabla::interp::find_builtin_doc(std::string("tensor.") + row.name);  // every op is a method too
    REQUIRE(doc.has_value());
    check_doc(doc->doc);
  }
}

TEST_CASE("builtin tables: an op's signature is built from its row") {
  auto conv = nabla::interp::find_builtin_doc("conv2d");
  REQUIRE(conv.has_value());
  CHECK(conv->signature == "conv2d(input, weight, bias=none, stride=[1, 1], padding=[0, 0], dilation=[1, 1], groups=1)");
  CHECK(conv->doc == nabla::find_op("conv2d")->doc);
  // An op with a conventions entry: the entry's signature, the row's doc.
  auto view = nabla::interp::find_builtin_doc("tensor.view");
  REQUIRE(view.has_value());
  CHECK(view->signature == "view(input, *shape)");
  CHECK(view->doc == nabla::find_op("view")->doc);
  auto loss = nabla::interp::find_builtin_doc("mse_loss");
  REQUIRE(loss.has_value());
  CHECK(loss->signature == "mse_loss(input, target, reduction=\"mean\")");
  // cross_entropy's entry adds PyTorch's weight= (interp/builtins/composites/loss_conventions.cpp).
  auto weighted = nabla::interp::find_builtin_doc("cross_entropy");
  REQUIRE(weighted.has_value());
  CHECK(weighted->signature ==
        "cross_entropy(input, target, reduction=\"mean\", ignore_index=-100, label_smoothing=0.0, weight=none)");
  CHECK(weighted->doc == nabla::find_op("cross_entropy")->doc);
  auto cat = nabla::interp::find_builtin_doc("cat");
  REQUIRE(cat.has_value());
  CHECK(cat->signature == "cat(tensors, dim=0)");
  // A builtin that replaces an op documents itself; the tensor method is still the op.
  CHECK(starts_with(nabla::interp::find_builtin_doc("sum")->signature, "sum(iterable, start=0)"));
  CHECK(nabla::interp::find_builtin_doc("tensor.sum")->signature == "sum(input, dims=[], keepdim=false, dtype=none)");
  CHECK(!nabla::interp::find_builtin_doc("no_such_builtin"));
  CHECK(!nabla::interp::find_builtin_doc("str.no_such_method"));
  CHECK(!nabla::interp::find_builtin_doc("math.sqrt.x"));
  CHECK(nabla::interp::find_builtin_doc("math.sqrt")->signature == "sqrt(x)");
}

TEST_CASE("builtin tables: container methods dispatch and list exactly their table's rows") {
  Session s;
  const std::pair<Tag, const char*> samples[] = {
      {Tag::Str, "\"a b\""}, {Tag::List, "[1, 2]"}, {Tag::Tuple, "(1, 2)"}, {Tag::Dict, "{\"a\": 1}"}};
  for (auto [tag, source] : samples) {
    INFO(source);
    auto rows = nabla::interp::container_methods(tag);
    CHECK(s.interp.member_names(source) == sorted_names(rows));
    for (const MethodEntry& m : rows) {
      CHECK(nabla::interp::has_container_method(tag, m.name));
      CHECK(s.interp.eval(std::string("let f = ") + source + "." + m.name).ok);
    }
    CHECK(!nabla::interp::has_container_method(tag, "no_such_method"));
    CHECK(s.error(std::string(source) + ".no_such_method()").find("has no attribute 'no_such_method'") != std::string::npos);
  }
}

TEST_CASE("builtin tables: model methods dispatch and list their table's rows") {
  Session s;
  s.run("model M() { w = randn(2, requires_grad=true)\n  forward(x) = x * self.w }\nlet m = M()");
  std::vector<std::string> members = s.interp.member_names("m");
  for (const MethodEntry& row : nabla::interp::model_methods())
    CHECK_MESSAGE(std::find(members.begin(), members.end(), row.name) != members.end(), row.name);
  std::vector<std::string> expected = sorted_names(nabla::interp::model_methods());
  expected.push_back("forward");
  expected.push_back("w");
  std::sort(expected.begin(), expected.end());
  CHECK(members == expected);
  CHECK(s.run("print(len(m.parameters()), m.train() == m, type(m.state_dict()))") == "1 true dict\n");
  CHECK(s.error("m.no_such_method()").find("model M has no attribute 'no_such_method'") != std::string::npos);
  CHECK(s.error("m.no_such_attr").find("model M has no attribute 'no_such_attr'") != std::string::npos);
}

TEST_CASE("builtin tables: tensor members include every method row, and each dispatches") {
  Session s;
  s.run("let t = ones(2)");
  std::vector<std::string> members = s.interp.member_names("t");
  for (const BuiltinEntry& row : nabla::interp::tensor_methods()) {
    CHECK_MESSAGE(std::find(members.begin(), members.end(), row.name) != members.end(), row.name);
    CHECK_MESSAGE(s.interp.eval(std::string("let f = t.") + row.name).ok, row.name);
  }
  CHECK(s.run("print(t.size(), t.double().dtype, t.numel())") == "(2,) f64 2\n");
}

TEST_CASE("builtin tables: errors are the methods' own") {
  Session s;
  CHECK(s.error("\"ab\".upper(1)").find("upper() takes 0 arguments but 1 was given") != std::string::npos);
  CHECK(s.error("[1].append(x=1)").find("append() takes no keyword arguments") != std::string::npos);
  CHECK(s.error("\"1\".isdigit(1)").find("isdigit() takes 0 arguments but 1 was given") != std::string::npos);
  // The character classes go by code point, as Python's: an empty string is of none,
  // "\u{e9}" is a letter (it was not when the classes were ASCII's).
  CHECK(s.run("print(\"42\".isdigit(), \"\".isdigit(), \"a1\".isalnum(), \" \\t\".isspace(), \"AB1\".isupper(), "
              "\"Ab\".isupper(), \"x1\".islower(), \"\xc3\xa9\".isalpha(), \"4.2\".isdigit())") ==
        "true false true true true false true true false\n");
  CHECK(s.error("[].pop()").find("pop from empty list") != std::string::npos);
  CHECK(s.error("(1, 2).index(3)").find("3 is not in tuple") != std::string::npos);
  CHECK(s.error("(1, 2).append(3)").find("tuple has no attribute 'append'") != std::string::npos);
  CHECK(s.error("{}.pop(\"k\")").find("key 'k' not found in dict") != std::string::npos);
  CHECK(s.error("ones(2).float(1)").find("float() takes no arguments") != std::string::npos);
  CHECK(s.run("let xs = [3, 1, 2]\nxs.sort(reverse=true)\nprint(xs, \"{}-{x}\".format(1, x=2))") == "[3, 2, 1] 1-2\n");
}

TEST_CASE("help: every public name of every stdlib module has a signature and a docstring with an example") {
  nabla::interp::Evaluator ev;
  size_t checked = 0;
  for (const auto& [module, source] : nabla::interp::embedded_stdlib()) {
    if (starts_with(module, "_")) continue;  // a module private to the library (optim's _argcheck)
    auto m = ev.find_module(module);
    REQUIRE(m != nullptr);
    for (const std::string& name : ev.member_names(nabla::interp::Value::object(Tag::Module, m))) {
      const nabla::interp::Value* v = m->get(name);
      if (!v || (v->tag != Tag::Func && v->tag != Tag::ModelClass && v->tag != Tag::FnClass && v->tag != Tag::Native))
        continue;  // constants and imported modules
      ++checked;
      std::string text = nabla::interp::help_for_name(ev, module + "." + name);
      INFO(module << "." << name << ":\n" << text);
      bool signature = starts_with(text, module + "." + name + "(") || (v->tag == Tag::Native && text.find('(') < text.find('\n'));
      CHECK(signature);
      CHECK(text.find("(no docstring)") == std::string::npos);
      CHECK(text.find("Example: ") != std::string::npos);
    }
  }
  CHECK(checked > 150);  // nn alone has 76
}

TEST_CASE("help: a name never imported stays out of the session") {
  nabla::interp::Evaluator ev;
  CHECK(nabla::interp::help_for_name(ev, "nn").find("`import nn`") != std::string::npos);
  CHECK(ev.main_module->get("nn") == nullptr);
  CHECK(nabla::interp::help_for_name(ev, "nn").find("_pair") == std::string::npos);  // private
}
