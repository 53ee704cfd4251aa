# Round 6 (tests/stdlib/test_gaps_vs_torch6.dsl): the argument errors of the functions
# round 5 found missing (polygamma, rsub, clamp_min, prod's dtype, logdet, trapezoid,
# mse_loss's broadcasting, grid_sample's bicubic mode, nn.init's eye_, dirac_,
# orthogonal_ and sparse_, nn.Identity), each at the user's line naming the function,
# the argument, what was expected and what was found.

# case: polygamma of a negative order
# expect error: tests/lang/errors_gaps6.dsl:11:1: error: polygamma(): argument 'n' must be 0 or more (the order of the derivative of digamma), got -1
# expect error line:   polygamma(-1, tensor([1.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
polygamma(-1, tensor([1.0]))
# ---

# case: polygamma of a fractional order (PyTorch's n is an int)
# expect error: tests/lang/errors_gaps6.dsl:18:1: error: polygamma(): argument 'n': expected an int, got float
# expect error line:   polygamma(1.5, tensor([1.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
polygamma(1.5, tensor([1.0]))
# ---

# case: polygamma with its arguments in the row's order, input first
# expect error: tests/lang/errors_gaps6.dsl:26:1: error: polygamma(): argument 'n' must be an int, got a tensor (torch.polygamma(n, input) takes the order first)
# expect error line:   polygamma(x, 2)
# expect error line:   ^~~~~~~~~~~~~~~
let x = tensor([1.0, 2.0])
polygamma(x, 2)
# ---

# case: x.polygamma of a negative order
# expect error: tests/lang/errors_gaps6.dsl:33:1: error: polygamma(): argument 'n' must be 0 or more (the order of the derivative of digamma), got -2
# expect error line:   tensor([1.0]).polygamma(-2)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
tensor([1.0]).polygamma(-2)
# ---

# case: polygamma without its input
# expect error: tests/lang/errors_gaps6.dsl:40:1: error: polygamma() missing required argument 'input'
# expect error line:   polygamma(2)
# expect error line:   ^~~~~~~~~~~~
polygamma(2)
# ---

# case: logdet of a matrix that is not square
# expect error: tests/lang/errors_gaps6.dsl:47:1: error: logdet(): argument 'input' must be a batch of square matrices [*, n, n], got shape [2, 3]
# expect error line:   logdet(ones([2, 3]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~
logdet(ones([2, 3]))
# ---

# case: logdet of an integer matrix
# expect error: tests/lang/errors_gaps6.dsl:54:1: error: logdet(): argument 'input' must be a floating tensor, got i64
# expect error line:   logdet(tensor([[1, 2], [3, 4]]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
logdet(tensor([[1, 2], [3, 4]]))
# ---

# case: trapezoid with one x per sample missing
# expect error: tests/lang/errors_gaps6.dsl:61:1: error: trapezoid(): there must be one x value for each sample point: x has 3 but y has 5 along dim 1
# expect error line:   trapezoid(ones([3, 5]), tensor([0.0, 1.0, 2.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
trapezoid(ones([3, 5]), tensor([0.0, 1.0, 2.0]))
# ---

# case: trapezoid with both x and dx
# expect error: tests/lang/errors_gaps6.dsl:68:1: error: trapezoid(): argument 'x' and argument 'dx' cannot both be given
# expect error line:   trapezoid(ones([5]), tensor([0.0, 1.0, 2.0, 3.0, 4.0]), dx=0.5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
trapezoid(ones([5]), tensor([0.0, 1.0, 2.0, 3.0, 4.0]), dx=0.5)
# ---

# case: trapezoid of a 0-dim tensor
# expect error: tests/lang/errors_gaps6.dsl:75:1: error: trapz(): argument 'y' must have at least one dim, got a 0-dim tensor
# expect error line:   trapz(tensor(1.0))
# expect error line:   ^~~~~~~~~~~~~~~~~~
trapz(tensor(1.0))
# ---

# case: trapezoid along a dim the input lacks
# expect error: tests/lang/errors_gaps6.dsl:82:1: error: trapezoid(): argument 'dim': dim 2 is out of range for a tensor of 1 dimension (expected a dim in [-1, 0])
# expect error line:   trapezoid(ones([3]), dim=2)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
trapezoid(ones([3]), dim=2)
# ---

# case: trapezoid with a string for dx
# expect error: tests/lang/errors_gaps6.dsl:89:1: error: trapezoid(): argument 'dx': expected a number, got str
# expect error line:   trapezoid(ones([3]), dx="1")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
trapezoid(ones([3]), dx="1")
# ---

# case: rsub of two numbers
# expect error: tests/lang/errors_gaps6.dsl:96:1: error: rsub(): argument 'input' or argument 'other' must be a tensor, got float and float
# expect error line:   rsub(1.0, 2.0)
# expect error line:   ^~~~~~~~~~~~~~
rsub(1.0, 2.0)
# ---

# case: clamp_min with a string bound
# expect error: tests/lang/errors_gaps6.dsl:103:1: error: clamp_min(): argument 'min': expected a number, got str
# expect error line:   clamp_min(ones([2]), "0")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~
clamp_min(ones([2]), "0")
# ---

# case: prod with a dtype that is not one
# expect error: tests/lang/errors_gaps6.dsl:110:1: error: prod(): argument 'dtype': unknown dtype 'float64x' (expected f32, f64, f16, bf16, i64, i32, i16, i8, u8 or bool)
# expect error line:   prod(ones([2, 2]), 1, dtype="float64x")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
prod(ones([2, 2]), 1, dtype="float64x")
# ---

# case: mse_loss of shapes that do not broadcast
# expect error: tests/lang/errors_gaps6.dsl:117:1: error: mse_loss(): the shapes of input [3, 4], target [5] do not broadcast together (dim -1: 4 vs 5 in argument 'target')
# expect error line:   mse_loss(ones([3, 4]), ones([5]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
mse_loss(ones([3, 4]), ones([5]))
# ---

# case: grid_sample's bicubic mode on a volume
# expect error: tests/lang/errors_gaps6.dsl:124:1: error: grid_sample(): mode "bicubic" samples 4-D inputs [N, C, H, W] only (as PyTorch's), got shape [1, 1, 2, 2, 2]
# expect error line:   grid_sample(ones([1, 1, 2, 2, 2]), zeros([1, 1, 1, 1, 3]), mode="bicubic")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
grid_sample(ones([1, 1, 2, 2, 2]), zeros([1, 1, 1, 1, 3]), mode="bicubic")
# ---

# case: grid_sample's mode misspelt
# expect error: tests/lang/errors_gaps6.dsl:131:1: error: grid_sample(): argument 'mode' must be "bilinear", "nearest" or "bicubic", got "cubic"
# expect error line:   grid_sample(ones([1, 1, 2, 2]), zeros([1, 1, 1, 2]), mode="cubic")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
grid_sample(ones([1, 1, 2, 2]), zeros([1, 1, 1, 2]), mode="cubic")
# ---

# case: eye_ of a 3-D tensor
# expect error: tests/lang/errors_gaps6.dsl:139:1: error: eye_(): only tensors with 2 dims are supported, got a tensor of shape [2, 2, 2]
# expect error line:   nn.init.eye_(zeros([2, 2, 2]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.eye_(zeros([2, 2, 2]))
# ---

# case: dirac_ of a matrix
# expect error: tests/lang/errors_gaps6.dsl:147:1: error: dirac_(): only tensors with 3, 4 or 5 dims are supported, got a tensor of shape [4, 4]
# expect error line:   nn.init.dirac_(zeros([4, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.dirac_(zeros([4, 4]))
# ---

# case: dirac_ with groups that do not divide the output channels
# expect error: tests/lang/errors_gaps6.dsl:155:1: error: dirac_(): dim 0 of the tensor (3) must be divisible by groups (2)
# expect error line:   nn.init.dirac_(zeros([3, 2, 3, 3]), groups=2)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.dirac_(zeros([3, 2, 3, 3]), groups=2)
# ---

# case: dirac_ with groups 0
# expect error: tests/lang/errors_gaps6.dsl:163:1: error: dirac_(): argument 'groups' must be an int >= 1, got 0
# expect error line:   nn.init.dirac_(zeros([2, 2, 3]), groups=0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.dirac_(zeros([2, 2, 3]), groups=0)
# ---

# case: orthogonal_ of a vector
# expect error: tests/lang/errors_gaps6.dsl:171:1: error: orthogonal_(): only tensors with 2 or more dims are supported, got a tensor of shape [3]
# expect error line:   nn.init.orthogonal_(zeros([3]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.orthogonal_(zeros([3]))
# ---

# case: sparse_ with a sparsity past 1
# expect error: tests/lang/errors_gaps6.dsl:179:1: error: sparse_(): argument 'sparsity' must be a number from 0 to 1, got 1.5
# expect error line:   nn.init.sparse_(zeros([4, 4]), 1.5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.sparse_(zeros([4, 4]), 1.5)
# ---

# case: sparse_ of a 3-D tensor
# expect error: tests/lang/errors_gaps6.dsl:187:1: error: sparse_(): only tensors with 2 dims are supported, got a tensor of shape [4, 4, 2]
# expect error line:   nn.init.sparse_(zeros([4, 4, 2]), 0.5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.sparse_(zeros([4, 4, 2]), 0.5)
# ---

# case: nn.Identity with keyword arguments (the language has no **kwargs)
# expect error: tests/lang/errors_gaps6.dsl:195:9: error: Identity() got an unexpected keyword argument 'unused' (it takes no keyword arguments)
# expect error line:   let m = nn.Identity(54, unused=0.1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Identity(54, unused=0.1)
# ---
