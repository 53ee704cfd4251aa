// The OpenMP team's wait between parallel regions: Note [How long the team's threads
// spin] in openmp_wait.cpp.
#pragma once

namespace nabla {

// Called first in main(): when neither GOMP_SPINCOUNT nor OMP_WAIT_POLICY is set and
// other processes are busy on the cores the team would use, sets a short
// GOMP_SPINCOUNT and runs this program again with it (libgomp read the environment
// before main). Returns when there is nothing to do or exec failed.
void run_with_short_openmp_spin(char** argv);

// The cores this process may run on (its affinity mask, as a container limits it).
int usable_cores();

}  // namespace nabla
