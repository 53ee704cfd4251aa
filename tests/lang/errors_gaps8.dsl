# Round 8's additions given bad arguments (tests/stdlib/test_gaps_vs_torch8.dsl and
# test_gaps_vs_torch8_linalg.dsl check their values): gcd, lcm, frexp, nextafter,
# index_reduce (interp/builtins/composites/composite_torch_gaps8.cpp), Gamma, Beta and
# Dirichlet's rsample (stdlib/_distributions_rsample.dsl), linalg's LU family, solvers
# and options (stdlib/_linalg_lu.dsl, stdlib/linalg.dsl) and the fft module
# (stdlib/fft.dsl), vdot, diagonal_scatter, the windows, round 8's distributions
# (stdlib/_distributions_more.dsl) and nn.utils.spectral_norm (stdlib/_nn_spectral.dsl). Each is an error at the user's line naming the argument, what it
# must be and what was found.

# case: gcd of floats (PyTorch's gcd is defined on integers only)
# expect error: tests/lang/errors_gaps8.dsl:14:9: error: gcd(): expected integer tensors, got f32 and i64 (PyTorch's gcd is defined on integers only)
# expect error line:   let r = gcd(tensor([4.0]), tensor([6]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = gcd(tensor([4.0]), tensor([6]))
# ---

# case: lcm of shapes that do not broadcast
# expect error: tests/lang/errors_gaps8.dsl:21:9: error: lcm(): argument 'other' of shape [3] cannot be broadcast with argument 'input' of shape [2] (dim -1: 2 vs 3)
# expect error line:   let r = lcm(tensor([1, 2]), tensor([1, 2, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = lcm(tensor([1, 2]), tensor([1, 2, 3]))
# ---

# case: frexp of an integer tensor
# expect error: tests/lang/errors_gaps8.dsl:28:9: error: frexp(): argument 'input' must be a floating tensor, got i64
# expect error line:   let r = frexp(tensor([1, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~
let r = frexp(tensor([1, 2]))
# ---

# case: nextafter across dtypes
# expect error: tests/lang/errors_gaps8.dsl:35:9: error: nextafter(): expected both inputs of one dtype, got f32 and f64
# expect error line:   let r = nextafter(tensor([1.0]), tensor([2.0], dtype=f64))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = nextafter(tensor([1.0]), tensor([2.0], dtype=f64))
# ---

# case: nextafter of f16
# expect error: tests/lang/errors_gaps8.dsl:42:9: error: nextafter(): argument 'input' must be f32 or f64, got f16
# expect error line:   let r = nextafter(tensor([1.0], dtype=f16), tensor([2.0], dtype=f16))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = nextafter(tensor([1.0], dtype=f16), tensor([2.0], dtype=f16))
# ---

# case: index_reduce with reduce="sum" (index_add's)
# expect error: tests/lang/errors_gaps8.dsl:49:9: error: index_reduce(): argument 'reduce' must be "prod", "mean", "amax" or "amin", got 'sum'
# expect error line:   let r = index_reduce(zeros(3), 0, tensor([0]), ones(1), "sum")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = index_reduce(zeros(3), 0, tensor([0]), ones(1), "sum")
# ---

# case: index_reduce with an index past the dim
# expect error: tests/lang/errors_gaps8.dsl:56:9: error: index_reduce(): argument 'index' holds 5, out of range for dim 0 of size 3
# expect error line:   let r = zeros(3).index_reduce(0, tensor([5]), ones(1), "prod")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = zeros(3).index_reduce(0, tensor([5]), ones(1), "prod")
# ---

# case: index_reduce with a source of the wrong shape
# expect error: tests/lang/errors_gaps8.dsl:63:9: error: index_reduce(): argument 'source' must have shape [2, 2] (the input's with 2 along dim 0), got [1, 2]
# expect error line:   let r = index_reduce(zeros(3, 2), 0, tensor([0, 1]), ones(1, 2), "amax")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = index_reduce(zeros(3, 2), 0, tensor([0, 1]), ones(1, 2), "amax")
# ---

# case: Gamma.rsample with a negative size
# expect error: tests/lang/errors_gaps8.dsl:71:9: error: distributions.Gamma.rsample(): sample_shape must be a list of sizes >= 0 (or one int), got [-1]
# expect error line:   let r = distributions.Gamma(2.0, 1.0).rsample([-1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let r = distributions.Gamma(2.0, 1.0).rsample([-1])
# ---

# case: linalg.lu_factor of a singular matrix
# expect error: tests/lang/errors_gaps8.dsl:79:9: error: linalg.lu_factor: U[2,2] is zero and using it on lu_solve would result in a division by zero; to factor anyway, call linalg.lu(A) or linalg.lu_factor_ex(A)
# expect error line:   let r = linalg.lu_factor(tensor([[1.0, 2.0], [2.0, 4.0]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lu_factor(tensor([[1.0, 2.0], [2.0, 4.0]]))
# ---

# case: linalg.lu_factor of a vector
# expect error: tests/lang/errors_gaps8.dsl:87:9: error: linalg.lu_factor: A must be a batch of matrices [..., m, n], got shape [3]
# expect error line:   let r = linalg.lu_factor(ones(3))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lu_factor(ones(3))
# ---

# case: linalg.lu_solve with pivots out of range
# expect error: tests/lang/errors_gaps8.dsl:95:9: error: linalg.lu_solve: pivots must be in [1, 2], got tensor([3, 2])
# expect error line:   let r = linalg.lu_solve(eye(2), tensor([3, 2]), ones(2, 1))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lu_solve(eye(2), tensor([3, 2]), ones(2, 1))
# ---

# case: linalg.solve_triangular without upper (it has no default)
# expect error: tests/lang/errors_gaps8.dsl:103:9: error: linalg.solve_triangular: upper must be given, true or false (it has no default, as PyTorch's), got none
# expect error line:   let r = linalg.solve_triangular(eye(2), ones(2, 1))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.solve_triangular(eye(2), ones(2, 1))
# ---

# case: linalg.solve_triangular of a zero diagonal
# expect error: tests/lang/errors_gaps8.dsl:111:9: error: linalg.solve_triangular: the triangular matrix is singular: its diagonal element 1 is zero (PyTorch's result would hold inf and NaN)
# expect error line:   let r = linalg.solve_triangular(zeros(2, 2), ones(2, 1), upper=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.solve_triangular(zeros(2, 2), ones(2, 1), upper=true)
# ---

# case: linalg.householder_product with too many taus
# expect error: tests/lang/errors_gaps8.dsl:119:9: error: linalg.householder_product: tau must have shape [..., k] with A's batch [] and k <= 2, got [3]
# expect error line:   let r = linalg.householder_product(ones(3, 2), ones(3))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.householder_product(ones(3, 2), ones(3))
# ---

# case: linalg.tensorinv of unequal products
# expect error: tests/lang/errors_gaps8.dsl:127:9: error: linalg.tensorinv: the product of A's first ind dims [2] (2) must equal that of the rest [3] (3)
# expect error line:   let r = linalg.tensorinv(ones(2, 3), ind=1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.tensorinv(ones(2, 3), ind=1)
# ---

# case: linalg.tensorsolve with a dim past A's
# expect error: tests/lang/errors_gaps8.dsl:135:9: error: linalg.tensorsolve: dims must be a list of dims of A (A is 3-D), got [7]
# expect error line:   let r = linalg.tensorsolve(ones(2, 3, 6), ones(2, 3), dims=[7])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.tensorsolve(ones(2, 3, 6), ones(2, 3), dims=[7])
# ---

# case: linalg.cond with p=3
# expect error: tests/lang/errors_gaps8.dsl:143:9: error: linalg.cond: p must be none, 2, -2, "fro", "nuc", inf, -inf, 1 or -1, got 3
# expect error line:   let r = linalg.cond(eye(2), p=3)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.cond(eye(2), p=3)
# ---

# case: linalg.cond by a norm of a rectangular matrix
# expect error: tests/lang/errors_gaps8.dsl:151:9: error: linalg.cond: with p='fro', A must be square, got shape [2, 3]
# expect error line:   let r = linalg.cond(ones(2, 3), p="fro")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.cond(ones(2, 3), p="fro")
# ---

# case: linalg.matrix_rank with tol and atol
# expect error: tests/lang/errors_gaps8.dsl:159:9: error: linalg.matrix_rank: give tol or atol and rtol, not both
# expect error line:   let r = linalg.matrix_rank(eye(2), tol=1.0, atol=1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_rank(eye(2), tol=1.0, atol=1.0)
# ---

# case: linalg.eigh with UPLO="X"
# expect error: tests/lang/errors_gaps8.dsl:167:9: error: linalg.eigh: UPLO must be "L" or "U", got 'X'
# expect error line:   let r = linalg.eigh(eye(2), UPLO="X")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.eigh(eye(2), UPLO="X")
# ---

# case: linalg.cholesky_ex with check_errors of a matrix that is not positive-definite
# expect error: tests/lang/errors_gaps8.dsl:175:9: error: linalg.cholesky_ex: the leading minor of order 1 is not positive-definite
# expect error line:   let r = linalg.cholesky_ex(-eye(2), check_errors=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.cholesky_ex(-eye(2), check_errors=true)
# ---

# case: linalg.inv_ex with check_errors of a singular matrix
# expect error: tests/lang/errors_gaps8.dsl:183:9: error: linalg.inv_ex: the matrix is singular: U[1,1] of its LU is zero
# expect error line:   let r = linalg.inv_ex(zeros(2, 2), check_errors=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.inv_ex(zeros(2, 2), check_errors=true)
# ---

# case: linalg.eig (its results are complex)
# expect error: tests/lang/errors_gaps8.dsl:191:9: error: linalg.eig: its results are complex, and nabla has no complex dtype; for a symmetric matrix use linalg.eigh(A)
# expect error line:   let r = linalg.eig(eye(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.eig(eye(2))
# ---

# case: fft.rfft (complex results)
# expect error: tests/lang/errors_gaps8.dsl:199:9: error: fft.rfft: the transform gives or takes complex tensors, and nabla has no complex dtype (Note [No complex dtype] in stdlib/fft.dsl); fft.fftfreq, rfftfreq, fftshift and ifftshift are available
# expect error line:   let r = fft.rfft(ones(4))
# expect error line:           ^~~~~~~~~~~~~~~~~
import fft
let r = fft.rfft(ones(4))
# ---

# case: fft.fftfreq with a spacing of 0
# expect error: tests/lang/errors_gaps8.dsl:207:9: error: fft.fftfreq: d must be a nonzero number, got 0
# expect error line:   let r = fft.fftfreq(4, d=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~
import fft
let r = fft.fftfreq(4, d=0)
# ---

# case: fft.fftshift with a dim past the input's
# expect error: tests/lang/errors_gaps8.dsl:215:9: error: fft.fftshift: dim must be none, a dim or a list of dims of input (input is 1-D), got 4
# expect error line:   let r = fft.fftshift(ones(3), dim=4)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
import fft
let r = fft.fftshift(ones(3), dim=4)
# ---

# case: vdot of a matrix
# expect error: tests/lang/errors_gaps8.dsl:222:9: error: vdot(): expected two 1-D tensors of one size, got shapes [2, 2] and [4]
# expect error line:   let r = vdot(ones(2, 2), ones(4))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
let r = vdot(ones(2, 2), ones(4))
# ---

# case: diagonal_scatter with a src of the wrong length
# expect error: tests/lang/errors_gaps8.dsl:229:9: error: diagonal_scatter(): argument 'src' must have the diagonal's shape [3], got [2]
# expect error line:   let r = diagonal_scatter(zeros(3, 3), ones(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = diagonal_scatter(zeros(3, 3), ones(2))
# ---

# case: diagonal_scatter with dim1 = dim2
# expect error: tests/lang/errors_gaps8.dsl:236:9: error: diagonal_scatter(): dim1 and dim2 must differ, got 1 twice
# expect error line:   let r = diagonal_scatter(zeros(3, 3), ones(3), 0, 1, 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = diagonal_scatter(zeros(3, 3), ones(3), 0, 1, 1)
# ---

# case: hann_window of a negative length
# expect error: tests/lang/errors_gaps8.dsl:243:9: error: hann_window(): argument 'window_length' must be at least 0, got -2
# expect error line:   let r = hann_window(-2)
# expect error line:           ^~~~~~~~~~~~~~~
let r = hann_window(-2)
# ---

# case: kaiser_window with a NaN beta
# expect error: tests/lang/errors_gaps8.dsl:250:9: error: kaiser_window(): argument 'beta' must be at least 0, got nan
# expect error line:   let r = kaiser_window(5, true, float("nan"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = kaiser_window(5, true, float("nan"))
# ---

# case: stft (its spectrum is complex)
# expect error: tests/lang/errors_gaps8.dsl:257:9: error: undefined name 'stft' (torch.stft's spectrum is complex, and nabla has no complex tensors; the windows exist: hann_window, hamming_window, blackman_window, bartlett_window, kaiser_window)
# expect error line:   let r = stft(ones(16), 4)
# expect error line:           ^~~~
let r = stft(ones(16), 4)
# ---

# case: StudentT with df of 0
# expect error: tests/lang/errors_gaps8.dsl:265:9: error: distributions.StudentT(): df must be above 0, got 0.0
# expect error line:   let d = distributions.StudentT(tensor([0.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.StudentT(tensor([0.0, 2.0]))
# ---

# case: Poisson's log_prob of a fraction
# expect error: tests/lang/errors_gaps8.dsl:273:9: error: distributions.Poisson.log_prob(): value must be a count (an integer at least 0), got 1.5
# expect error line:   let r = distributions.Poisson(2.0).log_prob(tensor([1.5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let r = distributions.Poisson(2.0).log_prob(tensor([1.5]))
# ---

# case: Geometric with probs of 0
# expect error: tests/lang/errors_gaps8.dsl:281:9: error: distributions.Geometric(): probs must be in (0, 1], got 0.0
# expect error line:   let d = distributions.Geometric(probs=tensor([0.0, 0.5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Geometric(probs=tensor([0.0, 0.5]))
# ---

# case: kl_divergence of two StudentT (PyTorch has no formula)
# expect error: tests/lang/errors_gaps8.dsl:289:9: error: distributions.kl_divergence(): no formula for the pair (StudentT, StudentT); the pairs are two of the same kind among ['Bernoulli', 'Beta', 'Binomial', 'Categorical', 'Cauchy', 'Chi2', 'Dirichlet', 'Exponential', 'Gamma', 'Geometric', 'Gumbel', 'HalfNormal', 'Independent', 'Laplace', 'LogNormal', 'MultivariateNormal', 'Normal', 'OneHotCategorical', 'Pareto', 'Poisson', 'Uniform']
# expect error line:   let r = distributions.kl_divergence(distributions.StudentT(2.0), distributions.StudentT(3.0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let r = distributions.kl_divergence(distributions.StudentT(2.0), distributions.StudentT(3.0))
# ---

# case: spectral_norm twice on one weight
# expect error: tests/lang/errors_gaps8.dsl:298:9: error: nn.utils.spectral_norm(): 'weight' already has spectral_norm; call remove_spectral_norm first
# expect error line:   let r = nn.utils.spectral_norm(m)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.spectral_norm(nn.Linear(2, 2))
let r = nn.utils.spectral_norm(m)
# ---

# case: spectral_norm of a missing parameter
# expect error: tests/lang/errors_gaps8.dsl:306:9: error: nn.utils.spectral_norm(): the module has no tensor field 'w'
# expect error line:   let r = nn.utils.spectral_norm(nn.Linear(2, 2), name="w")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.utils.spectral_norm(nn.Linear(2, 2), name="w")
# ---

# case: a window longer than any machine's memory is refused before it is filled
# expect error: tests/lang/errors_gaps8.dsl:311:9: error: out of memory: hann_window(): window_length=4611686018427387904 needs 4611686018427387904 x 16 bytes, more than any machine has (2^62)
let w = hann_window(2**62)
# ---
