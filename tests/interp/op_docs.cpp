// The examples of the docs that :help prints run as written: every op row's
// (OpDef::doc), every builtin table row's (Note [Builtin tables]) and the docstring
// of every public fn and model of the stdlib modules listed below. Each example is
// the text after "Example: ", evaluated in a session that imported those modules, nn,
// optim and the native modules (math, time, ...), as a user would before calling
// them, so that a doc cannot teach a call the language refuses. Examples that write files run in a
// temporary folder (checkpoint's load reads what save's example wrote). The rows whose
// example needs the world outside (a GPU, a process group, the user's data files)
// are listed with why.
#include <unistd.h>

#include <filesystem>
#include <map>
#include <string>

#include "autograd/op_table.hpp"
#include "helpers.hpp"
#include "interp/builtins/builtin_table.hpp"
#include "interp/eval/evaluator.hpp"
#include "tensor/cuda/cuda_runtime.hpp"
#include "tensor/random.hpp"

using nabla::interp::Tag;
using nabla::testing::Session;

namespace {

std::string example_of(const std::string& doc) {
  size_t at = doc.find("Example: ");
  return at == std::string::npos ? "" : doc.substr(at + 9);
}

// What every example may assume: the modules a user imports first (a module's
// functions are called as math.sqrt(2), after `import math`).
// The stdlib modules whose public fns and models must have a docstring with an example.
const char* const kDocumentedModules[] = {"data", "dist", "distill", "functional", "log", "prune", "quant"};

// A module named as an op (log) takes the op's name in the session that imports it:
// the op examples run where it is not imported.
void prepare(Session& s, bool modules_named_as_ops = true) {
  s.run("import nn\nimport optim");
  for (const char* module : kDocumentedModules)
    if (modules_named_as_ops || !nabla::find_op(module)) s.run(std::string("import ") + module);
  for (const nabla::interp::BuiltinLibrary* library : nabla::interp::builtin_libraries())
    if (library->module) s.run(std::string("import ") + library->module);
  nabla::manual_seed(0);
}

// The working folder, a fresh temporary one while it lives.
class InTemporaryFolder {
 public:
  InTemporaryFolder() : previous_(std::filesystem::current_path()) {
    folder_ = std::filesystem::temp_directory_path() / ("nabla_op_docs_" + std::to_string(::getpid()));
    std::filesystem::create_directories(folder_);
    std::filesystem::current_path(folder_);
  }
  ~InTemporaryFolder() {
    std::filesystem::current_path(previous_);
    std::filesystem::remove_all(folder_);
  }

 private:
  std::filesystem::path previous_, folder_;
};

// Runs `name`'s example; a failure names the row, the example and the error.
void check_example_runs(Session& s, const std::string& name, const std::string& doc) {
  std::string example = example_of(doc);
  INFO(name << ": " << example);
  REQUIRE(!example.empty());
  nabla::EvalResult r = s.interp.eval(example, "example.dsl");
  CHECK_MESSAGE(r.ok, (r.ok ? "" : r.error->message));
}

// Rows whose example cannot run here, and why; "a GPU" ones run where there is one.
const std::map<std::string, std::string> kNeedsTheWorld = {
    {"cuda.get_device_name", "a GPU"},
    {"cuda.new_stream", "a GPU"},
    {"cuda.set_stream", "a GPU"},
    {"cuda.memory_allocated", "a GPU"},
    {"cuda.max_memory_allocated", "a GPU"},
    {"cuda.memory_reserved", "a GPU"},
    {"cuda.max_memory_reserved", "a GPU"},
    {"cuda.reset_peak_memory_stats", "a GPU"},
    {"cuda.empty_cache", "a GPU"},
    {"cuda.memory_summary", "a GPU"},
    {"cuda.synchronize", "a GPU"},
    {"model.cuda", "a GPU"},
    {"tensor.cuda", "a GPU"},
    {"tensor.pin_memory", "a GPU"},
    {"_dist.init", "a process group (nabla launch)"},
    {"_dist.destroy", "a process group"},
    {"_dist.rank", "a process group"},
    {"_dist.world_size", "a process group"},
    {"_dist.backend", "a process group"},
    {"_dist.all_reduce", "a process group"},
    {"_dist.broadcast", "a process group"},
    {"_dist.all_gather", "a process group"},
    {"_dist.reduce_scatter", "a process group"},
    {"_dist.barrier", "a process group"},
    {"_dist.send", "a process group of two"},
    {"_dist.recv", "a process group of two"},
    {"_dist.Reducer", "a process group"},
    {"_dist.all_gather_into", "a process group"},
    {"_dist.gather_async", "a process group"},
    {"_dist.wait_collective", "a process group"},
    {"_dist.reduce_queued", "a process group"},
    {"_data.read_idx", "the user's data file"},
    {"_data.read_csv", "the user's data file"},
    {"system.read_text", "the user's data file"},
    {"data.csv", "the user's data file"},
    {"data.fashion_mnist", "a data set on disk"},
    {"dist.init", "a process group (nabla launch)"},
    {"dist.DistributedDataParallel", "a process group"},
    {"dist.ZeroRedundancyOptimizer", "a process group"},
    {"dist.FullyShardedDataParallel", "a process group"},
    {"dist.save_sharded", "a process group; writes files"},
    {"dist.load_sharded", "a sharded checkpoint on disk"},
};

bool runs_here(const std::string& name) {
  auto it = kNeedsTheWorld.find(name);
  return it == kNeedsTheWorld.end() || (it->second == "a GPU" && nabla::cuda::device_count() > 0);
}

template <class Entry>
void check_table_examples(Session& s, const std::string& table, std::span<const Entry> rows) {
  for (const Entry& e : rows) {
    std::string name = table + "." + e.name;
    if (!runs_here(name) || !e.doc) continue;  // a null doc is its op row's
    check_example_runs(s, name, e.doc);
  }
}

}  // namespace

TEST_CASE("op docs: every row's example runs") {
  Session s;
  prepare(s, false);
  for (const nabla::OpDef& row : nabla::op_table()) check_example_runs(s, row.name, row.doc ? row.doc : "");
}

TEST_CASE("builtin docs: every row's example runs, but those that need the world outside") {
  InTemporaryFolder folder;
  Session s;
  prepare(s);
  for (const nabla::interp::BuiltinLibrary* library : nabla::interp::builtin_libraries())
    check_table_examples(s, library->module ? library->module : library->name, library->functions);
  const std::pair<const char*, Tag> receivers[] = {
      {"str", Tag::Str}, {"list", Tag::List}, {"tuple", Tag::Tuple}, {"dict", Tag::Dict}};
  for (auto [kind, tag] : receivers) check_table_examples(s, kind, nabla::interp::container_methods(tag));
  check_table_examples(s, "model", nabla::interp::model_methods());
  check_table_examples(s, "tensor", nabla::interp::tensor_methods());
  check_table_examples(s, "figure", nabla::interp::figure_methods());
  check_table_examples(s, "ops", nabla::interp::op_conventions());
}

// What print shows for `expression`, without the newline.
std::string shown(Session& s, const std::string& expression) {
  std::string out = s.run("print(" + expression + ")");
  return out.empty() ? out : out.substr(0, out.size() - 1);
}

TEST_CASE("stdlib docs: every public fn and model has a docstring whose example runs") {
  InTemporaryFolder folder;
  Session s;
  prepare(s);
  for (const char* module : kDocumentedModules) {
    size_t documented = 0;
    for (const std::string& member : s.interp.member_names(module)) {
      std::string name = std::string(module) + "." + member;
      std::string kind = shown(s, "type(" + name + ")");
      if (member[0] == '_' || (kind != "function" && kind != "model")) continue;  // values, builtins, modules
      ++documented;
      std::string doc = shown(s, name + ".doc");
      INFO(name);
      size_t example = doc.find("Example: ");
      CHECK(example != std::string::npos);
      CHECK(example > 0);  // a sentence first, then the example
      if (runs_here(name)) check_example_runs(s, name, doc);
    }
    CHECK_MESSAGE(documented > 0, module);
  }
}
