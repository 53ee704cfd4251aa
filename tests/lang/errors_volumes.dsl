# Errors of the volume functions and layers, the sampling grids, the weighted and CTC
# losses, packed sequences and compile(optimizer=): each names the function, the
# argument and what was found, at the calling line.

# case: max_pool3d with a kernel larger than the volume
# expect error: tests/lang/errors_volumes.dsl:9:9: error: max_pool3d(): input of shape [1, 1, 2, 2, 2] is too small for kernel [3, 3, 3] with padding [0, 0, 0] and dilation [1, 1, 1]
# expect error line:   let r = max_pool3d(randn([1, 1, 2, 2, 2]), 3)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = max_pool3d(randn([1, 1, 2, 2, 2]), 3)
# ---
# case: avg_pool3d with padding past half the kernel
# expect error: tests/lang/errors_volumes.dsl:15:9: error: avg_pool3d(): argument 'padding' [0, 2, 0] must be at most half of 'kernel_size' [2, 2, 2]
# expect error line:   let r = avg_pool3d(randn([1, 1, 4, 4, 4]), 2, padding=[0, 2, 0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = avg_pool3d(randn([1, 1, 4, 4, 4]), 2, padding=[0, 2, 0])
# ---
# case: adaptive_max_pool3d given two sizes
# expect error: tests/lang/errors_volumes.dsl:21:9: error: adaptive_max_pool3d(): argument 'output_size' must be an int or three, got 2 values
# expect error line:   let r = adaptive_max_pool3d(randn([1, 1, 4, 4, 4]), [2, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = adaptive_max_pool3d(randn([1, 1, 4, 4, 4]), [2, 2])
# ---
# case: conv_transpose3d with output_padding not smaller than the stride
# expect error: tests/lang/errors_volumes.dsl:27:9: error: conv_transpose3d(): argument 'output_padding' [0, 2, 0] must be smaller than the stride or the dilation in each dim (stride [2, 2, 2], dilation [1, 1, 1])
# expect error line:   let r = conv_transpose3d(randn([1, 2, 2, 2, 2]), randn([2, 1, 2, 2, 2]), stride=2, output_padding=[0, 2, 0])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = conv_transpose3d(randn([1, 2, 2, 2, 2]), randn([2, 1, 2, 2, 2]), stride=2, output_padding=[0, 2, 0])
# ---
# case: conv_transpose3d with channels the weight does not take
# expect error: tests/lang/errors_volumes.dsl:33:9: error: conv_transpose3d(): argument 'input' has 3 channels but the weight [2, 1, 2, 2, 2] takes 2
# expect error line:   let r = conv_transpose3d(randn([1, 3, 2, 2, 2]), randn([2, 1, 2, 2, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = conv_transpose3d(randn([1, 3, 2, 2, 2]), randn([2, 1, 2, 2, 2]))
# ---
# case: nn.ConvTranspose3d asked for an output size it cannot make
# expect error: tests/lang/errors_volumes.dsl:40:9: error: assertion failed: ConvTranspose3d: requested an output size of [9, 6, 6], but dim 0 can only be 6 to 7 for an input of [3, 3, 3]
# expect error line:   let r = nn.ConvTranspose3d(2, 2, 2, stride=2)(randn([1, 2, 3, 3, 3]), output_size=[9, 6, 6])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.ConvTranspose3d(2, 2, 2, stride=2)(randn([1, 2, 3, 3, 3]), output_size=[9, 6, 6])
# ---
# case: grid_sample with a grid of another batch
# expect error: tests/lang/errors_volumes.dsl:46:9: error: grid_sample(): argument 'grid' must be [N, H_out, W_out, 2] with the input's N (2), got shape [1, 3, 3, 2]
# expect error line:   let r = grid_sample(randn([2, 1, 4, 4]), randn([1, 3, 3, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = grid_sample(randn([2, 1, 4, 4]), randn([1, 3, 3, 2]))
# ---
# case: grid_sample with an unknown padding mode
# expect error: tests/lang/errors_volumes.dsl:52:9: error: grid_sample(): argument 'padding_mode' must be "zeros", "border" or "reflection", got "wrap"
# expect error line:   let r = grid_sample(randn([1, 1, 4, 4]), randn([1, 3, 3, 2]), padding_mode="wrap")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = grid_sample(randn([1, 1, 4, 4]), randn([1, 3, 3, 2]), padding_mode="wrap")
# ---
# case: affine_grid with theta of the wrong shape
# expect error: tests/lang/errors_volumes.dsl:58:9: error: affine_grid(): argument 'theta' must be a floating [N, 2, 3] for size N = 1, got f32[1, 3, 3]
# expect error line:   let r = affine_grid(randn([1, 3, 3]), [1, 1, 4, 4])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = affine_grid(randn([1, 3, 3]), [1, 1, 4, 4])
# ---
# case: cross_entropy with a class weight per wrong class count
# expect error: tests/lang/errors_volumes.dsl:64:9: error: cross_entropy(): argument 'weight' must be a floating 1-D tensor of 3 class weights (the input's dim 1), got f32[4]
# expect error line:   let r = cross_entropy(randn([4, 3]), tensor([0, 1, 2, 0]), weight=ones([4]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = cross_entropy(randn([4, 3]), tensor([0, 1, 2, 0]), weight=ones([4]))
# ---
# case: cross_entropy with probabilities of another shape
# expect error: tests/lang/errors_volumes.dsl:70:9: error: cross_entropy(): a floating target holds class probabilities and must have the input's shape [4, 3], got [4, 2]
# expect error line:   let r = cross_entropy(randn([4, 3]), rand([4, 2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = cross_entropy(randn([4, 3]), rand([4, 2]))
# ---
# case: ctc_loss with a target equal to the blank
# expect error: tests/lang/errors_volumes.dsl:76:9: error: ctc_loss(): target 0 of sequence 0 must be a class 0 to 2 other than the blank 0
# expect error line:   let r = ctc_loss(log_softmax(randn([5, 1, 3]), 2), tensor([[0, 1]]), [5], [2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let r = ctc_loss(log_softmax(randn([5, 1, 3]), 2), tensor([[0, 1]]), [5], [2])
# ---
# case: pack_padded_sequence with unsorted lengths
# expect error: tests/lang/errors_volumes.dsl:83:9: error: assertion failed: nn.utils.rnn.pack_padded_sequence(): lengths must be sorted in decreasing order when enforce_sorted=true, got [2, 4] (pass enforce_sorted=false to sort them)
# expect error line:   let r = nn.utils.rnn.pack_padded_sequence(randn([4, 2, 3]), [2, 4])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.utils.rnn.pack_padded_sequence(randn([4, 2, 3]), [2, 4])
# ---
# case: an optimizer inside a compiled graph without train=true
# expect error: tests/lang/errors_volumes.dsl:93:9: error: compile(): optimizer= steps the optimizer inside a training step; add train=true (the function's first result is the loss): compile(loss_fn, x, y, train=true, optimizer=opt)
# expect error line:   let r = compile(loss, randn([3, 2]), optimizer=optim.Adam(m.parameters()))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 1)
fn loss(x) = m(x).sum()
let r = compile(loss, randn([3, 2]), optimizer=optim.Adam(m.parameters()))
# ---
# case: a model that is not an optimizer as compile's optimizer
# expect error: tests/lang/errors_volumes.dsl:103:9: error: compile(): optimizer must be an optimizer of optim (SGD, Adam, AdamW, RMSprop, Adagrad, Adamax, NAdam, RAdam, Adadelta, Rprop, ASGD), got a Linear
# expect error line:   let r = compile(loss, randn([3, 2]), train=true, optimizer=m)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 1)
fn loss(x) = m(x).sum()
let r = compile(loss, randn([3, 2]), train=true, optimizer=m)
