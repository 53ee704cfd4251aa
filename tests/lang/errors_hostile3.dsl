# Hostile inputs to graph mode, function transforms, in-place writes, help, quant and prune:
# each crashed, answered wrong, or failed with a message that did not name the argument or
# pointed elsewhere than the user's line; now each is an error at the calling line naming the
# function, the argument and what was found (or, where PyTorch has an answer, that answer).

# case: render_autograd of an int (an unchecked cast: SIGSEGV)
# expect error: tests/lang/errors_hostile3.dsl:10:1: error: render_autograd(): argument 'tensors' must be a tensor or a list of tensors, got int
# expect error line:   render_autograd(3)
# expect error line:   ^~~~~~~~~~~~~~~~~~
render_autograd(3)
# ---
# case: render_autograd of a str (SIGSEGV)
# expect error: tests/lang/errors_hostile3.dsl:16:1: error: render_autograd(): argument 'tensors' must be a tensor or a list of tensors, got str
# expect error line:   render_autograd("loss")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~
render_autograd("loss")
# ---
# case: render_autograd of a list holding a non-tensor names the element
# expect error: tests/lang/errors_hostile3.dsl:22:1: error: render_autograd(): argument 'tensors'[1]: expected a tensor, got int
# expect error line:   render_autograd([randn([2], requires_grad=true), 5])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
render_autograd([randn([2], requires_grad=true), 5])
# ---
# case: a graph module's render to a path that is not a str (wrote a file named "5")
# expect error: tests/lang/errors_hostile3.dsl:29:1: error: gm.render(): path: expected a str, got int
# expect error line:   gm.render(5)
# expect error line:   ^~~~~~~~~~~~
let gm = compile(fn(x) = x * 2, randn([2]))
gm.render(5)
# ---
# case: export_onnx to a path that is not a str
# expect error: tests/lang/errors_hostile3.dsl:35:1: error: export_onnx(): path: expected a str, got int
# expect error line:   export_onnx(fn(x) = x * 2, randn([2]), 5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
export_onnx(fn(x) = x * 2, randn([2]), 5)
# ---
# case: grad with an argument twice in argnums (the first came back as zeros)
# expect error: tests/lang/errors_hostile3.dsl:42:7: error: grad(): argnums holds 0 twice; give each argument once
# expect error line:   print(grad(f, argnums=(0, 0))(randn([3]), randn([3])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~
fn f(x, y) { return (x * y).sum() }
print(grad(f, argnums=(0, 0))(randn([3]), randn([3])))
# ---
# case: jacrev with an argument twice in argnums
# expect error: tests/lang/errors_hostile3.dsl:49:7: error: jacrev(): argnums holds 1 twice; give each argument once
# expect error line:   print(jacrev(f, argnums=(1, 0, 1))(randn([3]), randn([3])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn f(x, y) { return x * y }
print(jacrev(f, argnums=(1, 0, 1))(randn([3]), randn([3])))
# ---
# case: add_ into an expanded tensor (each location was written once per element: ones, not threes)
# expect error: tests/lang/errors_hostile3.dsl:56:1: error: add_: the tensor written in place (shape [3, 4]) has more than one element at one memory location (dim 0 was expanded: its stride is 0); write into a clone() of it, or into the tensor it was expanded from
# expect error line:   x.add_(1.0)
# expect error line:   ^~~~~~~~~~~
let x = zeros([1, 4]).expand([3, 4])
x.add_(1.0)
# ---
# case: copy_ into an expanded tensor (only the last row was kept)
# expect error: tests/lang/errors_hostile3.dsl:63:1: error: copy_: the tensor written in place (shape [3, 4]) has more than one element at one memory location (dim 0 was expanded: its stride is 0); write into a clone() of it, or into the tensor it was expanded from
# expect error line:   x.copy_(randn([3, 4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~
let x = zeros([4]).expand([3, 4])
x.copy_(randn([3, 4]))
# ---
# case: fill_ and zero_ of an expanded tensor
# expect error: tests/lang/errors_hostile3.dsl:70:1: error: copy_: the tensor written in place (shape [3, 4]) has more than one element at one memory location (dim 1 was expanded: its stride is 0); write into a clone() of it, or into the tensor it was expanded from
# expect error line:   x.fill_(2.0)
# expect error line:   ^~~~~~~~~~~~
let x = zeros([3, 1]).expand([3, 4])
x.fill_(2.0)
# ---
# case: a write through an index into an expanded dim
# expect error: tests/lang/errors_hostile3.dsl:77:1: error: copy_: the tensor written in place (shape [3]) has more than one element at one memory location (dim 0 was expanded: its stride is 0); write into a clone() of it, or into the tensor it was expanded from
# expect error line:   x[:, 0] = tensor([1.0, 2.0, 3.0])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = zeros([1, 4]).expand([3, 4])
x[:, 0] = tensor([1.0, 2.0, 3.0])
# ---
# case: writes into a part of an expanded tensor with no shared memory are allowed, as in PyTorch
# expect: [1.0, 2.0, 3.0, 4.0]
# expect: [[5.0, 5.0, 5.0, 5.0], [6.0, 6.0, 6.0, 6.0], [7.0, 7.0, 7.0, 7.0]]
let base = zeros([4])
let x = base.expand([3, 4])
x[1] = tensor([1.0, 2.0, 3.0, 4.0])
print(base.tolist())
let y = zeros([3, 1]).expand([3, 4])
y[:, 0] = tensor([5.0, 6.0, 7.0])
print(y.tolist())
# ---
# case: help of an undefined dotted name (was located at "<help>:1:1")
# expect error: tests/lang/errors_hostile3.dsl:94:1: error: undefined name 'nonexistent'
# expect error line:   help("nonexistent.thing")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~
help("nonexistent.thing")
# ---
# case: help of an undefined name keeps its suggestion
# expect error: tests/lang/errors_hostile3.dsl:100:1: error: undefined name 'prnt'; did you mean 'print'?
# expect error line:   help("prnt")
# expect error line:   ^~~~~~~~~~~~
help("prnt")
# ---
# case: an observer with quant_min above quant_max (gave a scale of eps and a zero point outside the range)
# expect error: tests/lang/errors_hostile3.dsl:107:9: error: quant.MinMaxObserver(): the range [quant_min, quant_max] must hold 0 and more than one value, got [10, 5]
# expect error line:   let o = quant.MinMaxObserver(quant_min=10, quant_max=5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let o = quant.MinMaxObserver(quant_min=10, quant_max=5)
# ---
# case: an observer of a dtype that is not quantized (failed only at calculate_qparams)
# expect error: tests/lang/errors_hostile3.dsl:114:9: error: quant.MinMaxObserver(): dtype must be u8, i8 or i32, got f32
# expect error line:   let o = quant.MinMaxObserver(dtype=f32)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let o = quant.MinMaxObserver(dtype=f32)
# ---
# case: an observer given quant_min alone
# expect error: tests/lang/errors_hostile3.dsl:121:9: error: quant.PerChannelMinMaxObserver(): give both quant_min and quant_max or neither, got quant_min=-5, quant_max=none
# expect error line:   let o = quant.PerChannelMinMaxObserver(quant_min=-5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let o = quant.PerChannelMinMaxObserver(quant_min=-5)
# ---
# case: a range outside the dtype's
# expect error: tests/lang/errors_hostile3.dsl:128:9: error: quant.MovingAverageMinMaxObserver(): quant_min and quant_max must lie in [0, 255] (the range of u8), got [0, 300]
# expect error line:   let o = quant.MovingAverageMinMaxObserver(quant_min=0, quant_max=300)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let o = quant.MovingAverageMinMaxObserver(quant_min=0, quant_max=300)
# ---
# case: HistogramObserver with no bins (scatter_add: index -1 out of bounds)
# expect error: tests/lang/errors_hostile3.dsl:135:9: error: quant.HistogramObserver(): bins must be an int of at least 1, got 0
# expect error line:   let o = quant.HistogramObserver(bins=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let o = quant.HistogramObserver(bins=0)
# ---
# case: HistogramObserver with upsample_rate 0
# expect error: tests/lang/errors_hostile3.dsl:142:9: error: quant.HistogramObserver(): upsample_rate must be an int of at least 1, got 0
# expect error line:   let o = quant.HistogramObserver(upsample_rate=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import quant
let o = quant.HistogramObserver(upsample_rate=0)
# ---
# case: a per-channel observer whose ch_axis the input lacks (transpose: dim 4 out of range)
# expect error: tests/lang/errors_hostile3.dsl:150:1: error: quant.PerChannelMinMaxObserver: ch_axis 4 is out of range for an input of shape [3, 2]
# expect error line:   o(randn([3, 2]))
# expect error line:   ^~~~~~~~~~~~~~~~
import quant
let o = quant.PerChannelMinMaxObserver(ch_axis=4)
o(randn([3, 2]))
# ---
# case: FakeQuantize of a number (failed at the first forward: 'int' object is not callable)
# expect error: tests/lang/errors_hostile3.dsl:157:9: error: quant.FakeQuantize(): observer must be an observer (a module with calculate_qparams(), such as quant.MinMaxObserver()), got int
# expect error line:   let f = quant.FakeQuantize(5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~
import quant
let f = quant.FakeQuantize(5)
# ---
# case: l1_unstructured with importance_scores of another shape (a broadcast error inside where)
# expect error: tests/lang/errors_hostile3.dsl:165:1: error: prune.l1_unstructured(): importance_scores of shape [2] must have the parameter's shape [4, 3]
# expect error line:   prune.l1_unstructured(nn.Linear(3, 4), importance_scores=randn([2]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import prune
import nn
prune.l1_unstructured(nn.Linear(3, 4), importance_scores=randn([2]))
# ---
# case: ln_structured with importance_scores of another shape
# expect error: tests/lang/errors_hostile3.dsl:173:1: error: prune.ln_structured(): importance_scores of shape [4] must have the parameter's shape [4, 3]
# expect error line:   prune.ln_structured(nn.Linear(3, 4), amount=1, importance_scores=randn([4]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import prune
import nn
prune.ln_structured(nn.Linear(3, 4), amount=1, importance_scores=randn([4]))
# ---
# case: custom_from_mask with a mask of another shape (a broadcast error inside mul)
# expect error: tests/lang/errors_hostile3.dsl:181:1: error: prune.custom_from_mask(): mask of shape [2, 2] must have the parameter's shape [4, 3]
# expect error line:   prune.custom_from_mask(nn.Linear(3, 4), mask=ones([2, 2]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import prune
import nn
prune.custom_from_mask(nn.Linear(3, 4), mask=ones([2, 2]))
# ---
# case: ln_structured with a norm that is not a number (cannot raise tensor and str)
# expect error: tests/lang/errors_hostile3.dsl:189:1: error: prune.ln_structured(): n (the order of the norm) must be a number such as 1, 2 or math.inf, got 'fro'
# expect error line:   prune.ln_structured(nn.Linear(3, 4), amount=0.5, n="fro")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import prune
import nn
prune.ln_structured(nn.Linear(3, 4), amount=0.5, n="fro")
# ---
# case: global_unstructured of no parameters (cat: expected a non-empty list)
# expect error: tests/lang/errors_hostile3.dsl:196:1: error: prune.global_unstructured(): parameters is empty: give at least one (module, name) pair
# expect error line:   prune.global_unstructured([], amount=0.5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import prune
prune.global_unstructured([], amount=0.5)
# ---
# case: export_onnx of a function whose if compile lowers to a cond (called "a custom op with no body")
# expect error: tests/lang/errors_hostile3.dsl:207:1: error: export_onnx: cond at tests/lang/errors_hostile3.dsl:204:3: control flow (an if, while or for on a tensor, which compile lowered to cond), which this exporter does not write as ONNX (If, Loop, Scan) yet
# expect error line:   export_onnx(f, randn([3]), "/nonexistent-folder/f.onnx")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fn f(x) {
  let h = x
  if x.sum() > 0 { h = x * 2 } else { h = -x }
  return h
}
export_onnx(f, randn([3]), "/nonexistent-folder/f.onnx")

# ---
# case: the gradient of a sum is stored dense, so in-place updates of .grad work (zero_ and clip's mul_ would hit the overlap check)
# expect: [0.0, 0.0, 0.0]
# expect: [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0]]
# expect: true
let w = randn([3], requires_grad=true)
w.sum().backward()
print(w.grad.zero_().tolist())
let v = randn([2, 3], requires_grad=true)
(v.sum() * 2).backward()
v.grad.mul_(0.5)
print(v.grad.tolist())
print(v.grad.is_contiguous())
