# Hostile inputs, round 10: the quantization observers given what is not a tensor,
# an empty tensor (an error about min, or a reshape, inside the library) or NaN and
# infinities (a NaN or infinite scale, silently, or an int() error); quant.calibrate of
# batches that are not tensors; quant's and prune's helpers given what is not a model;
# histograms (log.SummaryWriter.add_histogram, plot.hist) of 2**61 bins (a hang) and
# image grids padded past 2^31 pixels; gradcheck with eps 0 or tolerances below 0 (a
# plain `false` that blamed the gradients); distill's temperature 0 or below and alpha
# outside [0, 1] (NaN or a wrong loss, silently); functional.one_hot of labels out of
# range (a row of zeros); a string left open at the end of a line; register_hook of a
# value that is not a function, quant.QuantizedTensor's parts and a QConfig's makers
# (each failed lines later), data.fashion_mnist's dir given as a number, and the quant
# transforms' flags and observer makers (inplace="no" converted the model in place).
# Each is now an error at the user's line naming what was expected and what was found.

# case: MinMaxObserver of a value that is not a tensor (int has no attribute 'detach', inside the library)
# expect error: tests/lang/errors_hostile10.dsl:21:1: error: quant.MinMaxObserver: expected a tensor to observe, got int
# expect error line:   obs(5)
# expect error line:   ^~~~~~
import quant
let obs = quant.MinMaxObserver()
obs(5)
# ---

# case: MinMaxObserver of NaN (calculate_qparams gave a NaN scale, silently)
# expect error: tests/lang/errors_hostile10.dsl:30:1: error: quant.MinMaxObserver: the observed tensor holds NaN or infinite values; a scale and zero point need finite ones
# expect error line:   obs(tensor([float("nan"), 1.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let obs = quant.MinMaxObserver()
obs(tensor([float("nan"), 1.0]))
# ---

# case: HistogramObserver of an infinity (int(): inf is outside the range of a 64-bit int, inside the library)
# expect error: tests/lang/errors_hostile10.dsl:39:1: error: quant.HistogramObserver: the observed tensor holds NaN or infinite values; a scale and zero point need finite ones
# expect error line:   obs(tensor([float("inf"), 1.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let obs = quant.HistogramObserver()
obs(tensor([float("inf"), 1.0]))
# ---

# case: MovingAveragePerChannelMinMaxObserver of -inf
# expect error: tests/lang/errors_hostile10.dsl:48:1: error: quant.MovingAveragePerChannelMinMaxObserver: the observed tensor holds NaN or infinite values; a scale and zero point need finite ones
# expect error line:   obs(tensor([[1.0, float("-inf")]]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let obs = quant.MovingAveragePerChannelMinMaxObserver(ch_axis=0)
obs(tensor([[1.0, float("-inf")]]))
# ---

# case: calibrate of batches that are not a list ('int' object is not iterable, inside the library)
# expect error: tests/lang/errors_hostile10.dsl:58:1: error: quant.calibrate(): batches must be a list of batches, got int
# expect error line:   quant.calibrate(prepared, 5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
import nn
let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)))
quant.calibrate(prepared, 5)
# ---

# case: calibrate of a batch whose input is not a tensor (int has no attribute 'numel', in an observer)
# expect error: tests/lang/errors_hostile10.dsl:68:1: error: quant.calibrate(): batch 1 must be a tensor or an (input, target) pair, got a tuple whose first item is int
# expect error line:   quant.calibrate(prepared, [(ones([4, 3]), 0), (5, 1)])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
import nn
let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)))
quant.calibrate(prepared, [(ones([4, 3]), 0), (5, 1)])
# ---

# case: model_size_bytes of a value that is not a model (int has no attribute 'state_dict')
# expect error: tests/lang/errors_hostile10.dsl:76:7: error: quant.model_size_bytes(): model must be a model instance, got int
# expect error line:   print(quant.model_size_bytes(5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~
import quant
print(quant.model_size_bytes(5))
# ---

# case: sync_input_qparams of a value that is not a model
# expect error: tests/lang/errors_hostile10.dsl:84:1: error: quant.sync_input_qparams(): model must be a model instance, got list
# expect error line:   quant.sync_input_qparams([1, 2])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
quant.sync_input_qparams([1, 2])
# ---

# case: prune.remove of a value that is not a layer (parameter 'weight' of int has to be pruned)
# expect error: tests/lang/errors_hostile10.dsl:92:1: error: prune.remove(): module must be a layer (a model instance), got int
# expect error line:   prune.remove(5)
# expect error line:   ^~~~~~~~~~~~~~~
import prune
prune.remove(5)
# ---

# case: prune.remove with a name that is not a str
# expect error: tests/lang/errors_hostile10.dsl:101:1: error: prune.remove(): name must be a str (the parameter's name, "weight"), got int
# expect error line:   prune.remove(nn.Linear(2, 2), 0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import prune
import nn
prune.remove(nn.Linear(2, 2), 0)
# ---

# case: add_histogram with 2**61 bins (its edges were pushed until the machine ran out: a hang)
# expect error: tests/lang/errors_hostile10.dsl:110:1: error: out of memory: add_histogram(bins=2305843009213693952) needs 2305843009213693952 x 16 bytes, more than any machine has (2^62)
# expect error line:   writer.add_histogram("w", randn([10]), 1, bins=2**61)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import log
let writer = log.SummaryWriter(env("TMPDIR", "/tmp") + "/nabla_hostile10_log")
writer.add_histogram("w", randn([10]), 1, bins=2**61)
# ---

# case: plot.hist with 2**61 bins (a bare out of memory)
# expect error: tests/lang/errors_hostile10.dsl:118:11: error: out of memory: hist(bins=2305843009213693952) needs 2305843009213693952 x 16 bytes, more than any machine has (2^62)
# expect error line:   let fig = plot.hist([1.0, 2.0], bins=2**61)
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import plot
let fig = plot.hist([1.0, 2.0], bins=2**61)
# ---

# case: image_grid padded past 2^31 pixels (width * height overflowed int64)
# expect error: tests/lang/errors_hostile10.dsl:126:11: error: image_grid(): the grid would be more than 2^31 pixels wide or high (2 images of 4 x 4, 2 a row, padding 1099511627776)
# expect error line:   let fig = plot.image_grid(zeros([2, 1, 4, 4]), padding=2**40)
# expect error line:             ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import plot
let fig = plot.image_grid(zeros([2, 1, 4, 4]), padding=2**40)
# ---

# case: gradcheck with eps 0 (every numeric derivative NaN: false, blaming the gradients)
# expect error: tests/lang/errors_hostile10.dsl:134:7: error: gradcheck(): eps must be a finite number other than 0, got 0.0
# expect error line:   print(gradcheck(fn(x) = (x * x).sum(), [x], eps=0))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = tensor([1.0, 2.0], dtype=f64, requires_grad=true)
print(gradcheck(fn(x) = (x * x).sum(), [x], eps=0))
# ---

# case: gradgradcheck with a negative atol (every comparison failed)
# expect error: tests/lang/errors_hostile10.dsl:142:7: error: gradgradcheck(): atol must be 0 or more, got -1e-05
# expect error line:   print(gradgradcheck(fn(x) = (x * x * x).sum(), [x], atol=-1e-5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = tensor([1.0, 2.0], dtype=f64, requires_grad=true)
print(gradgradcheck(fn(x) = (x * x * x).sum(), [x], atol=-1e-5))
# ---

# case: gradcheck with a NaN rtol
# expect error: tests/lang/errors_hostile10.dsl:150:7: error: gradcheck(): rtol must be 0 or more, got nan
# expect error line:   print(gradcheck(fn(x) = (x * x).sum(), [x], rtol=float("nan")))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = tensor([1.0, 2.0], dtype=f64, requires_grad=true)
print(gradcheck(fn(x) = (x * x).sum(), [x], rtol=float("nan")))
# ---

# case: distill.soft_targets at temperature 0 (every probability NaN, silently)
# expect error: tests/lang/errors_hostile10.dsl:158:7: error: distill.soft_targets(): temperature must be a positive finite number, got 0
# expect error line:   print(distill.soft_targets(randn([2, 3]), temperature=0))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distill
print(distill.soft_targets(randn([2, 3]), temperature=0))
# ---

# case: distill.kd_loss at a negative temperature (the teacher's ranking inverted, silently)
# expect error: tests/lang/errors_hostile10.dsl:166:7: error: distill.kd_loss(): temperature must be a positive finite number, got -2.0
# expect error line:   print(distill.kd_loss(randn([2, 3]), randn([2, 3]), tensor([0, 1]), temperature=-2.0))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distill
print(distill.kd_loss(randn([2, 3]), randn([2, 3]), tensor([0, 1]), temperature=-2.0))
# ---

# case: distill.kd_loss with alpha outside [0, 1] (a negative weight on the labels' loss)
# expect error: tests/lang/errors_hostile10.dsl:174:7: error: distill.kd_loss(): alpha must be a number in [0, 1], got 1.5
# expect error line:   print(distill.kd_loss(randn([2, 3]), randn([2, 3]), tensor([0, 1]), alpha=1.5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distill
print(distill.kd_loss(randn([2, 3]), randn([2, 3]), tensor([0, 1]), alpha=1.5))
# ---

# case: distill.kd_loss with a str temperature (cannot divide tensor and str)
# expect error: tests/lang/errors_hostile10.dsl:182:7: error: distill.kd_loss(): temperature must be a positive finite number, got str
# expect error line:   print(distill.kd_loss(randn([2, 3]), randn([2, 3]), tensor([0, 1]), temperature="hot"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distill
print(distill.kd_loss(randn([2, 3]), randn([2, 3]), tensor([0, 1]), temperature="hot"))
# ---

# case: functional.one_hot of a label past the classes (a row of zeros, silently)
# expect error: tests/lang/errors_hostile10.dsl:190:7: error: one_hot: class 5 is out of range for num_classes 3 (expected a value in [0, 3))
# expect error line:   print(functional.one_hot(tensor([0, 5]), 3))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import functional
print(functional.one_hot(tensor([0, 5]), 3))
# ---

# case: functional.one_hot of float labels (0.5 matched no class, 1.0 matched class 1)
# expect error: tests/lang/errors_hostile10.dsl:198:7: error: one_hot: input must be an integer tensor of class indices, got f32
# expect error line:   print(functional.one_hot(tensor([0.5, 1.0]), 3))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import functional
print(functional.one_hot(tensor([0.5, 1.0]), 3))
# ---

# case: a single-quoted string left open at the end of its line (the message read expected ''')
# expect syntax error: tests/lang/errors_hostile10.dsl:205:13: error: expected "'" to close the string started at 205:9
# expect error line:   let s = 'abc
# expect error line:               ^
let s = 'abc
print(s)
# ---

# case: register_hook of a value that is not a function (an error only at a later backward)
# expect error: tests/lang/errors_hostile10.dsl:214:1: error: register_hook(): hook must be a function of the gradient, got int
# expect error line:   x.register_hook(5)
# expect error line:   ^~~~~~~~~~~~~~~~~~
let x = tensor([1.0, 2.0], requires_grad=true)
x.register_hook(5)
(x * 2).sum().backward()
# ---

# case: QuantizedTensor of a value that is not a tensor (int has no attribute 'dtype', inside the library)
# expect error: tests/lang/errors_hostile10.dsl:223:9: error: quant.QuantizedTensor(): int_repr must be a u8, i8 or i32 tensor, got int
# expect error line:   let q = quant.QuantizedTensor(5, 0.1, 0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let q = quant.QuantizedTensor(5, 0.1, 0)
# ---

# case: QuantizedTensor with a scale of 0 (an error only at dequantize, lines later)
# expect error: tests/lang/errors_hostile10.dsl:231:9: error: quant.QuantizedTensor(): scale must be a positive finite number, got 0.0
# expect error line:   let q = quant.QuantizedTensor(tensor([10, 20], dtype=u8), 0.0, 0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let q = quant.QuantizedTensor(tensor([10, 20], dtype=u8), 0.0, 0)
print(q.dequantize())
# ---

# case: QuantizedTensor per channel with one scale too many
# expect error: tests/lang/errors_hostile10.dsl:240:9: error: quant.QuantizedTensor(): per channel, scale must be a 1-D tensor of 1 values (one per index of axis 0), got shape [2]
# expect error line:   let q = quant.QuantizedTensor(tensor([[1, 2]], dtype=i8), tensor([0.1, 0.2]), tensor([0, 0]), axis=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let q = quant.QuantizedTensor(tensor([[1, 2]], dtype=i8), tensor([0.1, 0.2]), tensor([0, 0]), axis=0)
# ---

# case: a QConfig whose activation maker makes no observer ('int' object is not callable at calibration)
# expect error: tests/lang/errors_hostile10.dsl:250:16: error: quant.prepare(): the qconfig's activation maker must make an observer (a module with calculate_qparams(), such as quant.MinMaxObserver()), got int
# expect error line:   let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)), qconfig=qconfig)
# expect error line:                  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
import nn
let qconfig = quant.QConfig(fn() = 5, quant.default_weight_observer)
let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)), qconfig=qconfig)
quant.calibrate(prepared, [ones([2, 3])])
# ---

# case: a QConfig whose weight maker makes a Linear (a shape error inside convert)
# expect error: tests/lang/errors_hostile10.dsl:261:16: error: quant.prepare(): the qconfig's weight maker must make an observer (a module with calculate_qparams(), such as quant.MinMaxObserver()), got Linear
# expect error line:   let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)), qconfig=qconfig)
# expect error line:                  ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
import nn
let qconfig = quant.QConfig(fn() = quant.MinMaxObserver(), fn() = nn.Linear(2, 2))
let prepared = quant.prepare(nn.Sequential(nn.Linear(3, 2)), qconfig=qconfig)
# ---

# case: fashion_mnist with a dir that is not a str (looked in a folder named 5)
# expect error: tests/lang/errors_hostile10.dsl:269:13: error: data.fashion_mnist(): dir must be a str (a folder), got int
# expect error line:   let train = data.fashion_mnist("train", dir=5)
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
let train = data.fashion_mnist("train", dir=5)
# ---

# case: quantize_dynamic with inplace="no" (a true value: the model was converted in place)
# expect error: tests/lang/errors_hostile10.dsl:279:9: error: quant.quantize_dynamic(): inplace must be true or false, got 'no'
# expect error line:   let q = quant.quantize_dynamic(m, inplace="no")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
import nn
let m = nn.Sequential(nn.Linear(3, 2))
let q = quant.quantize_dynamic(m, inplace="no")
# ---

# case: quantize_dynamic with a weight_observer that is not a maker ('int' object is not callable, inside the library)
# expect error: tests/lang/errors_hostile10.dsl:288:9: error: quant.quantize_dynamic(): weight_observer must be a function that makes an observer (fn() = quant.MinMaxObserver()), got int
# expect error line:   let q = quant.quantize_dynamic(nn.Sequential(nn.Linear(3, 2)), weight_observer=5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
import nn
let q = quant.quantize_dynamic(nn.Sequential(nn.Linear(3, 2)), weight_observer=5)
# ---
# case: a full backward hook returning as many grad_input entries as there are not inputs (it was ignored)
# expect error: tests/lang/errors_hostile10.dsl:298:1: error: a full backward hook returned 2 grad_input entries, but the call had 1 inputs
# expect error line:   m(x).sum().backward()
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(3, 2)
let x = randn([4, 3], requires_grad=true)
let h = m.register_full_backward_hook(fn(mod, gi, go) = (gi[0], gi[0]))
m(x).sum().backward()
# ---
# case: a forward hook that is not a function (accepted; it failed at the next call)
# expect error: tests/lang/errors_hostile10.dsl:306:9: error: register_forward_hook(): hook must be a function, got int
# expect error line:   let h = m.register_forward_hook(5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(3, 2)
let h = m.register_forward_hook(5)
# ---
# case: backward twice through a custom function ("none has no attribute 'saved'")
# expect error: tests/lang/errors_hostile10.dsl:325:1: error: backward through 'Twice' a second time: its saved tensors were freed after the first backward; pass retain_graph=true to the first call (its backward then failed: none has no attribute 'saved')
# expect error line:   y.backward(ones([3]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~
function Twice {
  forward(ctx, x) {
    ctx.save(x)
    return x * 2.0
  }
  backward(ctx, g) {
    let (x,) = ctx.saved
    return g * 2.0
  }
}
let x = randn([3], requires_grad=true)
let y = Twice(x)
y.backward(ones([3]))
y.backward(ones([3]))
# ---
