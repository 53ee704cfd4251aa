# Round 8b's gaps against PyTorch 1.13 (tests/stdlib/test_gaps_vs_torch8b*.dsl) given what
# they cannot take: randint_like, Tensor.t_, clone's memory_format, cdist's
# compute_mode, distributions.Binomial and nn.utils.parametrize. Each is an error at the
# user's line naming the function, the argument, what was expected and what was found.

# case: randint_like with high not above low
# expect error: tests/lang/errors_gaps8b.dsl:10:9: error: randint_like(): high must be greater than low, got low=4 and high=2
# expect error line:   let x = randint_like(zeros(3), 4, 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = randint_like(zeros(3), 4, 2)
# ---

# case: randint_like of a list
# expect error: tests/lang/errors_gaps8b.dsl:17:9: error: randint_like(): input must be a tensor, got list
# expect error line:   let x = randint_like([1, 2], 4)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let x = randint_like([1, 2], 4)
# ---

# case: randint_like whose range does not fit u8
# expect error: tests/lang/errors_gaps8b.dsl:24:9: error: randint_like(): the range [0, 300) does not fit u8 (expected values in [0, 255])
# expect error line:   let x = randint_like(zeros(3, dtype=u8), 0, 300)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = randint_like(zeros(3, dtype=u8), 0, 300)
# ---

# case: t_ of a 3-D tensor
# expect error: tests/lang/errors_gaps8b.dsl:32:1: error: t_() expects a tensor of at most 2 dims, got shape [2, 3, 4] (use transpose_ of a view: x = x.transpose(d0, d1))
# expect error line:   x.t_()
# expect error line:   ^~~~~~
let x = randn([2, 3, 4])
x.t_()
# ---

# case: t_ of a leaf that requires grad
# expect error: tests/lang/errors_gaps8b.dsl:40:1: error: t_(): a leaf tensor that requires grad cannot be modified in place (wrap the update in no_grad)
# expect error line:   w.t_()
# expect error line:   ^~~~~~
let w = randn([2, 3], requires_grad=true)
w.t_()
# ---

# case: clone to channels_last (nabla lays tensors out row-major only)
# expect error: tests/lang/errors_gaps8b.dsl:47:9: error: clone(): memory_format "channels_last" is not supported: nabla lays tensors out in row-major order only (use "preserve_format" or "contiguous_format")
# expect error line:   let y = clone(randn([1, 2, 3, 3]), memory_format="channels_last")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = clone(randn([1, 2, 3, 3]), memory_format="channels_last")
# ---

# case: clone method with a misspelt memory_format
# expect error: tests/lang/errors_gaps8b.dsl:54:9: error: clone(): memory_format must be "preserve_format" or "contiguous_format", got "preserve"
# expect error line:   let y = randn(2).clone(memory_format="preserve")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = randn(2).clone(memory_format="preserve")
# ---

# case: cdist with an unknown compute_mode
# expect error: tests/lang/errors_gaps8b.dsl:61:9: error: cdist(): compute_mode must be "use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist" or "donot_use_mm_for_euclid_dist", got "mm"
# expect error line:   let d = cdist(randn([3, 2]), randn([4, 2]), compute_mode="mm")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let d = cdist(randn([3, 2]), randn([4, 2]), compute_mode="mm")
# ---

# case: Binomial with probs above 1
# expect error: tests/lang/errors_gaps8b.dsl:69:9: error: distributions.Binomial(): probs must be in [0, 1], got 1.5
# expect error line:   let d = distributions.Binomial(4, probs=tensor([0.5, 1.5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Binomial(4, probs=tensor([0.5, 1.5]))
# ---

# case: Binomial with a fractional total_count
# expect error: tests/lang/errors_gaps8b.dsl:77:9: error: distributions.Binomial(): total_count must be an integer at least 0, got 2.5
# expect error line:   let d = distributions.Binomial(2.5, logits=0.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Binomial(2.5, logits=0.0)
# ---

# case: Binomial log_prob of a count above total_count
# expect error: tests/lang/errors_gaps8b.dsl:86:9: error: distributions.Binomial.log_prob(): value must be a count in [0, total_count], got 4.0
# expect error line:   let y = d.log_prob(tensor([1.0, 4.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Binomial(3, probs=0.5)
let y = d.log_prob(tensor([1.0, 4.0]))
# ---

# case: Binomial entropy of a batch of total_counts
# expect error: tests/lang/errors_gaps8b.dsl:95:9: error: distributions.Binomial.entropy(): total_count must be one number for all the batch (PyTorch: inhomogeneous total count not supported), got 2.0 to 3.0
# expect error line:   let h = d.entropy()
# expect error line:           ^~~~~~~~~~~
import distributions
let d = distributions.Binomial(tensor([2.0, 3.0]), probs=0.5)
let h = d.entropy()
# ---

# case: register_parametrization that changes the weight's shape (unsafe=false)
# expect error: tests/lang/errors_gaps8b.dsl:106:9: error: nn.utils.parametrize.register_parametrization(): the parametrization may not change the shape or dtype of 'weight' ([2, 2] f32 became [4, 2] f32) unless unsafe=true
# expect error line:   let m = nn.utils.parametrize.register_parametrization(nn.Linear(2, 2), "weight", Wider())
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
model Wider() {
  forward(X) = cat([X, X], 0)
}
let m = nn.utils.parametrize.register_parametrization(nn.Linear(2, 2), "weight", Wider())
# ---

# case: register_parametrization of a function, not a model
# expect error: tests/lang/errors_gaps8b.dsl:114:9: error: nn.utils.parametrize.register_parametrization(): parametrization must be a model (an nn.Module), got function
# expect error line:   let m = nn.utils.parametrize.register_parametrization(nn.Linear(2, 2), "weight", fn(x) = x * 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.parametrize.register_parametrization(nn.Linear(2, 2), "weight", fn(x) = x * 2)
# ---

# case: remove_parametrizations of a tensor with none
# expect error: tests/lang/errors_gaps8b.dsl:122:9: error: nn.utils.parametrize.remove_parametrizations(): module Linear has no parametrization on 'weight'
# expect error line:   let m = nn.utils.parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.parametrize.remove_parametrizations(nn.Linear(2, 2), "weight")
# ---

# case: kl_divergence of Binomials where q's total_count is larger
# expect error: tests/lang/errors_gaps8b.dsl:130:9: error: distributions.kl_divergence(): KL between two Binomials where q.total_count > p.total_count has no formula (PyTorch's NotImplementedError)
# expect error line:   let k = distributions.kl_divergence(distributions.Binomial(3, probs=0.5), distributions.Binomial(4, probs=0.5))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let k = distributions.kl_divergence(distributions.Binomial(3, probs=0.5), distributions.Binomial(4, probs=0.5))
# ---
