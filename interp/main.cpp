// The `nabla` command: the REPL, scripts (`nabla FILE.dsl args`, `nabla -e CODE`),
// the language's test runner (`nabla test PATH`) and --version/--help/--list-ops.
// Exit status: 0 on success, 1 on a runtime error or a failed test, 2 on a usage or
// syntax error. Errors go to stderr. Uses the language only through the embedding
// API (interp/interpreter.hpp).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "autograd/op_table.hpp"
#include "interp/interpreter.hpp"
#include "interp/repl.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace {

namespace fs = std::filesystem;
using Args = std::vector<std::string>;

const char* const kHelp =
    "usage: nabla                        start the REPL\n"
    "       nabla FILE.dsl [ARGS...]     run a script (ARGS are `args` in the language)\n"
    "       nabla -e CODE [ARGS...]      run CODE\n"
    "       nabla test PATH...           run the test blocks of every .dsl file under PATH\n"
    "       nabla --version | --help | --list-ops\n"
    "\n"
    "  --version    print the version and the CUDA runtime found\n"
    "  --help       print this help\n"
    "  --list-ops   print every op of the op table: name, devices, whether it has\n"
    "               a gradient and a gradient of its gradient (or why not)\n"
    "\n"
    "In the REPL, :help lists its commands. Exit status: 0 on success, 1 on a runtime\n"
    "error or a failed test, 2 on a usage or syntax error.\n";

int usage_error(const std::string& message) {
  std::fprintf(stderr, "nabla: error: %s\n", message.c_str());
  return 2;
}

std::string devices_of(const nabla::OpDef& row) {
  std::string s = row.cpu || row.view ? "cpu" : "";
  if (row.cuda) s += s.empty() ? "cuda" : ",cuda";
  return s.empty() ? "-" : s;
}

std::string double_grad_of(const nabla::OpDef& row) {
  if (!row.backward) return "no (not differentiable)";
  if (row.no_double_backward) return std::string("no (") + row.no_double_backward + ")";
  return "yes";
}

int list_ops() {
  std::printf("%-34s %-10s %-5s %s\n", "op", "devices", "grad", "grad of grad");
  for (const nabla::OpDef& row : nabla::op_table())
    std::printf("%-34s %-10s %-5s %s\n", row.name, devices_of(row).c_str(), row.backward ? "yes" : "no",
                double_grad_of(row).c_str());
  auto missing = nabla::incomplete_rows();
  for (const auto& name : missing) std::printf("error: op '%s' has no complete row\n", name.c_str());
  return missing.empty() ? 0 : 1;
}

// Prints an eval's error and maps it to the exit status.
int finish(const nabla::EvalResult& r) {
  std::fflush(stdout);
  if (r.ok) return 0;
  if (r.error) std::fprintf(stderr, "%s\n", r.error->message.c_str());
  return r.error && r.error->kind == nabla::EvalError::Kind::syntax ? 2 : 1;
}

int run_code(const std::string& code, const Args& args) {
  nabla::Interpreter interp;
  interp.set_args(args);
  nabla::install_sigint_handler();
  nabla::InterruptScope scope(interp);
  return finish(interp.eval(code, "<-e>"));
}

int run_script(const std::string& path, const Args& args) {
  if (!std::ifstream(path)) return usage_error("cannot open '" + path + "': " + std::strerror(errno));
  nabla::Interpreter interp;
  interp.set_args(args);
  nabla::install_sigint_handler();
  nabla::InterruptScope scope(interp);
  return finish(interp.eval_file(path));
}

// The .dsl files under each path (a file, or a folder searched recursively), each
// folder's files sorted; false after reporting a path that does not exist.
bool collect_test_files(const Args& paths, std::vector<std::string>& files) {
  for (const auto& path : paths) {
    std::error_code ec;
    if (!fs::exists(path, ec)) return usage_error("no such file or folder: '" + path + "'"), false;
    if (!fs::is_directory(path, ec)) {
      files.push_back(path);
      continue;
    }
    std::vector<std::string> found;
    for (const auto& e : fs::recursive_directory_iterator(path, fs::directory_options::skip_permission_denied, ec))
      if (e.is_regular_file() && e.path().extension() == ".dsl") found.push_back(e.path().string());
    std::sort(found.begin(), found.end());
    files.insert(files.end(), found.begin(), found.end());
  }
  return true;
}

// `nabla test PATH...`: each file in a fresh interpreter; every failure with its
// location, then "N passed, N failed".
int run_tests(const Args& paths) {
  if (paths.empty()) return usage_error("`nabla test` needs a PATH (a .dsl file or a folder)");
  std::vector<std::string> files;
  if (!collect_test_files(paths, files)) return 2;
  nabla::install_sigint_handler();
  int passed = 0, failed = 0;
  for (const auto& file : files) {
    nabla::Interpreter interp;
    nabla::TestReport report;
    {
      nabla::InterruptScope scope(interp);
      report = interp.run_tests(file);
    }
    passed += report.passed;
    failed += report.failed;
    std::fflush(stdout);
    for (const auto& failure : report.failures) std::printf("FAIL %s\n", failure.c_str());
  }
  std::printf("%d passed, %d failed\n", passed, failed);
  return failed == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  Args args(argv + 1, argv + argc);
  if (args.empty()) {
    nabla::Interpreter interp;
    return nabla::run_repl(interp);
  }
  const std::string& first = args[0];
  Args rest(args.begin() + 1, args.end());
  if (first == "--help" || first == "-h") return std::fputs(kHelp, stdout), 0;
  if (first == "--version") {
    std::printf("nabla %s\n%s\n", NABLA_VERSION, nabla::cuda::runtime_info().c_str());
    return 0;
  }
  if (first == "--list-ops") return list_ops();
  if (first == "-e") {
    if (rest.empty()) return usage_error("-e needs CODE (see nabla --help)");
    return run_code(rest[0], Args(rest.begin() + 1, rest.end()));
  }
  if (first == "test") return run_tests(rest);
  if (first.size() > 1 && first[0] == '-') return usage_error("unknown option '" + first + "' (see nabla --help)");
  return run_script(first, rest);
}
