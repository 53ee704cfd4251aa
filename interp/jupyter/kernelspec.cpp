// `nabla jupyter install [--user | --prefix DIR]`: the kernelspec, a folder
// kernels/nabla/ with a kernel.json that tells Jupyter how to start this nabla as a
// kernel, in one of the places Jupyter looks (as `jupyter kernelspec install` does):
//   (none)        /usr/local/share/jupyter/kernels/nabla (every user of the machine)
//   --user        $JUPYTER_DATA_DIR, else $XDG_DATA_HOME/jupyter, else ~/.local/share/jupyter
//   --prefix DIR  DIR/share/jupyter/kernels/nabla (a virtual environment, or a test's JUPYTER_PATH=DIR/share/jupyter)
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <system_error>

#include "interp/jupyter/kernel.hpp"
#include "tensor/atomic_file.hpp"
#include "tensor/error.hpp"
#include "nlohmann/json.hpp"

namespace nabla::jupyter {

namespace {

namespace fs = std::filesystem;

const char* const kJupyterUsage = "usage: nabla jupyter install [--user | --prefix DIR]";

std::string env_or_empty(const char* name) {
  const char* v = std::getenv(name);
  return v && *v ? v : "";
}

// Jupyter's data folder for --user.
std::string user_data_dir() {
  if (std::string d = env_or_empty("JUPYTER_DATA_DIR"); !d.empty()) return d;
  if (std::string x = env_or_empty("XDG_DATA_HOME"); !x.empty()) return x + "/jupyter";
  if (std::string home = env_or_empty("HOME"); !home.empty()) return home + "/.local/share/jupyter";
  return "";
}

// The kernelspec's folder for the command's options; "" with *error set on a usage error.
std::string kernel_dir(const std::vector<std::string>& options, std::string* error) {
  std::string data_dir = "/usr/local/share/jupyter";
  if (options.size() == 1 && options[0] == "--user") {
    data_dir = user_data_dir();
    if (data_dir.empty()) *error = "--user: no HOME (or JUPYTER_DATA_DIR) to install into";
  } else if (options.size() == 2 && options[0] == "--prefix") {
    data_dir = options[1] + "/share/jupyter";
  } else if (!options.empty()) {
    *error = kJupyterUsage;
  }
  return error->empty() ? data_dir + "/kernels/nabla" : "";
}

// This binary's absolute path, which kernel.json starts.
std::string nabla_binary() {
  std::error_code ec;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "nabla" : self.string();
}

nlohmann::json kernel_json() {
  return {{"argv", {nabla_binary(), "kernel", "-f", "{connection_file}"}},
          {"display_name", "nabla"},
          {"language", "nabla"},
          {"interrupt_mode", "signal"},
          {"metadata", nlohmann::json::object()}};
}

int install_kernelspec(const std::vector<std::string>& options) {
  std::string error;
  std::string dir = kernel_dir(options, &error);
  if (dir.empty()) return std::fprintf(stderr, "nabla jupyter install: %s\n", error.c_str()), 2;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec)
    return std::fprintf(stderr, "nabla jupyter install: cannot make %s: %s\n", dir.c_str(), ec.message().c_str()), 1;
  try {  // atomically: a failed install leaves a kernel.json that was there as it was
    write_file_atomically(dir + "/kernel.json", kernel_json().dump(2) + "\n", "nabla jupyter install");
  } catch (const Error& e) {
    return std::fprintf(stderr, "%s\n", e.what()), 1;
  }
  std::printf("installed the nabla kernelspec in %s\n", dir.c_str());
  return 0;
}

}  // namespace

int run_jupyter_command(const std::vector<std::string>& args) {
  if (args.empty() || args[0] != "install") return std::fprintf(stderr, "nabla: %s\n", kJupyterUsage), 2;
  return install_kernelspec(std::vector<std::string>(args.begin() + 1, args.end()));
}

}  // namespace nabla::jupyter
