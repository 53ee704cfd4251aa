# Hostile inputs, round 7: the recurrent layers' and cells' states (a wrong hx failed
# inside the gates' add, in matmul or as "int has no attribute 'ndim'"),
# MultiheadAttention's inputs and masks (mismatched batches and lengths failed in
# matmul or reshape, num_heads=0 as a division by zero), nn.Transformer's src and tgt,
# transposed convolutions of an empty input (named their internal output),
# repeat_interleave's counts past memory (a bare "vector::_M_fill_insert"), one_hot of
# floats (named item_int()), instance_norm of one value per channel (normalized it to
# 0), and interpolate's lists. Each is an error at the user's line naming what was
# expected and what was found.

# case: an RNNCell's hx of another batch (it failed in the gates' add)
# expect error: tests/lang/errors_hostile7.dsl:17:1: error: assertion failed: RNNCell: expected hx of shape [2, 4] for an input of shape [2, 3], got [3, 4]
# expect error line:   c(randn([2, 3]), randn([3, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let c = nn.RNNCell(3, 4)
c(randn([2, 3]), randn([3, 4]))
# ---

# case: an LSTMCell's hx given as one tensor (it was indexed as the pair)
# expect error: tests/lang/errors_hostile7.dsl:26:1: error: assertion failed: LSTMCell: expected hx as a pair of tensors (h0, c0), got tensor
# expect error line:   c(randn([2, 3]), randn([2, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let c = nn.LSTMCell(3, 4)
c(randn([2, 3]), randn([2, 4]))
# ---

# case: a GRUCell's input that is not a tensor ("int has no attribute 'ndim'")
# expect error: tests/lang/errors_hostile7.dsl:35:1: error: assertion failed: GRUCell: expected the input as a tensor, got int
# expect error line:   c(5)
# expect error line:   ^~~~
import nn
let c = nn.GRUCell(3, 4)
c(5)
# ---

# case: an unbatched LSTM's c0 named by the shape given (it showed the one made inside)
# expect error: tests/lang/errors_hostile7.dsl:44:1: error: assertion failed: LSTM: expected c0 of shape [1, 4] for an unbatched input, got [4]
# expect error line:   r(randn([5, 3]), (randn([1, 4]), randn([4])))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.LSTM(3, 4)
r(randn([5, 3]), (randn([1, 4]), randn([4])))
# ---

# case: a GRU's h0 of another dtype than the input's (it failed in the library's matmul)
# expect error: tests/lang/errors_hostile7.dsl:53:1: error: assertion failed: GRU: expected h0 in the input's dtype f32, got f64
# expect error line:   g(randn([5, 2, 3]), randn([1, 2, 4], dtype=f64))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let g = nn.GRU(3, 4)
g(randn([5, 2, 3]), randn([1, 2, 4], dtype=f64))
# ---

# case: MultiheadAttention with num_heads 0 (integer division by zero)
# expect error: tests/lang/errors_hostile7.dsl:61:1: error: assertion failed: MultiheadAttention: embed_dim and num_heads must be ints > 0, got embed_dim=4 and num_heads=0
# expect error line:   nn.MultiheadAttention(4, 0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.MultiheadAttention(4, 0)
# ---

# case: MultiheadAttention's key of another batch than the query's (it failed in matmul)
# expect error: tests/lang/errors_hostile7.dsl:70:1: error: assertion failed: MultiheadAttention: query, key and value must have one batch size (dim 1), got shapes [3, 2, 4], [5, 3, 4] and [5, 3, 4]
# expect error line:   m(randn([3, 2, 4]), randn([5, 3, 4]), randn([5, 3, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.MultiheadAttention(4, 2)
m(randn([3, 2, 4]), randn([5, 3, 4]), randn([5, 3, 4]))
# ---

# case: MultiheadAttention's unbatched query with batched key and value (it failed in reshape)
# expect error: tests/lang/errors_hostile7.dsl:79:1: error: assertion failed: MultiheadAttention: key and value must have query's 2 dims, got key of shape [5, 2, 4] and value of shape [5, 2, 4]
# expect error line:   m(randn([3, 4]), randn([5, 2, 4]), randn([5, 2, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.MultiheadAttention(4, 2)
m(randn([3, 4]), randn([5, 2, 4]), randn([5, 2, 4]))
# ---

# case: MultiheadAttention's attn_mask that is not a tensor ("int has no attribute 'dtype'")
# expect error: tests/lang/errors_hostile7.dsl:89:1: error: assertion failed: MultiheadAttention: expected attn_mask as a tensor, got int
# expect error line:   m(x, x, x, attn_mask=5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.MultiheadAttention(4, 2)
let x = randn([3, 2, 4])
m(x, x, x, attn_mask=5)
# ---

# case: an unbatched input's key_padding_mask named by the shape given ([1, 2] was shown)
# expect error: tests/lang/errors_hostile7.dsl:99:1: error: assertion failed: MultiheadAttention: key_padding_mask of an unbatched input must have shape [S] = [3], got [2]
# expect error line:   m(x, x, x, key_padding_mask=tensor([true, false]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.MultiheadAttention(4, 2)
let x = randn([3, 4])
m(x, x, x, key_padding_mask=tensor([true, false]))
# ---

# case: nn.Transformer's src and tgt of different batches (it failed in the decoder's attention)
# expect error: tests/lang/errors_hostile7.dsl:108:1: error: assertion failed: Transformer: src and tgt must have one batch size (dim 1), got src of shape [3, 2, 4] and tgt of shape [5, 3, 4]
# expect error line:   t(randn([3, 2, 4]), randn([5, 3, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let t = nn.Transformer(d_model=4, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=8)
t(randn([3, 2, 4]), randn([5, 3, 4]))
# ---

# case: a transposed convolution of an empty spatial dim (its error named an argument 'output')
# expect error: tests/lang/errors_hostile7.dsl:116:1: error: conv_transpose1d: argument 'input' of shape [1, 2, 0] has an empty spatial dim (only the batch or channel dim may be empty)
# expect error line:   nn.ConvTranspose1d(2, 4, 3)(randn([1, 2, 0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.ConvTranspose1d(2, 4, 3)(randn([1, 2, 0]))
# ---

# case: ConvTranspose2d's output_size with a 2-D input (the sizes were read off the wrong dims)
# expect error: tests/lang/errors_hostile7.dsl:125:1: error: assertion failed: ConvTranspose2d: expected a 3-D or 4-D (batched) input, got shape [2, 3]
# expect error line:   c(randn([2, 3]), output_size=[7, 7])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let c = nn.ConvTranspose2d(2, 4, 3, stride=2)
c(randn([2, 3]), output_size=[7, 7])
# ---

# case: repeat_interleave's counts adding up past 2^63 ("vector::_M_fill_insert")
# expect error: tests/lang/errors_hostile7.dsl:132:1: error: repeat_interleave: the repeats of shape [2] add up past 2^63
# expect error line:   repeat_interleave(tensor([1, 2]), tensor([4611686018427387904, 4611686018427387904]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
repeat_interleave(tensor([1, 2]), tensor([4611686018427387904, 4611686018427387904]))
# ---

# case: one_hot of a float tensor (the error named item_int())
# expect error: tests/lang/errors_hostile7.dsl:139:1: error: one_hot: input must be an integer tensor of class indices, got f32
# expect error line:   one_hot(tensor([0.0, 1.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
one_hot(tensor([0.0, 1.0]))
# ---

# case: InstanceNorm1d of one value per channel (every output was 0)
# expect error: tests/lang/errors_hostile7.dsl:147:1: error: instance_norm: expected more than 1 spatial element when using the input's statistics, got input of shape [2, 3, 1]
# expect error line:   nn.InstanceNorm1d(3)(randn([2, 3, 1]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.InstanceNorm1d(3)(randn([2, 3, 1]))
# ---

# case: interpolate's size list shorter than the spatial dims (it was spread over them)
# expect error: tests/lang/errors_hostile7.dsl:154:1: error: interpolate(): size must have one value per spatial dim (2 for input of shape [1, 1, 4, 4]), got 1 values
# expect error line:   interpolate(randn([1, 1, 4, 4]), size=[8], mode="bilinear")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
interpolate(randn([1, 1, 4, 4]), size=[8], mode="bilinear")
# ---

# case: GroupNorm with num_groups 0 ("divisible by num_groups (0)")
# expect error: tests/lang/errors_hostile7.dsl:162:1: error: assertion failed: GroupNorm: num_groups must be an int > 0, got 0
# expect error line:   nn.GroupNorm(0, 4)
# expect error line:   ^~~~~~~~~~~~~~~~~~
import nn
nn.GroupNorm(0, 4)
# ---

# case: a bool where an int is expected (PyTorch: "argument 'k' must be int, not bool"; it was k=1)
# expect error: tests/lang/errors_hostile7.dsl:169:1: error: topk(): argument 'k': expected an int, got bool
# expect error line:   topk(tensor([1.0, 3.0, 2.0]), true)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
topk(tensor([1.0, 3.0, 2.0]), true)
# ---

# case: a bool in a shape
# expect error: tests/lang/errors_hostile7.dsl:176:1: error: zeros: expected an int, got bool
# expect error line:   zeros([true, 2])
# expect error line:   ^~~~~~~~~~~~~~~~
zeros([true, 2])
# ---
