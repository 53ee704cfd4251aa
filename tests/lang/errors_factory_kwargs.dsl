# Factory arguments of nn's layers (Note [Factory arguments] in stdlib/_nn_init.dsl):
# a dtype that is not a floating dtype, a device nabla does not have. Each is one error
# at the user's line naming the layer and the argument (an unknown keyword error before
# layers took them). A CUDA device on a machine without a GPU is tested in
# tests/stdlib/test_nn_factory_kwargs.dsl (the message depends on the machine).

# case: a layer's dtype that is not a dtype (PyTorch's torch.float spelled as a string)
# expect error: tests/lang/errors_factory_kwargs.dsl:12:9: error: Linear: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got 'float'
# expect error line:   let l = nn.Linear(3, 4, dtype="float")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 4, dtype="float")
# ---

# case: an integer dtype for a layer whose init draws floating values (PyTorch refuses it too)
# expect error: tests/lang/errors_factory_kwargs.dsl:20:9: error: Linear: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got i64
# expect error line:   let l = nn.Linear(3, 4, dtype=i64)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 4, dtype=i64)
# ---

# case: a norm with integer running statistics
# expect error: tests/lang/errors_factory_kwargs.dsl:28:9: error: BatchNorm2d: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got i32
# expect error line:   let b = nn.BatchNorm2d(8, dtype=i32)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let b = nn.BatchNorm2d(8, dtype=i32)
# ---

# case: a device nabla does not have
# expect error: tests/lang/errors_factory_kwargs.dsl:36:9: error: LayerNorm: argument 'device' must be "cpu", "cuda", "cuda:N" or none, got 'tpu'
# expect error line:   let n = nn.LayerNorm(8, device="tpu")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let n = nn.LayerNorm(8, device="tpu")
# ---

# case: a device given as a number (nabla's devices are strings)
# expect error: tests/lang/errors_factory_kwargs.dsl:44:9: error: LSTM: argument 'device' must be "cpu", "cuda", "cuda:N" or none, got 0
# expect error line:   let r = nn.LSTM(3, 4, device=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
import nn
let r = nn.LSTM(3, 4, device=0)
# ---

# case: a layer of layers names itself, not the sublayer it passes the arguments to
# expect error: tests/lang/errors_factory_kwargs.dsl:52:9: error: TransformerEncoderLayer: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got i64
# expect error line:   let t = nn.TransformerEncoderLayer(8, 2, dtype=i64)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let t = nn.TransformerEncoderLayer(8, 2, dtype=i64)
# ---

# case: a lazy layer checks its arguments when it is made, not at its first call
# expect error: tests/lang/errors_factory_kwargs.dsl:60:9: error: LazyConv2d: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got 'double'
# expect error line:   let z = nn.LazyConv2d(4, 3, dtype="double")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let z = nn.LazyConv2d(4, 3, dtype="double")
# ---

# case: a dtype given a tensor
# expect error: tests/lang/errors_factory_kwargs.dsl:68:9: error: Embedding: argument 'dtype' must be a floating dtype (f32, f64, f16 or bf16) or none, got tensor
# expect error line:   let e = nn.Embedding(10, 4, dtype=zeros([1], dtype=f64))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let e = nn.Embedding(10, 4, dtype=zeros([1], dtype=f64))
# ---

# case: a CUDA index too long for any machine (it failed in int() of the index)
# expect error: tests/lang/errors_factory_kwargs.dsl:76:9: error: Linear: argument 'device' must be "cpu", "cuda", "cuda:N" or none, got 'cuda:99999999999999999999999'
# expect error line:   let l = nn.Linear(3, 4, device="cuda:99999999999999999999999")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.Linear(3, 4, device="cuda:99999999999999999999999")
# ---
