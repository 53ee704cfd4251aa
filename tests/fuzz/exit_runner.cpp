// Runs generated hostile programs (program_gen.hpp) each as its own `nabla` process,
// to the end: the process must exit by itself with status 0 (ran), 1 (a runtime
// error) or 2 (a syntax error), and with a message on stderr when it is not 0. A
// signal (SIGSEGV from a stack overflow at exit, SIGFPE, SIGABRT), any other status,
// or a run past the time limit is a finding: the program is kept in the findings
// folder with what nabla printed. Every process gets the default 8 MiB stack.
//
//   fuzz_exit_runner NABLA COUNT [--seed S] [--max-size N] [--timeout SECONDS]
//                    [--findings DIR] [--jobs J] [--print 1]
//
// `--print 1` writes the programs to stdout instead of running them.
//
// Prints one line per class of bad input and a total (docs/hardening.md's table):
//
//   EXIT class=cycle tried=31 ran=4 clean_error=27 crash=0 hang=0
//
// and exits 1 when there was any crash or hang.
#include <fcntl.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "tests/fuzz/program_gen.hpp"

namespace {

namespace fs = std::filesystem;
using nabla::fuzz::ProgramClass;

struct Options {
  std::string nabla;
  size_t count = 0;
  uint64_t seed = 1;
  size_t max_size = 100000;
  int timeout_s = 60;
  int jobs = 1;
  bool print_only = false;
  fs::path findings = "fuzz-exit-findings";
};

enum class Outcome { ran, clean_error, crash, hang };

struct Tally {
  std::array<size_t, 4> by_outcome{};
  size_t tried = 0;
};

[[noreturn]] void usage() {
  std::fprintf(stderr,
               "usage: fuzz_exit_runner NABLA COUNT [--seed S] [--max-size N] [--timeout SECONDS] "
               "[--findings DIR] [--jobs J] [--print 1]\n");
  std::exit(2);
}

Options parse_options(int argc, char** argv) {
  if (argc < 3) usage();
  Options o;
  o.nabla = fs::absolute(argv[1]).string();  // each run starts in its own folder
  o.count = std::strtoull(argv[2], nullptr, 10);
  for (int i = 3; i + 1 < argc; i += 2) {
    std::string key = argv[i], value = argv[i + 1];
    if (key == "--seed") o.seed = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--max-size") o.max_size = std::strtoull(value.c_str(), nullptr, 10);
    else if (key == "--timeout") o.timeout_s = std::atoi(value.c_str());
    else if (key == "--findings") o.findings = value;
    else if (key == "--jobs") o.jobs = std::max(1, std::atoi(value.c_str()));
    else if (key == "--print") o.print_only = value == "1";
    else usage();
  }
  if (o.count == 0 || o.max_size == 0 || o.timeout_s <= 0) usage();
  return o;
}

// The choice bytes of program `index`: the same seed gives the same programs.
std::vector<uint8_t> choice_bytes(uint64_t seed, size_t index) {
  std::mt19937_64 rng(seed * 1000003u + index);
  std::vector<uint8_t> bytes(64);
  for (auto& b : bytes) b = static_cast<uint8_t>(rng());
  return bytes;
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

// Starts nabla on the program in `dir` (its working directory, where the program's
// files go) with an 8 MiB stack; stdout and stderr go to files there.
pid_t start(const Options& o, const nabla::fuzz::GeneratedProgram& p, const fs::path& dir) {
  pid_t pid = fork();
  if (pid != 0) return pid;
  setpgid(0, 0);
  rlimit stack{size_t{8} << 20, size_t{8} << 20};
  setrlimit(RLIMIT_STACK, &stack);
  if (chdir(dir.c_str()) != 0) _exit(120);
  int in = p.via_stdin ? open("program.dsl", O_RDONLY) : open("/dev/null", O_RDONLY);
  int out = open("stdout", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  int err = open("stderr", O_WRONLY | O_CREAT | O_TRUNC, 0644);
  if (in < 0 || out < 0 || err < 0) _exit(121);
  dup2(in, 0);
  dup2(out, 1);
  dup2(err, 2);
  std::vector<std::string> args = {o.nabla};
  args.insert(args.end(), p.args.begin(), p.args.end());
  if (!p.via_stdin) args.push_back("program.dsl");
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  setenv("OMP_NUM_THREADS", "1", 1);
  execv(argv[0], argv.data());
  _exit(122);
}

// Waits for the run, killing its process group past the time limit.
Outcome finish(const Options& o, pid_t pid, const fs::path& dir, std::string& why) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(o.timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(-pid, SIGKILL);
      waitpid(pid, &status, 0);
      why = "no end within " + std::to_string(o.timeout_s) + " s";
      return Outcome::hang;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFSIGNALED(status)) {
    why = std::string("killed by signal ") + strsignal(WTERMSIG(status));
    return Outcome::crash;
  }
  int code = WEXITSTATUS(status);
  if (code == 0) return Outcome::ran;
  std::string err = read_file(dir / "stderr");
  if ((code == 1 || code == 2) && err.find("error") != std::string::npos) return Outcome::clean_error;
  why = "exit status " + std::to_string(code) + (err.empty() ? " without a message" : "");
  return Outcome::crash;
}

void keep_finding(const Options& o, size_t index, const nabla::fuzz::GeneratedProgram& p, const fs::path& dir,
                  const std::string& why) {
  fs::create_directories(o.findings);
  std::string stem = (o.findings / (std::string(class_name(p.kind)) + "_" + std::to_string(index))).string();
  std::string args;
  for (const auto& a : p.args) args += " " + a;
  std::ofstream(stem + ".dsl") << "# " << why << "; nabla" << args << (p.via_stdin ? " < FILE" : " FILE") << "\n"
                               << p.text;
  std::ofstream(stem + ".stderr") << read_file(dir / "stderr").substr(0, 20000);
  std::fprintf(stderr, "finding: %s.dsl (%s, %s)\n", stem.c_str(), class_name(p.kind), why.c_str());
}

struct Running {
  pid_t pid;
  size_t index;
  nabla::fuzz::GeneratedProgram program;
  fs::path dir;
};

}  // namespace

void print_programs(const Options& o) {
  for (size_t i = 0; i < o.count; ++i) {
    std::vector<uint8_t> bytes = choice_bytes(o.seed, i);
    nabla::fuzz::GeneratedProgram p = nabla::fuzz::generate_program(bytes.data(), bytes.size(), o.max_size);
    std::string args;
    for (const auto& a : p.args) args += " " + a;
    std::printf("# --- program %zu: %s%s%s\n%s", i, class_name(p.kind), args.c_str(), p.via_stdin ? " (stdin)" : "",
                p.text.size() > 2000 ? (p.text.substr(0, 2000) + "...\n").c_str() : p.text.c_str());
  }
}

int main(int argc, char** argv) {
  Options o = parse_options(argc, argv);
  if (o.print_only) {
    print_programs(o);
    return 0;
  }
  fs::path work = fs::temp_directory_path() / ("nabla-exit-runner." + std::to_string(getpid()));
  std::vector<Tally> tally(nabla::fuzz::kProgramClassCount);
  size_t findings = 0;
  // Up to `jobs` processes at once; each run gets its own folder.
  std::vector<Running> running;
  size_t next = 0;
  while (next < o.count || !running.empty()) {
    while (next < o.count && running.size() < static_cast<size_t>(o.jobs)) {
      std::vector<uint8_t> bytes = choice_bytes(o.seed, next);
      Running r{0, next, nabla::fuzz::generate_program(bytes.data(), bytes.size(), o.max_size),
                work / std::to_string(next)};
      fs::create_directories(r.dir);
      std::ofstream(r.dir / "program.dsl") << r.program.text;
      r.pid = start(o, r.program, r.dir);
      running.push_back(std::move(r));
      ++next;
    }
    Running r = std::move(running.front());
    running.erase(running.begin());
    std::string why;
    Outcome outcome = finish(o, r.pid, r.dir, why);
    Tally& t = tally[static_cast<int>(r.program.kind)];
    ++t.tried;
    ++t.by_outcome[static_cast<int>(outcome)];
    if (outcome == Outcome::crash || outcome == Outcome::hang) {
      keep_finding(o, r.index, r.program, r.dir, why);
      ++findings;
    }
    fs::remove_all(r.dir);
  }
  fs::remove_all(work);
  Tally total;
  for (int k = 0; k < nabla::fuzz::kProgramClassCount; ++k) {
    const Tally& t = tally[k];
    std::printf("EXIT class=%s tried=%zu ran=%zu clean_error=%zu crash=%zu hang=%zu\n",
                class_name(static_cast<ProgramClass>(k)), t.tried, t.by_outcome[0], t.by_outcome[1], t.by_outcome[2],
                t.by_outcome[3]);
    total.tried += t.tried;
    for (int i = 0; i < 4; ++i) total.by_outcome[i] += t.by_outcome[i];
  }
  std::printf("EXIT class=all tried=%zu ran=%zu clean_error=%zu crash=%zu hang=%zu\n", total.tried,
              total.by_outcome[0], total.by_outcome[1], total.by_outcome[2], total.by_outcome[3]);
  return findings == 0 ? 0 : 1;
}
