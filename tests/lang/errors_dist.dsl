# Errors of the collective ops that work without a process group: each names the op,
# the argument and its shape, at the DSL expression that called the op.
# case: a shard that is not a flat vector
# expect error: tests/lang/errors_dist.dsl:5:9: error: dist_shard_gather: argument 'shard' must be 1-D (a unit's flat parameter shard), got shape [2, 3]
let y = dist_shard_gather(ones([2, 3]))
# ---
# case: a gradient that is not a flat vector
# expect error: tests/lang/errors_dist.dsl:9:9: error: dist_shard_reduce: argument 'full' must be 1-D (a unit's flat gradient), got shape [4, 1]
let y = dist_shard_reduce(ones([4, 1]))
