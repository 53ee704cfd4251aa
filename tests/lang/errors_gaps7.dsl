# Round 7's gaps against PyTorch 1.13 (tests/stdlib/test_gaps_vs_torch7*.dsl) given what
# they cannot take: the `special` module's functions (gammainc too); the new
# distributions (Uniform, Exponential, Laplace, MultivariateNormal, Independent, Gamma,
# Beta, Dirichlet, kl_divergence); the new tensor functions (gradient, combinations,
# hsplit, vsplit, dsplit, adjoint, .H, result_type, promote_types, new_tensor, histogram,
# addmv, addbmm, chain_matmul, select_scatter, slice_scatter, cumulative_trapezoid,
# masked_scatter, put, geometric_, log_normal_, fill_diagonal_); arange and linspace by
# name; autograd.functional's functions. Each is an error at the user's line naming the
# function, the argument, what was expected and what was found.

# case: erfc of a string
# expect error: tests/lang/errors_gaps7.dsl:16:9: error: special.erfc(): input must be a tensor, got str
# expect error line:   let y = special.erfc("a")
# expect error line:           ^~~~~~~~~~~~~~~~~
import special
let y = special.erfc("a")
# ---

# case: i0 of a list (a tensor is needed, as torch.special.i0's)
# expect error: tests/lang/errors_gaps7.dsl:24:9: error: special.i0(): input must be a tensor, got list
# expect error line:   let y = special.i0([1.0, 2.0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.i0([1.0, 2.0])
# ---

# case: ndtri of none
# expect error: tests/lang/errors_gaps7.dsl:32:9: error: special.ndtri(): input must be a tensor, got none
# expect error line:   let y = special.ndtri(none)
# expect error line:           ^~~~~~~~~~~~~~~~~~~
import special
let y = special.ndtri(none)
# ---

# case: multigammaln with p = 0
# expect error: tests/lang/errors_gaps7.dsl:40:9: error: special.multigammaln(): p must be an int >= 1, got 0
# expect error line:   let y = special.multigammaln(tensor([2.0]), 0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.multigammaln(tensor([2.0]), 0)
# ---

# case: multigammaln with a float p
# expect error: tests/lang/errors_gaps7.dsl:48:9: error: special.multigammaln(): p must be an int >= 1, got 2.0
# expect error line:   let y = special.multigammaln(tensor([2.0]), 2.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.multigammaln(tensor([2.0]), 2.0)
# ---

# case: multigammaln of an element not above (p - 1) / 2
# expect error: tests/lang/errors_gaps7.dsl:56:9: error: special.multigammaln(): all elements must be greater than (p-1)/2 = 1.0
# expect error line:   let y = special.multigammaln(tensor([0.5, 2.0]), 3)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.multigammaln(tensor([0.5, 2.0]), 3)
# ---

# case: zeta of two numbers
# expect error: tests/lang/errors_gaps7.dsl:64:9: error: special.zeta(): input or other must be a tensor, got float and float
# expect error line:   let y = special.zeta(2.0, 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.zeta(2.0, 1.0)
# ---

# case: xlog1py with a string
# expect error: tests/lang/errors_gaps7.dsl:72:9: error: special.xlog1py(): other must be a tensor or a number, got str
# expect error line:   let y = special.xlog1py(tensor([1.0]), "x")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.xlog1py(tensor([1.0]), "x")
# ---

# case: Uniform with low above high
# expect error: tests/lang/errors_gaps7.dsl:80:9: error: distributions.Uniform(): low must be below high, got 2.0
# expect error line:   let y = D.Uniform(tensor([0.0, 2.0]), 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Uniform(tensor([0.0, 2.0]), 1.0)
# ---

# case: Uniform's log_prob outside [low, high]
# expect error: tests/lang/errors_gaps7.dsl:88:9: error: distributions.Uniform.log_prob(): value must be in [low, high], got 2.0
# expect error line:   let y = D.Uniform(0.0, 1.0).log_prob(tensor([0.5, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Uniform(0.0, 1.0).log_prob(tensor([0.5, 2.0]))
# ---

# case: Exponential of a string rate
# expect error: tests/lang/errors_gaps7.dsl:96:9: error: distributions.Exponential(): rate must be a tensor or a number, got str
# expect error line:   let y = D.Exponential("a")
# expect error line:           ^~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Exponential("a")
# ---

# case: Exponential with rate 0
# expect error: tests/lang/errors_gaps7.dsl:104:9: error: distributions.Exponential(): rate must be above 0, got 0.0
# expect error line:   let y = D.Exponential(tensor([1.0, 0.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Exponential(tensor([1.0, 0.0]))
# ---

# case: Exponential's log_prob of a negative value
# expect error: tests/lang/errors_gaps7.dsl:112:9: error: distributions.Exponential.log_prob(): value must be at least 0, got -1.0
# expect error line:   let y = D.Exponential(1.0).log_prob(tensor([-1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Exponential(1.0).log_prob(tensor([-1.0]))
# ---

# case: Laplace with a negative scale
# expect error: tests/lang/errors_gaps7.dsl:120:9: error: distributions.Laplace(): scale must be above 0, got -1.0
# expect error line:   let y = D.Laplace(0.0, tensor([1.0, -1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Laplace(0.0, tensor([1.0, -1.0]))
# ---

# case: kl_divergence of two kinds
# expect error: tests/lang/errors_gaps7.dsl:128:9: error: distributions.kl_divergence(): no formula for the pair (Normal, Laplace); the pairs are two of the same kind among ['Bernoulli', 'Beta', 'Binomial', 'Categorical', 'Cauchy', 'Chi2', 'Dirichlet', 'Exponential', 'Gamma', 'Geometric', 'Gumbel', 'HalfNormal', 'Independent', 'Laplace', 'LogNormal', 'MultivariateNormal', 'Normal', 'OneHotCategorical', 'Pareto', 'Poisson', 'Uniform']
# expect error line:   let y = D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.kl_divergence(D.Normal(0.0, 1.0), D.Laplace(0.0, 1.0))
# ---

# case: gradient along a dim too short for edge_order 2
# expect error: tests/lang/errors_gaps7.dsl:135:9: error: gradient(): each dim must have at least edge_order + 1 = 3 elements, dim 0 has 2
# expect error line:   let y = gradient(tensor([1.0, 2.0]), edge_order=2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = gradient(tensor([1.0, 2.0]), edge_order=2)
# ---

# case: gradient with edge_order 3
# expect error: tests/lang/errors_gaps7.dsl:142:9: error: gradient(): argument 'edge_order' must be 1 or 2, got 3
# expect error line:   let y = gradient(tensor([1.0, 2.0, 3.0, 4.0]), edge_order=3)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = gradient(tensor([1.0, 2.0, 3.0, 4.0]), edge_order=3)
# ---

# case: gradient with fewer spacings than dims
# expect error: tests/lang/errors_gaps7.dsl:149:9: error: gradient(): argument 'spacing' must have one entry per dim (2), got 1
# expect error line:   let y = gradient(ones([2, 3]), spacing=[1.0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = gradient(ones([2, 3]), spacing=[1.0])
# ---

# case: gradient with coordinates of the wrong length
# expect error: tests/lang/errors_gaps7.dsl:156:9: error: gradient(): the coordinates for dim 0 must have 3 elements (the dim's size), got 2
# expect error line:   let y = gradient(ones([3]), spacing=[tensor([0.0, 1.0])])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = gradient(ones([3]), spacing=[tensor([0.0, 1.0])])
# ---

# case: gradient with a 2-D spacing
# expect error: tests/lang/errors_gaps7.dsl:163:9: error: gradient(): argument 'spacing' must hold numbers or 1-D coordinate tensors, got a tensor of shape [2, 2] for dim 0
# expect error line:   let y = gradient(ones([3]), spacing=[ones([2, 2])])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = gradient(ones([3]), spacing=[ones([2, 2])])
# ---

# case: combinations of a matrix
# expect error: tests/lang/errors_gaps7.dsl:170:9: error: combinations(): argument 'input' must be 1-D, got shape [2, 2]
# expect error line:   let y = combinations(ones([2, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
let y = combinations(ones([2, 2]))
# ---

# case: combinations with a negative r
# expect error: tests/lang/errors_gaps7.dsl:177:9: error: combinations(): argument 'r' must be 0 or more, got -1
# expect error line:   let y = combinations(ones(3), r=-1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = combinations(ones(3), r=-1)
# ---

# case: combinations past any memory (listed before it was asked for)
# expect error: tests/lang/errors_gaps7.dsl:184:9: error: combinations(): more than 1e300 combinations of 1500 elements each are more than any machine can hold
# expect error line:   let y = combinations(ones(3000), r=1500)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = combinations(ones(3000), r=1500)
# ---

# case: hsplit into sections that do not divide the dim
# expect error: tests/lang/errors_gaps7.dsl:191:9: error: hsplit(): the size of dim 0 (6) must be divisible by the number of sections, got 4
# expect error line:   let y = hsplit(arange(6.0), 4)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~
let y = hsplit(arange(6.0), 4)
# ---

# case: vsplit of a 1-D tensor
# expect error: tests/lang/errors_gaps7.dsl:198:9: error: vsplit(): argument 'input' must have at least 2 dims, got shape [6]
# expect error line:   let y = vsplit(arange(6.0), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~
let y = vsplit(arange(6.0), 2)
# ---

# case: dsplit of a matrix
# expect error: tests/lang/errors_gaps7.dsl:205:9: error: dsplit(): argument 'input' must have at least 3 dims, got shape [2, 2]
# expect error line:   let y = dsplit(ones([2, 2]), 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let y = dsplit(ones([2, 2]), 1)
# ---

# case: adjoint of a vector
# expect error: tests/lang/errors_gaps7.dsl:212:9: error: adjoint(): argument 'input' must be at least 2-D, got shape [3]
# expect error line:   let y = adjoint(ones(3))
# expect error line:           ^~~~~~~~~~~~~~~~
let y = adjoint(ones(3))
# ---

# case: jacobian with strict=true (refused, not ignored)
# expect error: tests/lang/errors_gaps7.dsl:221:9: error: autograd.functional.jacobian(): strict=true is not supported (nabla does not track which outputs depend on which inputs); leave it false
# expect error line:   let y = F.jacobian(fn(a) = a * a, tensor([1.0]), strict=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.jacobian(fn(a) = a * a, tensor([1.0]), strict=true)
# ---

# case: vjp without v of an output of two elements
# expect error: tests/lang/errors_gaps7.dsl:230:9: error: autograd.functional.vjp(): v can be left out only when output has one element, got shape [2]
# expect error line:   let y = F.vjp(fn(a) = a * a, tensor([1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.vjp(fn(a) = a * a, tensor([1.0, 2.0]))
# ---

# case: vjp with v of the wrong shape
# expect error: tests/lang/errors_gaps7.dsl:239:9: error: autograd.functional.vjp(): v has shape [1] where the output has shape [2]
# expect error line:   let y = F.vjp(fn(a) = a * a, tensor([1.0, 2.0]), tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.vjp(fn(a) = a * a, tensor([1.0, 2.0]), tensor([1.0]))
# ---

# case: jacobian of a list of numbers
# expect error: tests/lang/errors_gaps7.dsl:248:9: error: autograd.functional.jacobian(): inputs must be a tensor or a tuple of tensors, got float at position 0
# expect error line:   let y = F.jacobian(fn(a) = a, [1.0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.jacobian(fn(a) = a, [1.0])
# ---

# case: hessian of a function with a vector output
# expect error: tests/lang/errors_gaps7.dsl:257:9: error: autograd.functional.hessian(): func must return a tensor of one element, got shape [2]
# expect error line:   let y = F.hessian(fn(a) = a * a, tensor([1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.hessian(fn(a) = a * a, tensor([1.0, 2.0]))
# ---

# case: hvp with two vectors for one input
# expect error: tests/lang/errors_gaps7.dsl:266:9: error: autograd.functional.hvp(): v must hold one tensor per input (1), got 2
# expect error line:   let y = F.hvp(fn(a) = a.sum(), tensor([1.0, 2.0]), (tensor([1.0, 2.0]), tensor([1.0])))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.hvp(fn(a) = a.sum(), tensor([1.0, 2.0]), (tensor([1.0, 2.0]), tensor([1.0])))
# ---

# case: jacobian with an unknown strategy
# expect error: tests/lang/errors_gaps7.dsl:275:9: error: autograd.functional.jacobian(): the strategy must be "reverse-mode" or "forward-mode", got 'sideways'
# expect error line:   let y = F.jacobian(fn(a) = a, tensor([1.0]), strategy="sideways")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let F = autograd.functional
let y = F.jacobian(fn(a) = a, tensor([1.0]), strategy="sideways")
# ---

# case: .H of a vector (PyTorch's is for matrices only)
# expect error: tests/lang/errors_gaps7.dsl:282:9: error: .H expects a 2-D tensor (a matrix), got shape [3] (use .mH for a batch)
# expect error line:   let y = ones(3).H
# expect error line:           ^~~~~~~~~
let y = ones(3).H
# ---

# case: arange with start by name and no end (was arange(0, start))
# expect error: tests/lang/errors_gaps7.dsl:289:9: error: arange() missing required argument 'end'
# expect error line:   let y = arange(start=2)
# expect error line:           ^~~~~~~~~~~~~~~
let y = arange(start=2)
# ---

# case: linspace by name without steps
# expect error: tests/lang/errors_gaps7.dsl:296:9: error: linspace() missing required argument 'steps'
# expect error line:   let y = linspace(start=0, end=1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
let y = linspace(start=0, end=1)
# ---

# case: MultivariateNormal with two matrices
# expect error: tests/lang/errors_gaps7.dsl:304:9: error: distributions.MultivariateNormal(): give exactly one of covariance_matrix, precision_matrix or scale_tril, got 2
# expect error line:   let y = D.MultivariateNormal(zeros(2), covariance_matrix=eye(2), scale_tril=eye(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.MultivariateNormal(zeros(2), covariance_matrix=eye(2), scale_tril=eye(2))
# ---

# case: MultivariateNormal with loc and matrix of other sizes
# expect error: tests/lang/errors_gaps7.dsl:312:9: error: distributions.MultivariateNormal(): loc has 3 elements in its last dim, the matrix is 2 x 2
# expect error line:   let y = D.MultivariateNormal(zeros(3), covariance_matrix=eye(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.MultivariateNormal(zeros(3), covariance_matrix=eye(2))
# ---

# case: MultivariateNormal of a 0-dim loc
# expect error: tests/lang/errors_gaps7.dsl:320:9: error: distributions.MultivariateNormal(): loc must be a tensor of at least 1 dim (the event), got shape []
# expect error line:   let y = D.MultivariateNormal(tensor(0.0), scale_tril=eye(1))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.MultivariateNormal(tensor(0.0), scale_tril=eye(1))
# ---

# case: MultivariateNormal with an upper-triangular scale_tril (a mask error inside before)
# expect error: tests/lang/errors_gaps7.dsl:328:9: error: distributions.MultivariateNormal(): scale_tril must be lower triangular (zeros above the diagonal), got 1.0
# expect error line:   let y = D.MultivariateNormal(zeros(2), scale_tril=tensor([[1.0, 1.0], [0.0, 1.0]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.MultivariateNormal(zeros(2), scale_tril=tensor([[1.0, 1.0], [0.0, 1.0]]))
# ---

# case: MultivariateNormal with a non-symmetric covariance
# expect error: tests/lang/errors_gaps7.dsl:336:9: error: distributions.MultivariateNormal(): covariance_matrix minus its transpose must be 0 (the matrix must be symmetric), got 2.0
# expect error line:   let y = D.MultivariateNormal(zeros(2), covariance_matrix=tensor([[1.0, 2.0], [0.0, 1.0]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.MultivariateNormal(zeros(2), covariance_matrix=tensor([[1.0, 2.0], [0.0, 1.0]]))
# ---

# case: Independent over more dims than the base has
# expect error: tests/lang/errors_gaps7.dsl:344:9: error: distributions.Independent(): reinterpreted_batch_ndims must be an int from 0 to the base's 1 batch dims, got 2
# expect error line:   let y = D.Independent(D.Normal(zeros(2), ones(2)), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Independent(D.Normal(zeros(2), ones(2)), 2)
# ---

# case: result_type of a string
# expect error: tests/lang/errors_gaps7.dsl:351:9: error: result_type(): argument 'tensor1' must be a tensor or a number, got str
# expect error line:   let y = result_type("a", 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~
let y = result_type("a", 1)
# ---

# case: promote_types of a tensor
# expect error: tests/lang/errors_gaps7.dsl:358:9: error: promote_types(): argument 'type1': expected a dtype (f32, f64, f16, bf16, i64, i32, i16, i8, u8, bool), got tensor
# expect error line:   let y = promote_types(ones(2), f32)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = promote_types(ones(2), f32)
# ---

# case: new_tensor of none
# expect error: tests/lang/errors_gaps7.dsl:365:9: error: new_tensor(): argument 'data' must be a number, a list or a tensor, got none
# expect error line:   let y = zeros(2).new_tensor(none)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
let y = zeros(2).new_tensor(none)
# ---

# case: histogram of an integer tensor
# expect error: tests/lang/errors_gaps7.dsl:372:9: error: histogram(): argument 'input' must be a floating tensor, got i64
# expect error line:   let y = histogram(tensor([1, 2]), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = histogram(tensor([1, 2]), 2)
# ---

# case: histogram with a reversed range
# expect error: tests/lang/errors_gaps7.dsl:379:9: error: histogram(): range must be two finite numbers (min, max) with min <= max, got (1.0, 0.0)
# expect error line:   let y = histogram(ones(3), 2, range=(1.0, 0.0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = histogram(ones(3), 2, range=(1.0, 0.0))
# ---

# case: histogram with decreasing edges
# expect error: tests/lang/errors_gaps7.dsl:386:9: error: histogram(): bin edges must be increasing, got tensor([1., 0.])
# expect error line:   let y = histogram(ones(3), tensor([1.0, 0.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = histogram(ones(3), tensor([1.0, 0.0]))
# ---

# case: histogram with weights of another shape
# expect error: tests/lang/errors_gaps7.dsl:393:9: error: histogram(): weight must have input's shape [3], got [2]
# expect error line:   let y = histogram(ones(3), 2, weight=ones(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = histogram(ones(3), 2, weight=ones(2))
# ---

# case: histogram of NaN without a range
# expect error: tests/lang/errors_gaps7.dsl:400:9: error: histogram(): the input holds NaN or infinite values; give range= to bin the finite ones
# expect error line:   let y = histogram(tensor([1.0, float("nan")]), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = histogram(tensor([1.0, float("nan")]), 2)
# ---

# case: addmv of a vector of the wrong length
# expect error: tests/lang/errors_gaps7.dsl:407:9: error: addmv(): mat [2, 3] and vec [2] cannot be multiplied
# expect error line:   let y = addmv(zeros(2), ones([2, 3]), ones(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = addmv(zeros(2), ones([2, 3]), ones(2))
# ---

# case: addbmm of batches of different counts
# expect error: tests/lang/errors_gaps7.dsl:414:9: error: addbmm(): batch1 [3, 2, 4] and batch2 [2, 4, 2] cannot be multiplied batch by batch
# expect error line:   let y = addbmm(zeros([2, 2]), ones([3, 2, 4]), ones([2, 4, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = addbmm(zeros([2, 2]), ones([3, 2, 4]), ones([2, 4, 2]))
# ---

# case: chain_matmul of matrices that do not chain
# expect error: tests/lang/errors_gaps7.dsl:421:9: error: chain_matmul(): matrix 1 of shape [2, 3] cannot follow a product of shape [2, 3]
# expect error line:   let y = chain_matmul(ones([2, 3]), ones([2, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = chain_matmul(ones([2, 3]), ones([2, 3]))
# ---

# case: select_scatter with an index past the dim
# expect error: tests/lang/errors_gaps7.dsl:428:9: error: select_scatter(): index 5 is out of range for dim 0 of size 2
# expect error line:   let y = select_scatter(zeros([2, 3]), ones(3), 0, 5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = select_scatter(zeros([2, 3]), ones(3), 0, 5)
# ---

# case: slice_scatter with src of the wrong shape
# expect error: tests/lang/errors_gaps7.dsl:435:9: error: slice_scatter(): src must have the slice's shape [2, 2], got [3, 2]
# expect error line:   let y = slice_scatter(zeros([4, 2]), ones([3, 2]), 0, 0, 4, 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = slice_scatter(zeros([4, 2]), ones([3, 2]), 0, 0, 4, 2)
# ---

# case: cumulative_trapezoid with both x and dx
# expect error: tests/lang/errors_gaps7.dsl:442:9: error: cumulative_trapezoid(): give x or dx, not both
# expect error line:   let y = cumulative_trapezoid(ones(3), ones(3), dx=1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = cumulative_trapezoid(ones(3), ones(3), dx=1.0)
# ---

# case: geometric_ with p = 1 (PyTorch's range is open)
# expect error: tests/lang/errors_gaps7.dsl:449:9: error: geometric_(): argument 'p' must be in (0, 1), got 1.0
# expect error line:   let y = zeros(2).geometric_(1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
let y = zeros(2).geometric_(1.0)
# ---

# case: log_normal_ with std 0
# expect error: tests/lang/errors_gaps7.dsl:456:9: error: log_normal_(): argument 'std' must be positive, got 0.0
# expect error line:   let y = zeros(2).log_normal_(0.0, 0.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = zeros(2).log_normal_(0.0, 0.0)
# ---

# case: log_normal_ of an integer tensor
# expect error: tests/lang/errors_gaps7.dsl:463:9: error: log_normal_(): expected a floating tensor, got i64
# expect error line:   let y = zeros(2, dtype=i64).log_normal_()
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = zeros(2, dtype=i64).log_normal_()
# ---

# case: combinations with r past the memory (its count was listed for 2^40 steps)
# expect error: tests/lang/errors_gaps7.dsl:470:9: error: combinations(): 6.044629098089639e+23 combinations of 1099511627776 elements each are more than any machine can hold
# expect error line:   let y = combinations(ones(3), r=2**40, with_replacement=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = combinations(ones(3), r=2**40, with_replacement=true)
# ---

# case: Gamma with concentration 0
# expect error: tests/lang/errors_gaps7.dsl:478:9: error: distributions.Gamma(): concentration must be above 0, got 0.0
# expect error line:   let y = D.Gamma(0.0, 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Gamma(0.0, 1.0)
# ---

# case: Beta's log_prob outside [0, 1]
# expect error: tests/lang/errors_gaps7.dsl:486:9: error: distributions.Beta.log_prob(): value must be in [0, 1], got 1.5
# expect error line:   let y = D.Beta(2.0, 2.0).log_prob(tensor([1.5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Beta(2.0, 2.0).log_prob(tensor([1.5]))
# ---

# case: Dirichlet of a 0-dim concentration
# expect error: tests/lang/errors_gaps7.dsl:494:9: error: distributions.Dirichlet(): concentration must be a tensor of at least 1 dim (the categories), got shape []
# expect error line:   let y = D.Dirichlet(tensor(1.0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Dirichlet(tensor(1.0))
# ---

# case: Dirichlet's log_prob off the simplex
# expect error: tests/lang/errors_gaps7.dsl:502:9: error: distributions.Dirichlet.log_prob(): value must be on the simplex (each at least 0, summing to 1 along the last dim), got 0.5
# expect error line:   let y = D.Dirichlet(tensor([1.0, 1.0])).log_prob(tensor([0.5, 0.6]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Dirichlet(tensor([1.0, 1.0])).log_prob(tensor([0.5, 0.6]))
# ---

# case: Dirichlet's rsample with a fractional sample size (rsample is reparameterized since round 8)
# expect error: tests/lang/errors_gaps7.dsl:510:9: error: distributions.Dirichlet.rsample(): sample_shape must be a list of sizes >= 0 (or one int), got [1.5]
# expect error line:   let y = D.Dirichlet(tensor([1.0, 1.0])).rsample([1.5])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions as D
let y = D.Dirichlet(tensor([1.0, 1.0])).rsample([1.5])
# ---

# case: masked_scatter with too few source elements
# expect error: tests/lang/errors_gaps7.dsl:517:9: error: masked_scatter(): the mask selects 2 elements, source has only 1
# expect error line:   let y = masked_scatter(zeros(3), tensor([true, true, false]), tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = masked_scatter(zeros(3), tensor([true, true, false]), tensor([1.0]))
# ---

# case: masked_scatter with a float mask
# expect error: tests/lang/errors_gaps7.dsl:524:9: error: masked_scatter(): argument 'mask' must be a bool tensor, got f32
# expect error line:   let y = masked_scatter(zeros(3), ones(3), ones(3))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = masked_scatter(zeros(3), ones(3), ones(3))
# ---

# case: put past the last element
# expect error: tests/lang/errors_gaps7.dsl:531:9: error: put(): index 4 is out of range for a tensor of 4 elements
# expect error line:   let y = put(zeros([2, 2]), tensor([4]), tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = put(zeros([2, 2]), tensor([4]), tensor([1.0]))
# ---

# case: put with index and source of other sizes
# expect error: tests/lang/errors_gaps7.dsl:538:9: error: put(): index has 2 elements, source 1; they must match
# expect error line:   let y = put(zeros([2, 2]), tensor([0, 1]), tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = put(zeros([2, 2]), tensor([0, 1]), tensor([1.0]))
# ---

# case: gammainc of a string
# expect error: tests/lang/errors_gaps7.dsl:546:9: error: special.gammainc(): input must be a tensor or a number, got str
# expect error line:   let y = special.gammainc("a", tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import special
let y = special.gammainc("a", tensor([1.0]))
# ---

# case: fill_diagonal_ of a vector
# expect error: tests/lang/errors_gaps7.dsl:553:9: error: fill_diagonal_(): the tensor must have at least 2 dims, got shape [3]
# expect error line:   let y = zeros(3).fill_diagonal_(1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = zeros(3).fill_diagonal_(1.0)
# ---

# case: fill_diagonal_ of a 3-D tensor of unequal dims
# expect error: tests/lang/errors_gaps7.dsl:560:9: error: fill_diagonal_(): all dims must have the same length beyond 2 dims, got shape [2, 3, 2]
# expect error line:   let y = zeros([2, 3, 2]).fill_diagonal_(1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let y = zeros([2, 3, 2]).fill_diagonal_(1.0)
# ---
