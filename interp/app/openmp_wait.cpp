#include "interp/app/openmp_wait.hpp"

#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

namespace nabla {

// Note [How long the team's threads spin]
// Between parallel regions libgomp's idle threads spin, by default 300000 checks of
// their flag (about 7.5 ms here, at 25 ns a pause), before they sleep. On cores shared
// with another busy process (another test, a build, a second training run, steal time)
// a spinning thread uses up its fair share of a core doing nothing, so when the next
// region starts the scheduler runs the other process first, and the region's barrier
// waits a slice for it. Beside one busy process and others' builds, the eager CNN step
// of scripts/profile_cnn.dsl took 0.7-10 s for 20 steps on two threads, against 0.4-0.8
// s on one (and about 0.2 s on two quiet cores); with GOMP_SPINCOUNT=2000 (about
// 50 us, still longer than the gap between two kernels of a step) it took 0.5-0.9 s.
// Sleeping at once (OMP_WAIT_POLICY=passive) was as good under load but cost each
// small kernel a wake-up on quiet cores (a 200K-element multiply: 13 -> 64 us).
//
// libgomp reads GOMP_SPINCOUNT once, in its constructor, before main, and has no call
// to change it later. A setenv from the executable's .preinit_array (which runs before
// libraries' constructors) is lost: libc sets its environment afterwards. So main
// starts the program again with the variable set, once (then it is set); an exec costs
// about 5 ms. A GOMP_SPINCOUNT or OMP_WAIT_POLICY the user set is left alone.
constexpr const char* kSpinCount = "2000";

// The executable's own path, so that the program keeps its name in ps and top
// (exec of /proc/self/exe would be called "exe"); empty when it is gone.
std::string own_path() {
  std::vector<char> buf(4096);
  ssize_t n = ::readlink("/proc/self/exe", buf.data(), buf.size() - 1);
  if (n <= 0 || static_cast<size_t>(n) >= buf.size() - 1) return "";
  return std::string(buf.data(), static_cast<size_t>(n));
}

void run_with_short_openmp_spin(char** argv) {
  if (std::getenv("GOMP_SPINCOUNT") || std::getenv("OMP_WAIT_POLICY")) return;
  std::string path = own_path();
  if (path.empty() || setenv("GOMP_SPINCOUNT", kSpinCount, 0) != 0) return;
  ::execv(path.c_str(), argv);
  // The executable was deleted (rebuilt while running: its path ends in " (deleted)")
  // or /proc is missing: run on with libgomp's default wait.
}

}  // namespace nabla
