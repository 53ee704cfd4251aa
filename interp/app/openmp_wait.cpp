#include "interp/app/openmp_wait.hpp"

#include <sched.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <string>
#include <thread>
#include <vector>

namespace nabla {

// Note [How long the team's threads spin]
// Between parallel regions libgomp's idle threads spin, by default 300000 checks of
// their flag (about 7.5 ms here, at 25 ns a pause), before they sleep. When other
// processes want the cores (another test under `ctest -j2`, builds, a second training
// run), a spinning thread uses up its fair share of a core doing nothing, so when the
// next region starts the scheduler runs the others first and the region's barrier waits
// a slice for it. Beside one busy loop and others' builds (load average 4-5), the eager
// CNN step of scripts/profile_cnn.dsl took 5.9-6.1 s for 20 steps on two threads,
// against 0.5-1.0 s with GOMP_SPINCOUNT=2000 (about 50 us).
//
// On quiet cores the short spin costs: a thread asleep after 50 us must be woken (about
// 30 us here) at the next region after a longer gap, and the MLP and CNN epochs ran
// 4-10% slower, a loop of small ops (scripts/bench/rnn_rows.dsl) 35%. Spins between
// (10000, 30000) were worse than both beside a busy loop. So the short spin is taken
// only when the machine is busy as nabla starts: when, three times 1 ms apart, more
// tasks are runnable (/proc/stat's procs_running, this one included) than the cores
// leave for the team. A machine that becomes busy later keeps libgomp's default.
//
// libgomp reads GOMP_SPINCOUNT once, in its constructor, before main, and has no call
// to change it later. A setenv from the executable's .preinit_array (which runs before
// libraries' constructors) is lost: libc sets its environment afterwards. So main
// starts the program again with the variable set, once (then it is set); an exec costs
// about 5 ms. A GOMP_SPINCOUNT or OMP_WAIT_POLICY the user set is left alone.
constexpr const char* kBusySpinCount = "2000";

namespace {

// The executable's own path, so that the program keeps its name in ps and top
// (exec of /proc/self/exe would be called "exe"); empty when it is gone.
std::string own_path() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0 || static_cast<size_t>(n) >= buf.size() - 1) return "";
  return std::string(buf.data(), static_cast<size_t>(n));
}

// Tasks runnable on the machine now, this one included; 0 when /proc/stat says nothing.
int runnable_tasks() {
  std::ifstream stat("/proc/stat");
  std::string key;
  int count = 0;
  while (stat >> key) {
    if (key == "procs_running") {
      stat >> count;
      return count;
    }
    stat.ignore(1 << 16, '\n');
  }
  return 0;
}

// The team this process will make: OMP_NUM_THREADS, or one thread a core.
int team_size(int cores) {
  const char* given = std::getenv("OMP_NUM_THREADS");
  int threads = given ? std::atoi(given) : 0;
  return threads > 0 ? threads : cores;
}

// Whether other tasks want more cores than the team leaves them, each of three looks
// 1 ms apart (one look sees a passing kernel thread).
bool machine_busy(int cores, int team) {
  const int others_that_fit = cores - team;
  for (int look = 0; look < 3; ++look) {
    if (look > 0) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    if (runnable_tasks() - 1 <= others_that_fit) return false;
  }
  return true;
}

}  // namespace

int usable_cores() {
  cpu_set_t set;
  if (::sched_getaffinity(0, sizeof set, &set) == 0) return CPU_COUNT(&set);
  return static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

void run_with_short_openmp_spin(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  int cores = usable_cores(), team = team_size(cores);
  if (team < 2 || !machine_busy(cores, team)) return;
  std::string path = own_path();
  if (path.empty() || setenv("GOMP_SPINCOUNT", kBusySpinCount, 0) != 0) return;
  ::execv(path.c_str(), argv);
  // The executable was deleted (rebuilt while running: its path ends in " (deleted)")
  // or /proc is missing: run on with libgomp's default wait. The variable goes too:
  // left set, it read as the user's own to every program nabla starts (the ranks of
  // nabla launch), which then kept the short spin on quiet machines.
  ::unsetenv("GOMP_SPINCOUNT");
}

}  // namespace nabla
