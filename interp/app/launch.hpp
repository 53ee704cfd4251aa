// `nabla launch -n N FILE.dsl [ARGS...]` (issue 8): runs N ranks of a data-parallel
// program on this machine, as torchrun does: N child processes of this same binary,
// each with the environment that dist.init() reads (RANK, LOCAL_RANK, WORLD_SIZE,
// LOCAL_WORLD_SIZE, MASTER_ADDR, MASTER_PORT) and its share of the cores
// (OMP_NUM_THREADS). Only processes and signals: knows nothing of the language or of
// the communicators.
#pragma once
#include <string>
#include <vector>

namespace nabla {

// `args` are those after "launch"; `rank_options` go before FILE in each rank's
// command line ("--full-trace"). Returns the exit status: 0 when every rank
// succeeds, else the first failing rank's (128 + N for signal N); 2 on a usage error.
int run_launch(const std::vector<std::string>& args, const std::vector<std::string>& rank_options = {});

}  // namespace nabla
