# Round 6 of the differential tests against PyTorch (tests/stdlib/test_*_vs_torch6.dsl):
# the lookups' inputs PyTorch refuses and nabla took (float indices, per_sample_weights
# of another dtype than the weight) and scale_grad_by_freq, now supported, in the one
# mode PyTorch refuses it; each an error at the user's line naming the argument, what
# was expected and what was found.

# case: EmbeddingBag's max mode with scale_grad_by_freq (PyTorch refuses it; it was refused for every mode)
# expect error: tests/lang/errors_vs_torch6.dsl:12:9: error: assertion failed: EmbeddingBag: mode "max" does not support scale_grad_by_freq=true
# expect error line:   let m = nn.EmbeddingBag(10, 3, mode="max", scale_grad_by_freq=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.EmbeddingBag(10, 3, mode="max", scale_grad_by_freq=true)
# ---

# case: embedding_bag's max mode with scale_grad_by_freq
# expect error: tests/lang/errors_vs_torch6.dsl:20:9: error: assertion failed: embedding_bag(): mode "max" does not support scale_grad_by_freq=true
# expect error line:   let y = nn.embedding_bag(tensor([1, 2]), randn([5, 3]), tensor([0]), mode="max", scale_grad_by_freq=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.embedding_bag(tensor([1, 2]), randn([5, 3]), tensor([0]), mode="max", scale_grad_by_freq=true)
# ---

# case: per_sample_weights of another dtype than the weight (the bag's sum was promoted to f64)
# expect error: tests/lang/errors_vs_torch6.dsl:28:9: error: assertion failed: embedding_bag(): per_sample_weights must have the weight's dtype f32, got f64
# expect error line:   let y = nn.EmbeddingBag(5, 3, mode="sum")(tensor([[1, 2]]), per_sample_weights=randn([1, 2], dtype=f64))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.EmbeddingBag(5, 3, mode="sum")(tensor([[1, 2]]), per_sample_weights=randn([1, 2], dtype=f64))
# ---

# case: integer per_sample_weights (they weighted the bag as numbers)
# expect error: tests/lang/errors_vs_torch6.dsl:36:9: error: assertion failed: embedding_bag(): per_sample_weights must have the weight's dtype f32, got i64
# expect error line:   let y = nn.EmbeddingBag(5, 3, mode="sum")(tensor([[1, 2]]), per_sample_weights=tensor([[1, 2]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.EmbeddingBag(5, 3, mode="sum")(tensor([[1, 2]]), per_sample_weights=tensor([[1, 2]]))
# ---

# case: a 1-D float input with offsets (1.0 and 2.7 were cut to rows 1 and 2)
# expect error: tests/lang/errors_vs_torch6.dsl:44:9: error: assertion failed: embedding_bag(): input must be an integer tensor (i64 or i32), got f32
# expect error line:   let y = nn.EmbeddingBag(5, 3)(tensor([1.0, 2.7]), tensor([0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.EmbeddingBag(5, 3)(tensor([1.0, 2.7]), tensor([0]))
# ---

# case: Embedding's float indices without max_norm (it said the weight must be 2-D, got shape [1])
# expect error: tests/lang/errors_vs_torch6.dsl:52:9: error: assertion failed: Embedding: indices must be an integer tensor (i64 or i32), got f32
# expect error line:   let y = nn.Embedding(5, 3)(tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let y = nn.Embedding(5, 3)(tensor([1.0]))
# ---
