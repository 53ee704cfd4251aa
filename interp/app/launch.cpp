// `nabla launch` (launch.hpp): parses its arguments, starts the ranks and supervises
// them. The launcher blocks SIGCHLD, SIGINT and SIGTERM and takes them one at a time
// with sigtimedwait, so that there are no signal handlers and no races between a
// rank's exit and the deadlines of the grace period; the ranks get the signal mask
// the launcher started with.
#include "interp/app/launch.hpp"

#include <netinet/in.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <optional>
#include <thread>

#include "interp/app/program_file.hpp"

extern char** environ;

namespace nabla {

namespace {

using Args = std::vector<std::string>;
using Clock = std::chrono::steady_clock;

struct LaunchCommand {
  int nproc = 0;
  int master_port = 0;  // 0: a free port
  int grace_s = 60;     // after a rank fails, before the others get SIGTERM
  std::string file;
  Args script_args;
  Args rank_options;  // before FILE in each rank's command line
};

// The most ranks one launch starts: `-n 100000` started processes until the machine
// stalled. Each rank is a whole nabla process (16 MB resident before any tensor, its
// kernels' threads) that dist.init connects to every other rank (Gloo's full mesh:
// n - 1 sockets per rank, within the usual limit of 1024 open files per process).
// torchrun has no cap; 256 is well past what one machine runs usefully (a rank per
// core or GPU).
constexpr int kMaxRanks = 256;

// As main.cpp's: one line on stderr, status 2.
int usage_error(const std::string& message) {
  std::fprintf(stderr, "nabla: error: %s\n", message.c_str());
  return 2;
}

// A whole number (digits only, any length) clamped to INT64_MAX, or nullopt.
std::optional<int64_t> parse_whole(const std::string& text) {
  if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
  int64_t v = 0;
  for (char c : text)
    if (__builtin_mul_overflow(v, 10, &v) || __builtin_add_overflow(v, c - '0', &v)) return INT64_MAX;
  return v;
}

// A whole number from lo to hi, or nullopt.
std::optional<int> parse_int(const std::string& text, int lo, int hi) {
  std::optional<int64_t> v = parse_whole(text);
  if (!v || *v < lo || *v > hi) return std::nullopt;
  return static_cast<int>(*v);
}

// -n's value: "" when it is a count from 1 to kMaxRanks, else the message.
std::string check_rank_count(const std::string& name, const std::string& value, int* out) {
  std::optional<int64_t> n = parse_whole(value);
  if (!n || *n < 1) return name + " needs a whole number of ranks, at least 1; got '" + value + "'";
  if (*n > kMaxRanks)
    return name + " " + value + ": nabla launch starts at most " + std::to_string(kMaxRanks) +
           " ranks (the limit for one machine)";
  *out = static_cast<int>(*n);
  return "";
}

// Sets one option from its value; "" when fine, else the message.
std::string set_option(const std::string& name, const std::string& value, LaunchCommand& cmd) {
  if (name == "-n" || name == "--nproc-per-node") {
    if (std::string e = check_rank_count(name, value, &cmd.nproc); !e.empty()) return e;
  } else if (name == "--master-port") {
    std::optional<int> p = parse_int(value, 1, 65535);
    if (!p) return "--master-port needs a port from 1 to 65535, got '" + value + "'";
    cmd.master_port = *p;
  } else {
    std::optional<int> s = parse_int(value, 0, 1 << 24);
    if (!s) return "--grace needs a whole number of seconds, got '" + value + "'";
    cmd.grace_s = *s;
  }
  return "";
}

// `nabla launch` OPTIONS FILE [ARGS...]: options ("--opt VALUE" or "--opt=VALUE") come
// before FILE; everything after FILE is the script's. "" when fine, else the message.
std::string parse_launch_args(const Args& args, LaunchCommand& cmd) {
  size_t i = 0;
  for (; i < args.size() && args[i].size() > 1 && args[i][0] == '-'; ++i) {
    std::string name = args[i], value;
    size_t eq = name.find('=');
    if (name.rfind("--", 0) == 0 && eq != std::string::npos) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    } else if (name == "-n" || name == "--nproc-per-node" || name == "--master-port" || name == "--grace") {
      if (i + 1 >= args.size()) return name + " needs a value (see nabla --help)";
      value = args[++i];
    }
    if (name != "-n" && name != "--nproc-per-node" && name != "--master-port" && name != "--grace")
      return "unknown option '" + name + "' for nabla launch (see nabla --help)";
    if (std::string e = set_option(name, value, cmd); !e.empty()) return e;
  }
  if (cmd.nproc == 0) return "nabla launch needs -n N, the number of ranks (see nabla --help)";
  if (i >= args.size()) return "nabla launch needs a FILE.dsl to run (see nabla --help)";
  cmd.file = args[i];
  cmd.script_args.assign(args.begin() + static_cast<long>(i) + 1, args.end());
  // A folder or a device is refused here, once, not by each rank (interp/app/program_file.hpp).
  if (std::string problem = program_file_problem(cmd.file); !problem.empty()) return problem;
  return "";
}

// ---- the ranks' environment -------------------------------------------------------

// A port that nobody listens on now (the system's pick for a bind to port 0); 0 and
// errno set when there is none. The rank 0 that binds it later may lose a race with
// another program, as with torchrun.
int find_free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return 0;
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_ANY);
  socklen_t len = sizeof addr;
  int port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), len) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len) == 0)
    port = ntohs(addr.sin_port);
  int saved = errno;
  ::close(fd);
  errno = saved;
  return port;
}

// The cores this process may run on (its affinity mask, as a container limits it).
int usable_cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return std::max(1u, std::thread::hardware_concurrency());
}

// This process's environment with rank `rank`'s variables set (replacing any there);
// OMP_NUM_THREADS splits the cores unless the user set it.
std::vector<std::string> rank_environment(const LaunchCommand& cmd, int port, int rank) {
  std::vector<std::pair<std::string, std::string>> vars = {
      {"RANK", std::to_string(rank)},          {"LOCAL_RANK", std::to_string(rank)},
      {"WORLD_SIZE", std::to_string(cmd.nproc)}, {"LOCAL_WORLD_SIZE", std::to_string(cmd.nproc)},
      {"MASTER_ADDR", "127.0.0.1"},            {"MASTER_PORT", std::to_string(port)}};
  if (!std::getenv("OMP_NUM_THREADS"))
    vars.push_back({"OMP_NUM_THREADS", std::to_string(std::max(1, usable_cores() / cmd.nproc))});
  std::vector<std::string> env;
  for (char** e = environ; *e; ++e) {
    std::string entry = *e;
    bool replaced = false;
    for (const auto& [name, value] : vars) replaced = replaced || entry.rfind(name + "=", 0) == 0;
    if (!replaced) env.push_back(entry);
  }
  for (const auto& [name, value] : vars) env.push_back(name + "=" + value);
  return env;
}

std::vector<char*> c_strings(std::vector<std::string>& strings) {
  std::vector<char*> out;
  for (auto& s : strings) out.push_back(s.data());
  out.push_back(nullptr);
  return out;
}

// Forks and execs `argv` with `env` and the signal mask `child_mask`; -1 if fork fails.
// A rank dies with SIGTERM when the launcher does (even by SIGKILL), so none lingers.
pid_t spawn(const std::string& exe, Args argv, std::vector<std::string> env, const sigset_t& child_mask) {
  std::vector<char*> c_argv = c_strings(argv), c_env = c_strings(env);  // before fork: no malloc after
  pid_t launcher = ::getpid();
  pid_t pid = ::fork();
  if (pid != 0) return pid;
  ::prctl(PR_SET_PDEATHSIG, SIGTERM);
  if (::getppid() != launcher) ::_exit(128 + SIGTERM);  // the launcher died before prctl
  ::sigprocmask(SIG_SETMASK, &child_mask, nullptr);
  ::execve(exe.c_str(), c_argv.data(), c_env.data());
  const char msg[] = "nabla launch: cannot run /proc/self/exe\n";
  ssize_t ignored = ::write(STDERR_FILENO, msg, sizeof msg - 1);
  (void)ignored;
  ::_exit(127);
}

// ---- supervising ------------------------------------------------------------------

std::string signal_name(int sig) {
  const char* abbrev = ::sigabbrev_np(sig);
  return abbrev ? std::string("SIG") + abbrev : "an unknown signal";
}

// Waits for every rank. The first to fail (a non-zero status or a signal) is reported
// and sets the launcher's status; the others get `grace` to stop on their own (they
// will report their own error), then SIGTERM, then SIGKILL 5 s later.
class Supervisor {
 public:
  Supervisor(std::vector<pid_t> pids, int grace_s) : pids_(std::move(pids)), running_(pids_.size()), grace_(grace_s) {
    exited_.assign(pids_.size(), false);
  }
  int run(const sigset_t& waited_for);

 private:
  void reap();
  void on_exit(size_t rank, int wait_status);
  void signal_running(int sig);
  void on_deadlines();
  std::optional<timespec> time_to_next_deadline() const;

  std::vector<pid_t> pids_;
  std::vector<bool> exited_;
  size_t running_;
  std::chrono::seconds grace_;
  int status_ = 0;
  bool failed_ = false;
  Clock::time_point term_at_ = Clock::time_point::max(), kill_at_ = Clock::time_point::max();
};

int Supervisor::run(const sigset_t& waited_for) {
  reap();
  while (running_ > 0) {
    siginfo_t info{};
    std::optional<timespec> wait = time_to_next_deadline();
    int sig = ::sigtimedwait(&waited_for, &info, wait ? &*wait : nullptr);
    // A Ctrl-C at the terminal (si_code SI_KERNEL) reached every rank already: they
    // share the launcher's process group. A kill(1) of the launcher is passed on.
    if ((sig == SIGINT || sig == SIGTERM) && info.si_code != SI_KERNEL) signal_running(sig);
    reap();
    on_deadlines();
  }
  return status_;
}

void Supervisor::reap() {
  int wait_status = 0;
  pid_t pid;
  while ((pid = ::waitpid(-1, &wait_status, WNOHANG)) > 0)
    for (size_t r = 0; r < pids_.size(); ++r)
      if (pids_[r] == pid && !exited_[r]) on_exit(r, wait_status);
}

void Supervisor::on_exit(size_t rank, int wait_status) {
  exited_[rank] = true;
  --running_;
  bool signaled = WIFSIGNALED(wait_status);
  int code = signaled ? 128 + WTERMSIG(wait_status) : WEXITSTATUS(wait_status);
  if (code == 0 || failed_) return;
  failed_ = true;
  status_ = code;
  std::string how = signaled ? "was killed by signal " + std::to_string(WTERMSIG(wait_status)) + " (" +
                                   signal_name(WTERMSIG(wait_status)) + ")"
                             : "exited with status " + std::to_string(code);
  std::fprintf(stderr, "nabla launch: rank %zu (pid %d) %s\n", rank, pids_[rank], how.c_str());
  term_at_ = Clock::now() + grace_;
}

void Supervisor::signal_running(int sig) {
  for (size_t r = 0; r < pids_.size(); ++r)
    if (!exited_[r]) ::kill(pids_[r], sig);
}

void Supervisor::on_deadlines() {
  auto now = Clock::now();
  if (running_ > 0 && now >= term_at_) {
    std::fprintf(stderr, "nabla launch: %zu rank(s) still running %lld s after the first failure: sending SIGTERM\n",
                 running_, static_cast<long long>(grace_.count()));
    signal_running(SIGTERM);
    term_at_ = Clock::time_point::max();
    kill_at_ = now + std::chrono::seconds(5);
  }
  if (running_ > 0 && now >= kill_at_) {
    std::fprintf(stderr, "nabla launch: %zu rank(s) still running 5 s after SIGTERM: sending SIGKILL\n", running_);
    signal_running(SIGKILL);
    kill_at_ = Clock::time_point::max();
  }
}

std::optional<timespec> Supervisor::time_to_next_deadline() const {
  Clock::time_point next = std::min(term_at_, kill_at_);
  if (next == Clock::time_point::max()) return std::nullopt;
  auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(next - Clock::now()).count();
  left = std::max<long long>(left, 0);
  return timespec{static_cast<time_t>(left / 1000000000), static_cast<long>(left % 1000000000)};
}

// Starts the ranks; their pids, or a message in `error`.
std::vector<pid_t> start_ranks(const LaunchCommand& cmd, int port, const sigset_t& child_mask, std::string& error) {
  char exe[4096];
  ssize_t n = ::readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (n < 0) {
    error = std::string("cannot find this program (/proc/self/exe): ") + std::strerror(errno);
    return {};
  }
  Args argv = {std::string(exe, static_cast<size_t>(n))};
  argv.insert(argv.end(), cmd.rank_options.begin(), cmd.rank_options.end());
  argv.push_back(cmd.file);
  argv.insert(argv.end(), cmd.script_args.begin(), cmd.script_args.end());
  std::vector<pid_t> pids;
  std::fflush(nullptr);  // or the ranks would write the launcher's buffered output again
  for (int rank = 0; rank < cmd.nproc; ++rank) {
    pid_t pid = spawn(argv[0], argv, rank_environment(cmd, port, rank), child_mask);
    if (pid < 0) {
      error = "cannot start rank " + std::to_string(rank) + ": " + std::strerror(errno);
      break;
    }
    pids.push_back(pid);
  }
  return pids;
}

}  // namespace

int run_launch(const Args& args, const Args& rank_options) {
  LaunchCommand cmd;
  cmd.rank_options = rank_options;
  if (std::string e = parse_launch_args(args, cmd); !e.empty()) return usage_error(e);
  int port = cmd.master_port ? cmd.master_port : find_free_port();
  if (port == 0) return std::fprintf(stderr, "nabla launch: cannot find a free port: %s\n", std::strerror(errno)), 1;
  sigset_t waited_for, child_mask;
  sigemptyset(&waited_for);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM}) sigaddset(&waited_for, sig);
  ::sigprocmask(SIG_BLOCK, &waited_for, &child_mask);  // before the first fork: no exit is missed
  std::string error;
  std::vector<pid_t> pids = start_ranks(cmd, port, child_mask, error);
  Supervisor supervisor(pids, cmd.grace_s);
  if (!error.empty()) {
    std::fprintf(stderr, "nabla launch: %s\n", error.c_str());
    for (pid_t pid : pids) ::kill(pid, SIGTERM);
    supervisor.run(waited_for);
    return 1;
  }
  return supervisor.run(waited_for);
}

}  // namespace nabla
