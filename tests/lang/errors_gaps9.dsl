# Round 9's additions given bad arguments (tests/stdlib/test_gaps_vs_torch9*.dsl check their
# values): lerp and norm of integer tensors, dtype strs, as_strided, as_strided_scatter,
# histogramdd and is_same_size (stdlib/_torch_gaps9.dsl), fractional_max_pool2d/3d
# (stdlib/_nn_fractional.dsl), interpolate's antialias (stdlib/_nn_antialias.dsl), the
# in-place view ops, autocast's dtype, nn.utils.parametrizations.orthogonal and
# spectral_norm (stdlib/_nn_orthogonal.dsl), MixtureSameFamily, Multinomial and
# TransformedDistribution with its transforms (stdlib/_distributions_*.dsl). Each is an
# error at the user's line naming the argument, what it must be and what was found.

# case: lerp of integer tensors (PyTorch's kernels are floating only)
# expect error: tests/lang/errors_gaps9.dsl:14:9: error: lerp(): input must be a floating tensor, got i64 (PyTorch's lerp is not implemented for integer or bool tensors; convert with .float())
# expect error line:   let r = lerp(tensor([1, 2]), tensor([3, 4]), 0.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = lerp(tensor([1, 2]), tensor([3, 4]), 0.5)
# ---

# case: norm of an integer tensor (PyTorch's norms need a floating dtype)
# expect error: tests/lang/errors_gaps9.dsl:21:9: error: norm: the input must be a floating tensor, got i64 (PyTorch's norms need a floating dtype; convert with .float())
# expect error line:   let r = tensor([3, 4]).norm()
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~
let r = tensor([3, 4]).norm()
# ---

# case: linalg.vector_norm of a bool tensor
# expect error: tests/lang/errors_gaps9.dsl:29:9: error: norm: the input must be a floating tensor, got bool (PyTorch's norms need a floating dtype; convert with .float())
# expect error line:   let r = linalg.vector_norm(tensor([true, false]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.vector_norm(tensor([true, false]))
# ---

# case: a dtype str that is no dtype's name
# expect error: tests/lang/errors_gaps9.dsl:36:9: error: zeros(): dtype: unknown dtype 'int128' (expected f32, f64, f16, bf16, i64, i32, i16, i8, u8 or bool)
# expect error line:   let r = zeros(2, dtype="int128")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
let r = zeros(2, dtype="int128")
# ---

# case: as_strided reading past the input's storage
# expect error: tests/lang/errors_gaps9.dsl:43:9: error: as_strided(): size [5, 5], stride [2, 1] and storage_offset 0 read storage elements 0 to 12, outside the input's (storage elements 0 to 11 of shape [12])
# expect error line:   let r = arange(12.0).as_strided([5, 5], [2, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = arange(12.0).as_strided([5, 5], [2, 1])
# ---

# case: as_strided with a negative stride
# expect error: tests/lang/errors_gaps9.dsl:50:9: error: as_strided(): negative strides are not supported (as PyTorch's), got [-1, 1]
# expect error line:   let r = arange(6.0).as_strided([2, 2], [-1, 1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = arange(6.0).as_strided([2, 2], [-1, 1])
# ---

# case: as_strided with size and stride of different lengths
# expect error: tests/lang/errors_gaps9.dsl:57:9: error: as_strided(): size [2, 2] and stride [1] must have the same length (2 and 1)
# expect error line:   let r = as_strided(arange(6.0), [2, 2], [1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = as_strided(arange(6.0), [2, 2], [1])
# ---

# case: as_strided reading a storage element between a slice's elements
# expect error: tests/lang/errors_gaps9.dsl:64:9: error: as_strided(): size [4], stride [1] and storage_offset 1 read a storage element between the input's elements (shape [3, 2], stride [4, 1]), which nabla's as_strided cannot reach (Note [as_strided reads the input's elements])
# expect error line:   let r = arange(12.0).reshape([3, 4])[:, 1:3].as_strided([4], [1])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = arange(12.0).reshape([3, 4])[:, 1:3].as_strided([4], [1])
# ---

# case: histogramdd with one bins entry too many
# expect error: tests/lang/errors_gaps9.dsl:71:9: error: histogramdd(): bins must have one entry per dim of the points (2), got 3
# expect error line:   let r = histogramdd(randn([5, 2]), bins=[2, 2, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = histogramdd(randn([5, 2]), bins=[2, 2, 2])
# ---

# case: histogramdd with a range of the wrong length
# expect error: tests/lang/errors_gaps9.dsl:78:9: error: histogramdd(): range must be 4 numbers (min and max of each of the 2 dims), got [0.0, 1.0]
# expect error line:   let r = histogramdd(randn([5, 2]), bins=2, range=[0.0, 1.0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = histogramdd(randn([5, 2]), bins=2, range=[0.0, 1.0])
# ---

# case: histogramdd of integer points
# expect error: tests/lang/errors_gaps9.dsl:85:9: error: histogramdd(): input must be a floating tensor, got i64
# expect error line:   let r = histogramdd(tensor([[1, 2]]), bins=2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = histogramdd(tensor([[1, 2]]), bins=2)
# ---

# case: fractional_max_pool2d without output_size or output_ratio
# expect error: tests/lang/errors_gaps9.dsl:92:9: error: fractional_max_pool2d(): give output_size or output_ratio
# expect error line:   let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2)
# ---

# case: fractional_max_pool2d with a pool too large for the output
# expect error: tests/lang/errors_gaps9.dsl:99:9: error: fractional_max_pool2d(): pool height 2 too large relative to input height 5 (output height 5: output + pool - 1 must be <= input)
# expect error line:   let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=5)
# ---

# case: fractional_max_pool2d with _random_samples of the wrong shape
# expect error: tests/lang/errors_gaps9.dsl:106:9: error: fractional_max_pool2d(): _random_samples must be a tensor of shape [1, 1, 2] (one sample in [0, 1) per plane and dim), got [2, 1, 2]
# expect error line:   let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=3, _random_samples=rand([2, 1, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=3, _random_samples=rand([2, 1, 2]))
# ---

# case: fractional_max_pool2d with a sample outside [0, 1)
# expect error: tests/lang/errors_gaps9.dsl:113:9: error: fractional_max_pool2d(): _random_samples must lie in [0, 1), got values from 0.5 to 1.0
# expect error line:   let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=3, _random_samples=tensor([[[0.5, 1.0]]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = fractional_max_pool2d(randn([1, 1, 5, 5]), 2, output_size=3, _random_samples=tensor([[[0.5, 1.0]]]))
# ---

# case: nn.FractionalMaxPool2d with an output_ratio of 1.5
# expect error: tests/lang/errors_gaps9.dsl:121:9: error: nn.FractionalMaxPool2d(): output_ratio must be in (0, 1), got 1.5
# expect error line:   let m = nn.FractionalMaxPool2d(2, output_ratio=1.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.FractionalMaxPool2d(2, output_ratio=1.5)
# ---

# case: parametrizations.orthogonal with an unknown map
# expect error: tests/lang/errors_gaps9.dsl:129:9: error: nn.utils.parametrizations.orthogonal(): orthogonal_map must be "matrix_exp", "cayley" or "householder", got 'qr'
# expect error line:   let m = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), orthogonal_map="qr")
# ---

# case: parametrizations.orthogonal of a 1-D weight
# expect error: tests/lang/errors_gaps9.dsl:137:9: error: nn.utils.parametrizations.orthogonal(): expected a matrix or batch of matrices, got a tensor of 1 dims (shape [3])
# expect error line:   let m = nn.utils.parametrizations.orthogonal(nn.LayerNorm(3))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.parametrizations.orthogonal(nn.LayerNorm(3))
# ---

# case: parametrizations.orthogonal without a trivialization
# expect error: tests/lang/errors_gaps9.dsl:145:9: error: nn.utils.parametrizations.orthogonal(): use_trivialization=false is not supported (nabla's orthogonal keeps a base, as PyTorch's default)
# expect error line:   let m = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), use_trivialization=false)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3), use_trivialization=false)
# ---

# case: fractional_max_pool3d of a 2-D input
# expect error: tests/lang/errors_gaps9.dsl:152:9: error: fractional_max_pool3d(): input must be [C, T, H, W] or [N, C, T, H, W], got shape [4, 4]
# expect error line:   let r = fractional_max_pool3d(randn([4, 4]), 2, output_size=2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = fractional_max_pool3d(randn([4, 4]), 2, output_size=2)
# ---

# case: unsqueeze_ of a leaf that requires grad
# expect error: tests/lang/errors_gaps9.dsl:160:1: error: unsqueeze_(): a leaf tensor that requires grad cannot be modified in place (wrap the update in no_grad)
# expect error line:   w.unsqueeze_(0)
# expect error line:   ^~~~~~~~~~~~~~~
let w = randn([2], requires_grad=true)
w.unsqueeze_(0)
# ---

# case: is_same_size of a tensor and a number
# expect error: tests/lang/errors_gaps9.dsl:167:9: error: is_same_size(): expected two tensors, got tensor and int
# expect error line:   let r = is_same_size(ones(2), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
let r = is_same_size(ones(2), 2)
# ---

# case: autocast with a dtype that is not a half one
# expect error: tests/lang/errors_gaps9.dsl:174:1: error: autocast: dtype must be bf16 or f16, got f64
# expect error line:   autocast("cpu", dtype=f64) { let r = 1 }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
autocast("cpu", dtype=f64) { let r = 1 }
# ---

# case: parametrizations.spectral_norm with no power iterations
# expect error: tests/lang/errors_gaps9.dsl:182:9: error: nn.utils.parametrizations.spectral_norm(): n_power_iterations must be an int > 0, got 0
# expect error line:   let m = nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.utils.parametrizations.spectral_norm(nn.Linear(2, 2), n_power_iterations=0)
# ---

# case: as_strided_scatter with src of another shape
# expect error: tests/lang/errors_gaps9.dsl:189:9: error: as_strided_scatter(): src must be a tensor of shape [2] (the view's), got [3]
# expect error line:   let r = as_strided_scatter(zeros(6), ones(3), [2], [2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = as_strided_scatter(zeros(6), ones(3), [2], [2])
# ---

# case: interpolate with antialias in nearest mode
# expect error: tests/lang/errors_gaps9.dsl:196:9: error: interpolate(): antialias is only supported for the "bilinear" and "bicubic" modes (as PyTorch's), got mode 'nearest'
# expect error line:   let r = interpolate(randn([1, 1, 4, 4]), size=[2, 2], mode="nearest", antialias=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = interpolate(randn([1, 1, 4, 4]), size=[2, 2], mode="nearest", antialias=true)
# ---

# case: MixtureSameFamily with a component count that differs
# expect error: tests/lang/errors_gaps9.dsl:205:9: error: distributions.MixtureSameFamily(): the mixture has 3 components but component_distribution's batch_shape [4] ends in 4
# expect error line:   let m = D.MixtureSameFamily(D.Categorical(logits=zeros(3)), D.Normal(zeros(4), 1.0))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let D = distributions
let m = D.MixtureSameFamily(D.Categorical(logits=zeros(3)), D.Normal(zeros(4), 1.0))
# ---

# case: Multinomial with a tensor total_count
# expect error: tests/lang/errors_gaps9.dsl:213:9: error: distributions.Multinomial(): total_count must be an int >= 0 (PyTorch has no per-batch total_count), got tensor([1., 1.])
# expect error line:   let m = distributions.Multinomial(ones(2), probs=tensor([0.5, 0.5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let m = distributions.Multinomial(ones(2), probs=tensor([0.5, 0.5]))
# ---

# case: TransformedDistribution with a number for a transform
# expect error: tests/lang/errors_gaps9.dsl:221:9: error: distributions.TransformedDistribution(): transforms must be a transform or a list of transforms, got float
# expect error line:   let d = distributions.TransformedDistribution(distributions.Normal(0.0, 1.0), [1.0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.TransformedDistribution(distributions.Normal(0.0, 1.0), [1.0])
# ---

# case: TransformedDistribution whose transform spans more dims than the base
# expect error: tests/lang/errors_gaps9.dsl:229:9: error: distributions.TransformedDistribution(): the transforms' event_dim 1 is more than the base distribution's 0 dims (shape [])
# expect error line:   let d = distributions.TransformedDistribution(distributions.Normal(0.0, 1.0), distributions.AffineTransform(0.0, 1.0, event_dim=1))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.TransformedDistribution(distributions.Normal(0.0, 1.0), distributions.AffineTransform(0.0, 1.0, event_dim=1))
# ---

# case: AffineTransform with a str loc
# expect error: tests/lang/errors_gaps9.dsl:237:9: error: distributions.AffineTransform(): loc must be a number or a tensor, got str
# expect error line:   let t = distributions.AffineTransform("a", 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let t = distributions.AffineTransform("a", 1.0)
# ---
