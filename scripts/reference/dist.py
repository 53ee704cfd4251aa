"""Reference cases of the collectives (dist.cpp): tensor parallelism's and FSDP's. The op sweep runs
in one process with no group, a group of one rank, where each collective is the
identity (Megatron's regions with model-parallel size 1); the two-rank behaviour
is checked against one process by tests/dist/tensor_parallel.dsl."""
from lib import case, randn

CASES = [
    case("dist_copy", [randn(3, 4)], {}, lambda x: x.clone()),
    case("dist_reduce", [randn(2, 3)], {}, lambda x: x.clone()),
    case("dist_split", [randn(2, 6)], {"dim": -1}, lambda x: x.clone()),
    case("dist_split", [randn(4, 3)], {"dim": 0}, lambda x: x.clone(), name="dist_split_dim0"),
    case("dist_gather", [randn(2, 3)], {"dim": -1}, lambda x: x.clone()),
    case("dist_gather", [randn(2, 3, 2)], {"dim": 1}, lambda x: x.clone(), name="dist_gather_dim1"),
    case("dist_shard_gather", [randn(6)], {}, lambda x: x.clone()),
    case("dist_shard_reduce", [randn(6)], {}, lambda x: x.clone()),
]
