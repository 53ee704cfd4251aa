// The `nabla` command. For now it answers --version, --help and --list-ops; the
// REPL and the script runner arrive with the language (lang/, interp/).
#include <cstdio>
#include <cstring>
#include <string>

#include "autograd/op_table.hpp"
#include "tensor/cuda/cuda_runtime.hpp"

namespace {

const char* const kHelp =
    "usage: nabla [--version] [--help] [--list-ops]\n"
    "\n"
    "  --version    print the version and the CUDA runtime found\n"
    "  --help       print this help\n"
    "  --list-ops   print every op of the op table: name, devices, whether it has\n"
    "               a gradient and a gradient of its gradient (or why not)\n"
    "\n"
    "The REPL and `nabla FILE.dsl` come with the language (see README.md).\n";

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

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2 || !std::strcmp(argv[1], "--help") || !std::strcmp(argv[1], "-h")) {
    std::fputs(kHelp, stdout);
    return 0;
  }
  std::string arg = argv[1];
  if (arg == "--version") {
    std::printf("nabla %s\n%s\n", NABLA_VERSION, nabla::cuda::runtime_info().c_str());
    return 0;
  }
  if (arg == "--list-ops") return list_ops();
  std::fprintf(stderr, "nabla: error: unknown argument '%s' (expected --version, --help or --list-ops)\n", arg.c_str());
  return 2;
}
