# Errors of the torch.nn.functional functions written in stdlib/_nn_functional.dsl and
# the layers of stdlib/_nn_extra.dsl: each names the function, the argument, what
# was expected and what was found, at the calling line.

# case: pdist of a 3-D input
# expect error: tests/lang/errors_nn_extra.dsl:9:9: error: pdist(): argument 'input' must be a 2-D tensor [N, M], got shape [2, 3, 4]
# expect error line:   let r = pdist(randn([2, 3, 4]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
let r = pdist(randn([2, 3, 4]))
# ---
# case: local_response_norm of a matrix
# expect error: tests/lang/errors_nn_extra.dsl:15:9: error: local_response_norm(): argument 'input' must have 3 or more dims [N, C, *], got shape [3, 4]
# expect error line:   let r = local_response_norm(randn([3, 4]), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = local_response_norm(randn([3, 4]), 2)
# ---
# case: multi_margin_loss with a class beyond the input's
# expect error: tests/lang/errors_nn_extra.dsl:21:9: error: multi_margin_loss(): argument 'target' holds class 3, outside [0, 2] for the input's 3 classes
# expect error line:   let r = multi_margin_loss(randn([2, 3]), tensor([0, 3]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = multi_margin_loss(randn([2, 3]), tensor([0, 3]))
# ---
# case: multilabel_margin_loss with a target of another shape
# expect error: tests/lang/errors_nn_extra.dsl:27:9: error: multilabel_margin_loss(): argument 'target' must have the input's shape [2, 3], got [3]
# expect error line:   let r = multilabel_margin_loss(randn([2, 3]), tensor([0, 1, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = multilabel_margin_loss(randn([2, 3]), tensor([0, 1, 2]))
# ---
# case: triplet_margin_with_distance_loss with margin 0
# expect error: tests/lang/errors_nn_extra.dsl:33:9: error: triplet_margin_with_distance_loss(): argument 'margin' must be > 0, got 0.0
# expect error line:   let r = triplet_margin_with_distance_loss(randn([2, 3]), randn([2, 3]), randn([2, 3]), margin=0.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = triplet_margin_with_distance_loss(randn([2, 3]), randn([2, 3]), randn([2, 3]), margin=0.0)
# ---
# case: relu_ of a leaf that requires grad
# expect error: tests/lang/errors_nn_extra.dsl:39:9: error: relu_(): argument 'input' is a leaf tensor that requires grad, which cannot be modified in place (use the out-of-place form, or wrap the update in no_grad)
# expect error line:   let r = relu_(randn([3], requires_grad=true))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = relu_(randn([3], requires_grad=true))
# ---
# case: gumbel_softmax with tau 0
# expect error: tests/lang/errors_nn_extra.dsl:45:9: error: gumbel_softmax(): argument 'tau' must be > 0, got 0.0
# expect error line:   let r = gumbel_softmax(randn([2, 5]), tau=0.0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = gumbel_softmax(randn([2, 5]), tau=0.0)
# ---
# case: rrelu with lower above upper
# expect error: tests/lang/errors_nn_extra.dsl:51:9: error: rrelu(): argument 'lower' (0.5) must not be greater than 'upper' (0.2)
# expect error line:   let r = rrelu(randn([4]), lower=0.5, upper=0.2, training=true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = rrelu(randn([4]), lower=0.5, upper=0.2, training=true)
# ---
# case: lp_pool2d with a kernel of three sizes
# expect error: tests/lang/errors_nn_extra.dsl:57:9: error: lp_pool2d(): argument 'kernel_size' must be an int or 2 ints, each >= 1, got [2, 2, 2]
# expect error line:   let r = lp_pool2d(randn([1, 1, 4, 4]), 2, [2, 2, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = lp_pool2d(randn([1, 1, 4, 4]), 2, [2, 2, 2])
# ---
# case: max_unpool2d with an index outside the output
# expect error: tests/lang/errors_nn_extra.dsl:63:9: error: max_unpool2d(): argument 'indices' holds 7, outside the output's plane of 4 cells (output size [2, 2])
# expect error line:   let r = max_unpool2d(randn([1, 1, 1, 1]), tensor([[[[7]]]]), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = max_unpool2d(randn([1, 1, 1, 1]), tensor([[[[7]]]]), 2)
# ---
# case: upsample_bilinear of a 3-D input
# expect error: tests/lang/errors_nn_extra.dsl:69:9: error: upsample_bilinear(): argument 'input' must be 4-D [N, C, H, W], got shape [1, 2, 4]
# expect error line:   let r = upsample_bilinear(randn([1, 2, 4]), scale_factor=2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = upsample_bilinear(randn([1, 2, 4]), scale_factor=2)
# ---
# case: nn.LazyConv2d whose first input's channels groups do not divide
# expect error: tests/lang/errors_nn_extra.dsl:76:9: error: LazyConv2d: the input's 3 channels must be divisible by groups (2)
# expect error line:   let r = nn.LazyConv2d(4, 3, groups=2)(randn([1, 3, 5, 5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.LazyConv2d(4, 3, groups=2)(randn([1, 3, 5, 5]))
# ---
# case: nn.SyncBatchNorm of an input with other channels
# expect error: tests/lang/errors_nn_extra.dsl:83:9: error: SyncBatchNorm: expected an input with 3 channels (dim 1), got shape [4, 2, 5]
# expect error line:   let r = nn.SyncBatchNorm(3)(randn([4, 2, 5]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.SyncBatchNorm(3)(randn([4, 2, 5]))
