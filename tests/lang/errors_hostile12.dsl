# Hostile inputs, round 12: the newest surfaces, by hand. distributions took any
# parameters and values (Normal(0.0, -1.0) sampled a mirrored N(0, 1); negative or
# all-zero probs, NaN logits and a log_prob of 0.5 gave NaN or another category's
# value, silently); normal() let a number std below 0 and a NaN std through; randint
# wrapped past its dtype (randint(0, 300, dtype=u8)); a float alpha made add, sub and
# rsub of integer tensors float where PyTorch refuses it; range checks written as
# `x < 0` let NaN through (smooth_l1_loss's beta, huber_loss's delta, renorm, pdist,
# cov's weights, cross_entropy's label_smoothing with class weights, nn.init.sparse_,
# MultiheadAttention's dropout); nn.init.orthogonal_ of an integer tensor filled
# zeros; weight_norm took a bool or str dim; linalg.lstsq of mismatched A and B failed
# inside its own matmul; polygamma's order bound, dirac_ of a 0-size kernel and rsub's
# arguments were named wrongly. Each is now an error at the user's line naming the argument,
# what it must be and the value found (Note [Validated arguments] in
# stdlib/distributions.dsl). MultiheadAttention(dropout=0.1) in training, which failed
# with "'float' object is not callable", is checked in tests/lang/test_hostile12.dsl;
# data.save_image onto a FIFO, which waited forever, in tests/hardening/ckpt_files_test.cpp.

# case: distributions.Normal with a negative scale (it sampled N(0, 1) mirrored, log_prob NaN)
# expect error: tests/lang/errors_hostile12.dsl:23:9: error: distributions.Normal(): scale must be above 0, got -1.0
# expect error line:   let d = distributions.Normal(0.0, -1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Normal(0.0, -1.0)
# ---

# case: distributions.Normal with a NaN loc
# expect error: tests/lang/errors_hostile12.dsl:31:9: error: distributions.Normal(): loc must be a real number (not nan), got nan
# expect error line:   let d = distributions.Normal(tensor([0.0, float("nan")]), 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Normal(tensor([0.0, float("nan")]), 1.0)
# ---

# case: distributions.Categorical with a negative probability (its log_prob was NaN)
# expect error: tests/lang/errors_hostile12.dsl:39:9: error: distributions.Categorical(): probs must be finite and at least 0, got -1.0
# expect error line:   let d = distributions.Categorical(probs=tensor([-1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(probs=tensor([-1.0, 2.0]))
# ---

# case: distributions.Categorical whose probabilities sum to 0 (NaN probabilities)
# expect error: tests/lang/errors_hostile12.dsl:47:9: error: distributions.Categorical(): the sum of probs along the last dim must be above 0, got 0.0
# expect error line:   let d = distributions.Categorical(probs=tensor([[0.5, 0.5], [0.0, 0.0]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(probs=tensor([[0.5, 0.5], [0.0, 0.0]]))
# ---

# case: distributions.Categorical with NaN logits
# expect error: tests/lang/errors_hostile12.dsl:55:9: error: distributions.Categorical(): logits must be a real number or -inf, got nan
# expect error line:   let d = distributions.Categorical(logits=tensor([float("nan"), 1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(logits=tensor([float("nan"), 1.0]))
# ---

# case: distributions.Categorical with every logit -inf
# expect error: tests/lang/errors_hostile12.dsl:63:9: error: distributions.Categorical(): the largest of logits along the last dim must be above -inf, got -inf
# expect error line:   let d = distributions.Categorical(logits=full([3], -float("inf")))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(logits=full([3], -float("inf")))
# ---

# case: distributions.Categorical of a 0-dim probs (was 'index -1 is out of range for tuple')
# expect error: tests/lang/errors_hostile12.dsl:71:9: error: distributions.Categorical(): probs must have at least one dim (the categories), got a 0-dim tensor
# expect error line:   let d = distributions.Categorical(probs=tensor(0.5))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(probs=tensor(0.5))
# ---

# case: distributions.Categorical of no categories
# expect error: tests/lang/errors_hostile12.dsl:79:9: error: distributions.Categorical(): probs must have at least one category in its last dim, got shape [2, 0]
# expect error line:   let d = distributions.Categorical(probs=zeros(2, 0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(probs=zeros(2, 0))
# ---

# case: distributions.Categorical of a str (was 'str has no attribute sum')
# expect error: tests/lang/errors_hostile12.dsl:87:9: error: distributions.Categorical(): probs must be a tensor, got str
# expect error line:   let d = distributions.Categorical(probs="0.5")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(probs="0.5")
# ---

# case: Categorical.log_prob of a category past the last
# expect error: tests/lang/errors_hostile12.dsl:96:10: error: distributions.Categorical.log_prob(): value must be a category index from 0 to 2, got 3
# expect error line:   let lp = d.log_prob(tensor([0, 3]))
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(logits=zeros(3))
let lp = d.log_prob(tensor([0, 3]))
# ---

# case: Categorical.log_prob of a fraction (it read category 0, silently)
# expect error: tests/lang/errors_hostile12.dsl:105:10: error: distributions.Categorical.log_prob(): value must be a category index from 0 to 2, got 0.5
# expect error line:   let lp = d.log_prob(tensor(0.5))
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(logits=zeros(3))
let lp = d.log_prob(tensor(0.5))
# ---

# case: distributions.Bernoulli with probs past 1
# expect error: tests/lang/errors_hostile12.dsl:113:9: error: distributions.Bernoulli(): probs must be in [0, 1], got 1.5
# expect error line:   let d = distributions.Bernoulli(probs=tensor([0.5, 1.5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Bernoulli(probs=tensor([0.5, 1.5]))
# ---

# case: Bernoulli.log_prob of a value neither 0 nor 1 (a value between, silently)
# expect error: tests/lang/errors_hostile12.dsl:122:10: error: distributions.Bernoulli.log_prob(): value must be 0 or 1, got 0.5
# expect error line:   let lp = d.log_prob(tensor(0.5))
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Bernoulli(probs=0.5)
let lp = d.log_prob(tensor(0.5))
# ---

# case: Normal.log_prob of NaN
# expect error: tests/lang/errors_hostile12.dsl:131:10: error: distributions.Normal.log_prob(): value must be a real number (not nan), got nan
# expect error line:   let lp = d.log_prob(tensor(float("nan")))
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Normal(0.0, 1.0)
let lp = d.log_prob(tensor(float("nan")))
# ---

# case: normal() with a number std below 0 (it drew N(0, 1) mirrored)
# expect error: tests/lang/errors_hostile12.dsl:138:9: error: normal(): std must be at least 0, got -1.0
# expect error line:   let x = normal(0.0, -1.0, size=[3])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = normal(0.0, -1.0, size=[3])
# ---

# case: normal() with a NaN std (NaNs, silently)
# expect error: tests/lang/errors_hostile12.dsl:145:9: error: normal(): std must be at least 0, got nan
# expect error line:   let x = normal(zeros(2), tensor([1.0, float("nan")]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = normal(zeros(2), tensor([1.0, float("nan")]))
# ---

# case: randint past u8 (wrapped: 256 was 0)
# expect error: tests/lang/errors_hostile12.dsl:152:9: error: randint(): the range [0, 300) does not fit u8 (expected values in [0, 255])
# expect error line:   let x = randint(0, 300, [4], dtype=u8)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = randint(0, 300, [4], dtype=u8)
# ---

# case: randint below 0 into u8
# expect error: tests/lang/errors_hostile12.dsl:159:9: error: randint(): the range [-5, 5) does not fit u8 (expected values in [0, 255])
# expect error line:   let x = randint(-5, 5, [4], dtype=u8)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = randint(-5, 5, [4], dtype=u8)
# ---

# case: randint past i32 (INT32_MIN everywhere)
# expect error: tests/lang/errors_hostile12.dsl:166:9: error: randint(): the range [0, 1099511627776) does not fit i32 (expected values in [-2147483648, 2147483647])
# expect error line:   let x = randint(0, 2**40, [4], dtype=i32)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = randint(0, 2**40, [4], dtype=i32)
# ---

# case: randint past f16's largest
# expect error: tests/lang/errors_hostile12.dsl:173:9: error: randint(): the range [0, 70000) does not fit f16 (expected values in [-65504, 65504])
# expect error line:   let x = randint(0, 70000, [4], dtype=f16)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = randint(0, 70000, [4], dtype=f16)
# ---

# case: add with a float alpha and integer operands (a float result, silently)
# expect error: tests/lang/errors_hostile12.dsl:180:9: error: add(): argument 'alpha' must not be a float when both operands are integers (got 0.5 with i64), as PyTorch's; convert them first (.to(f32))
# expect error line:   let x = add(tensor([1, 2]), 5, alpha=0.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = add(tensor([1, 2]), 5, alpha=0.5)
# ---

# case: rsub with a float alpha and integer operands
# expect error: tests/lang/errors_hostile12.dsl:187:9: error: rsub(): argument 'alpha' must not be a float when both operands are integers (got 0.5 with i64), as PyTorch's; convert them first (.to(f32))
# expect error line:   let x = rsub(tensor([1, 2]), 5, alpha=0.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = rsub(tensor([1, 2]), 5, alpha=0.5)
# ---

# case: sub_ with a bool alpha on a float tensor (read as 1)
# expect error: tests/lang/errors_hostile12.dsl:195:1: error: sub_(): argument 'alpha' may be a bool only when both operands are bool, as PyTorch's; got true
# expect error line:   x.sub_(ones(2), alpha=true)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones(2)
x.sub_(ones(2), alpha=true)
# ---

# case: smooth_l1_loss with a NaN beta (a NaN loss)
# expect error: tests/lang/errors_hostile12.dsl:202:9: error: smooth_l1_loss(): beta must be at least 0, got nan
# expect error line:   let l = smooth_l1_loss(ones(2), zeros(2), beta=float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = smooth_l1_loss(ones(2), zeros(2), beta=float("nan"))
# ---

# case: huber_loss with a NaN delta
# expect error: tests/lang/errors_hostile12.dsl:209:9: error: huber_loss(): delta must be positive, got nan
# expect error line:   let l = huber_loss(ones(2), zeros(2), delta=float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = huber_loss(ones(2), zeros(2), delta=float("nan"))
# ---

# case: renorm with a NaN maxnorm (the input unchanged)
# expect error: tests/lang/errors_hostile12.dsl:216:9: error: renorm(): argument 'maxnorm' must be non-negative, got nan
# expect error line:   let y = renorm(ones(2, 2), 2, 0, float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = renorm(ones(2, 2), 2, 0, float("nan"))
# ---

# case: pdist with a NaN p
# expect error: tests/lang/errors_hostile12.dsl:223:9: error: pdist(): argument 'p' must be >= 0, got nan
# expect error line:   let d = pdist(ones(3, 2), p=float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let d = pdist(ones(3, 2), p=float("nan"))
# ---

# case: cov with a NaN observation weight
# expect error: tests/lang/errors_hostile12.dsl:230:9: error: cov(): argument 'aweights' must be non-negative, got nan
# expect error line:   let c = cov(ones(2, 3), aweights=tensor([1.0, float("nan"), 1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let c = cov(ones(2, 3), aweights=tensor([1.0, float("nan"), 1.0]))
# ---

# case: nn.init.sparse_ with a NaN sparsity (was ceil()'s error from the library)
# expect error: tests/lang/errors_hostile12.dsl:238:1: error: sparse_(): argument 'sparsity' must be a number from 0 to 1, got nan
# expect error line:   nn.init.sparse_(empty(4, 6), float("nan"))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.sparse_(empty(4, 6), float("nan"))
# ---

# case: nn.init.orthogonal_ of an integer tensor (all zeros, silently)
# expect error: tests/lang/errors_hostile12.dsl:246:1: error: orthogonal_(): the tensor must be floating, got i64
# expect error line:   nn.init.orthogonal_(empty(4, 4, dtype=i64))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.orthogonal_(empty(4, 4, dtype=i64))
# ---

# case: a layer's dtype=bool named as a builtin, not as 'builtin'
# expect error: tests/lang/errors_hostile12.dsl:254:9: error: Linear: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got <builtin bool>
# expect error line:   let l = nn.Linear(3, 2, dtype=bool)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 2, dtype=bool)
# ---

# case: weight_norm with a bool dim (read as 1)
# expect error: tests/lang/errors_hostile12.dsl:263:1: error: assertion failed: nn.utils.weight_norm(): dim must be an int or none, got bool true
# expect error line:   nn.utils.weight_norm(l, dim=true)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 2)
nn.utils.weight_norm(l, dim=true)
# ---

# case: weight_norm with a str dim (was 'cannot compare str and int')
# expect error: tests/lang/errors_hostile12.dsl:272:1: error: assertion failed: nn.utils.weight_norm(): dim must be an int or none, got str 'x'
# expect error line:   nn.utils.weight_norm(l, dim="x")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 2)
nn.utils.weight_norm(l, dim="x")
# ---

# case: remove_weight_norm with a name that is not a str (was 'cannot add str and none')
# expect error: tests/lang/errors_hostile12.dsl:281:1: error: assertion failed: nn.utils.remove_weight_norm(): name must be a str (the parameter's name), got none
# expect error line:   nn.utils.remove_weight_norm(l, name=none)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 2)
nn.utils.remove_weight_norm(l, name=none)
# ---

# case: cross_entropy with class weights and a NaN label_smoothing (the NaN was taken)
# expect error: tests/lang/errors_hostile12.dsl:288:9: error: cross_entropy(): argument 'label_smoothing' must be in [0, 1], got nan
# expect error line:   let l = cross_entropy(randn(2, 3), tensor([0, 1]), weight=ones(3), label_smoothing=float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = cross_entropy(randn(2, 3), tensor([0, 1]), weight=ones(3), label_smoothing=float("nan"))
# ---

# case: linalg.lstsq of B with other rows than A (was matmul's error about A's transpose)
# expect error: tests/lang/errors_hostile12.dsl:296:9: error: linalg.lstsq: B of shape [4, 1] must have A's 3 rows (A is [3, 2]) in its dim -2, or in its last dim as a vector
# expect error line:   let r = linalg.lstsq(ones(3, 2), ones(4, 1))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lstsq(ones(3, 2), ones(4, 1))
# ---

# case: linalg.lstsq of A and B of two dtypes
# expect error: tests/lang/errors_hostile12.dsl:304:9: error: linalg.lstsq: A and B must have the same dtype, got f32 and f64
# expect error line:   let r = linalg.lstsq(ones(3, 2), ones(3, 1, dtype=f64))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lstsq(ones(3, 2), ones(3, 1, dtype=f64))
# ---

# case: linalg.lstsq of a vector A (was svd's error)
# expect error: tests/lang/errors_hostile12.dsl:312:9: error: linalg.lstsq: A must be a batch of matrices [..., m, n], got shape [3]
# expect error line:   let r = linalg.lstsq(ones(3), ones(3))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lstsq(ones(3), ones(3))
# ---

# case: nn.MultiheadAttention with a NaN dropout (no dropout, silently)
# expect error: tests/lang/errors_hostile12.dsl:320:9: error: assertion failed: MultiheadAttention: dropout: p must be in [0, 1], got nan
# expect error line:   let a = nn.MultiheadAttention(8, 2, dropout=float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let a = nn.MultiheadAttention(8, 2, dropout=float("nan"))
# ---

# case: Normal.sample with a negative size (was expand's error)
# expect error: tests/lang/errors_hostile12.dsl:329:9: error: distributions.Normal.sample(): sample_shape must be a list of sizes >= 0 (or one int), got [-1]
# expect error line:   let x = d.sample([-1])
# expect error line:           ^~~~~~~~~~~~~~
import distributions
let d = distributions.Normal(0.0, 1.0)
let x = d.sample([-1])
# ---

# case: Categorical.sample with a float sample_shape (was 'float' object is not iterable)
# expect error: tests/lang/errors_hostile12.dsl:338:9: error: distributions.Categorical.sample(): sample_shape must be a list of sizes >= 0 (or one int), got 2.5
# expect error line:   let x = d.sample(2.5)
# expect error line:           ^~~~~~~~~~~~~
import distributions
let d = distributions.Categorical(logits=zeros(3))
let x = d.sample(2.5)
# ---

# case: polygamma past its order bound (the message said 'from 0 up' for 2147483648)
# expect error: tests/lang/errors_hostile12.dsl:345:9: error: polygamma: n must be a whole number from 0 to 1000000 (the order of the derivative of digamma), got 2147483648
# expect error line:   let y = polygamma(2**31, tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = polygamma(2**31, tensor([1.0]))
# ---

# case: nn.init.dirac_ of a kernel of size 0 (was 'index 0 is out of range for dim 0')
# expect error: tests/lang/errors_hostile12.dsl:353:1: error: dirac_(): a kernel of size 0 has no centre to set, got a tensor of shape [2, 2, 0]
# expect error line:   nn.init.dirac_(empty(2, 2, 0))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.dirac_(empty(2, 2, 0))
# ---

# case: rsub of a str input (was named sub()'s argument 'other')
# expect error: tests/lang/errors_hostile12.dsl:360:9: error: rsub(): argument 'input' must be a tensor, got str
# expect error line:   let y = rsub("a", ones(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~
let y = rsub("a", ones(2))
# ---
