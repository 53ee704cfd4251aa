# `nabla launch -n 2 tests/cli/launch_env.dsl ARGS`: each rank prints the environment
# that the launcher gave it, and its arguments.
print("rank", env("RANK"), "local", env("LOCAL_RANK"), "of", env("WORLD_SIZE"), env("LOCAL_WORLD_SIZE"),
      env("MASTER_ADDR"), "port", env("MASTER_PORT"), "omp", env("OMP_NUM_THREADS"), "args", args)
