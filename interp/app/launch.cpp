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
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iterator>
#include <optional>
#include <thread>

#include "interp/app/openmp_wait.hpp"
#include "interp/app/program_file.hpp"

extern char** environ;

namespace nabla {

namespace {

using Args = std::vector<std::string>;
using Clock = std::chrono::steady_clock;

struct LaunchCommand {
  int nproc = 0;        // ranks on this node
  int nnodes = 1;       // nodes, each running a launcher with the same options
  int node_rank = 0;    // this node's place: its ranks are node_rank * nproc + 0..nproc-1
  std::string master_addr = "127.0.0.1";  // where rank 0 (node 0) serves the store
  int master_port = 0;  // 0: a free port (one node only)
  int grace_s = 60;     // after a rank fails, before the others get SIGTERM
  int max_restarts = 0;  // times the ranks start again after one fails
  std::string file;
  std::string checkpoint_note;  // where the ranks note their finished checkpoints (Note [Checkpoint notes])
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

// The options that take a value, and the range of the whole-number ones.
struct OptionSpec {
  const char* name;
  int lo, hi;
  int LaunchCommand::* field;  // null: not a whole number (-n's count, --master-addr)
  const char* needs;
};
const OptionSpec kOptions[] = {
    {"-n", 1, kMaxRanks, nullptr, ""},
    {"--nproc-per-node", 1, kMaxRanks, nullptr, ""},
    {"--nnodes", 1, 1 << 16, &LaunchCommand::nnodes, "a whole number of nodes, at least 1"},
    {"--node-rank", 0, (1 << 16) - 1, &LaunchCommand::node_rank, "a node rank from 0"},
    {"--master-addr", 0, 0, nullptr, ""},
    {"--master-port", 1, 65535, &LaunchCommand::master_port, "a port from 1 to 65535"},
    {"--grace", 0, 1 << 24, &LaunchCommand::grace_s, "a whole number of seconds"},
    {"--max-restarts", 0, 1000, &LaunchCommand::max_restarts, "a whole number of restarts from 0 to 1000"},
};

const OptionSpec* find_option(const std::string& name) {
  for (const OptionSpec& o : kOptions)
    if (name == o.name) return &o;
  return nullptr;
}

// Sets one option from its value; "" when fine, else the message.
std::string set_option(const OptionSpec& o, const std::string& value, LaunchCommand& cmd) {
  std::string name = o.name;
  if (name == "-n" || name == "--nproc-per-node") return check_rank_count(name, value, &cmd.nproc);
  if (name == "--master-addr") {
    if (value.empty()) return "--master-addr needs a host name or address";
    cmd.master_addr = value;
    return "";
  }
  std::optional<int> v = parse_int(value, o.lo, o.hi);
  if (!v) return name + " needs " + o.needs + ", got '" + value + "'";
  cmd.*o.field = *v;
  return "";
}

// What the options say together: "" when they fit, else the message.
std::string check_nodes(const LaunchCommand& cmd) {
  if (cmd.node_rank >= cmd.nnodes)
    return "--node-rank " + std::to_string(cmd.node_rank) + " is not a node of --nnodes " + std::to_string(cmd.nnodes) +
           " (0 to " + std::to_string(cmd.nnodes - 1) + ")";
  if (cmd.nnodes > 1 && cmd.master_port == 0)
    return "--nnodes " + std::to_string(cmd.nnodes) + " needs --master-port: every node's launcher must name the same one";
  return "";
}

// `nabla launch` OPTIONS FILE [ARGS...]: options ("--opt VALUE" or "--opt=VALUE") come
// before FILE; everything after FILE is the script's. "" when fine, else the message.
std::string parse_launch_args(const Args& args, LaunchCommand& cmd) {
  size_t i = 0;
  for (; i < args.size() && args[i].size() > 1 && args[i][0] == '-'; ++i) {
    std::string name = args[i], value;
    size_t eq = name.find('=');
    bool inline_value = name.rfind("--", 0) == 0 && eq != std::string::npos;
    if (inline_value) {
      value = name.substr(eq + 1);
      name = name.substr(0, eq);
    }
    const OptionSpec* o = find_option(name);
    if (!o) return "unknown option '" + name + "' for nabla launch (see nabla --help)";
    if (!inline_value) {
      if (i + 1 >= args.size()) return name + " needs a value (see nabla --help)";
      value = args[++i];
    }
    if (std::string e = set_option(*o, value, cmd); !e.empty()) return e;
  }
  if (cmd.nproc == 0) return "nabla launch needs -n N, the number of ranks (see nabla --help)";
  if (std::string e = check_nodes(cmd); !e.empty()) return e;
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

// This process's environment with local rank `local`'s variables set (replacing any
// there), as torchrun sets them; NABLA_RESTART_COUNT, NABLA_MAX_RESTARTS and the file
// NABLA_CHECKPOINT_NOTE names are what dist.elastic_state() reads. OMP_NUM_THREADS splits the cores unless the user set it.
std::vector<std::string> rank_environment(const LaunchCommand& cmd, int port, int local, int restart) {
  std::vector<std::pair<std::string, std::string>> vars = {
      {"RANK", std::to_string(cmd.node_rank * cmd.nproc + local)},
      {"LOCAL_RANK", std::to_string(local)},
      {"WORLD_SIZE", std::to_string(cmd.nnodes * cmd.nproc)},
      {"LOCAL_WORLD_SIZE", std::to_string(cmd.nproc)},
      {"GROUP_RANK", std::to_string(cmd.node_rank)},
      {"MASTER_ADDR", cmd.master_addr},
      {"MASTER_PORT", std::to_string(port)},
      {"NABLA_RESTART_COUNT", std::to_string(restart)},
      {"NABLA_MAX_RESTARTS", std::to_string(cmd.max_restarts)},
      {"NABLA_CHECKPOINT_NOTE", cmd.checkpoint_note}};
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
  // rank_base: the global rank of this node's first (what messages name).
  Supervisor(std::vector<pid_t> pids, int grace_s, int rank_base)
      : pids_(std::move(pids)), running_(pids_.size()), grace_(grace_s), rank_base_(rank_base) {
    exited_.assign(pids_.size(), false);
  }
  int run(const sigset_t& waited_for);
  // The local rank that failed first, or -1; whether the launcher was told to stop.
  int failed_rank() const { return failed_rank_; }
  bool interrupted() const { return interrupted_; }

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
  int rank_base_;
  int status_ = 0;
  bool failed_ = false;
  int failed_rank_ = -1;
  bool interrupted_ = false;
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
    if (sig == SIGINT || sig == SIGTERM) interrupted_ = true;
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
  failed_rank_ = static_cast<int>(rank);
  status_ = code;
  std::string how = signaled ? "was killed by signal " + std::to_string(WTERMSIG(wait_status)) + " (" +
                                   signal_name(WTERMSIG(wait_status)) + ")"
                             : "exited with status " + std::to_string(code);
  std::fprintf(stderr, "nabla launch: rank %zu (pid %d) %s\n", rank + static_cast<size_t>(rank_base_), pids_[rank],
               how.c_str());
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
std::vector<pid_t> start_ranks(const LaunchCommand& cmd, int port, int restart, const sigset_t& child_mask,
                               std::string& error) {
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
    pid_t pid = spawn(argv[0], argv, rank_environment(cmd, port, rank, restart), child_mask);
    if (pid < 0) {
      error = "cannot start rank " + std::to_string(rank) + ": " + std::strerror(errno);
      break;
    }
    pids.push_back(pid);
  }
  return pids;
}

// One start of this node's ranks: the launcher's status, and the supervisor's view.
int run_attempt(const LaunchCommand& cmd, int port, int restart, const sigset_t& waited_for,
                const sigset_t& child_mask, int* failed_rank, bool* interrupted) {
  std::string error;
  std::vector<pid_t> pids = start_ranks(cmd, port, restart, child_mask, error);
  // With restarts left, the others stop at once: they all start again anyway.
  Supervisor supervisor(pids, restart < cmd.max_restarts ? 0 : cmd.grace_s, cmd.node_rank * cmd.nproc);
  if (!error.empty()) {
    std::fprintf(stderr, "nabla launch: %s\n", error.c_str());
    for (pid_t pid : pids) ::kill(pid, SIGTERM);
    supervisor.run(waited_for);
    *interrupted = true;  // nothing to restart: the launcher itself failed
    return 1;
  }
  int status = supervisor.run(waited_for);
  *failed_rank = supervisor.failed_rank();
  *interrupted = supervisor.interrupted();
  return status;
}

// The launch's own folder for the ranks' checkpoint note (Note [Checkpoint notes] in
// interp/builtins/builtins_dist.cpp), removed with what is in it when the launch ends.
class NoteFolder {
 public:
  NoteFolder() {
    char name[] = "/tmp/nabla-launch-XXXXXX";
    if (::mkdtemp(name)) dir_ = name;
  }
  ~NoteFolder() {
    if (dir_.empty()) return;
    ::unlink(file().c_str());
    ::unlink((file() + ".tmp").c_str());
    ::rmdir(dir_.c_str());
  }
  NoteFolder(const NoteFolder&) = delete;
  NoteFolder& operator=(const NoteFolder&) = delete;
  std::string file() const { return dir_.empty() ? "" : dir_ + "/last_checkpoint"; }
  // The last checkpoint the ranks noted, or "".
  std::string last_checkpoint() const {
    std::ifstream in(file());
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  }

 private:
  std::string dir_;
};

}  // namespace

// Starts the ranks, and with --max-restarts K starts all of them again (up to K
// times) when one fails, as torchrun does: the script resumes from its latest
// checkpoint (the launcher names the last one the ranks noted), or from what
// dist.elastic_state() says.
int run_launch(const Args& args, const Args& rank_options) {
  LaunchCommand cmd;
  cmd.rank_options = rank_options;
  if (std::string e = parse_launch_args(args, cmd); !e.empty()) return usage_error(e);
  NoteFolder notes;
  cmd.checkpoint_note = notes.file();
  sigset_t waited_for, child_mask;
  sigemptyset(&waited_for);
  for (int sig : {SIGCHLD, SIGINT, SIGTERM}) sigaddset(&waited_for, sig);
  ::sigprocmask(SIG_BLOCK, &waited_for, &child_mask);  // before the first fork: no exit is missed
  for (int restart = 0;; ++restart) {
    // A fresh port each start on one node: the last rank 0's may still linger.
    int port = cmd.master_port ? cmd.master_port : find_free_port();
    if (port == 0) return std::fprintf(stderr, "nabla launch: cannot find a free port: %s\n", std::strerror(errno)), 1;
    int failed_rank = -1;
    bool interrupted = false;
    int status = run_attempt(cmd, port, restart, waited_for, child_mask, &failed_rank, &interrupted);
    if (status == 0 || interrupted || failed_rank < 0 || restart >= cmd.max_restarts) return status;
    std::string last = notes.last_checkpoint();
    std::string from = last.empty() ? "it saved none with dist.save or dist.save_sharded, so it starts over"
                                    : "the last one it finished is '" + last + "'";
    std::fprintf(stderr,
                 "nabla launch: rank %d died; restarting all %d rank(s) of node %d (restart %d of %d): the script "
                 "resumes from its latest checkpoint (%s)\n",
                 cmd.node_rank * cmd.nproc + failed_rank, cmd.nproc, cmd.node_rank, restart + 1, cmd.max_restarts,
                 from.c_str());
  }
}

}  // namespace nabla
