# Hostile inputs, round 4: format specs on tensors, data.Progress, save_image's format,
# host arrays sized by a user's number, flags that must be bools, prune's model argument,
# composites given none (SIGSEGV) or huge or non-finite sizes, the loss functions'
# shapes, layer constructors' sizes, ParameterDict's keys, LBFGS's closure. Each crashed,
# answered wrong, or failed inside the library; now each is an error at the user's line
# naming the function, the argument and what was found.

# case: a format spec on a tensor of two elements (PyTorch raises; the text was padded)
# expect error: tests/lang/errors_hostile4.dsl:12:7: error: format spec '.1f' needs a number or a one-element tensor, got a tensor of shape [2] (2 elements); format one element (t[0]), a reduction (t.sum()) or t.tolist() without a spec
# expect error line:   print(f"{tensor([1.0, 2.0]):.1f}")
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~
print(f"{tensor([1.0, 2.0]):.1f}")
# ---
# case: a format spec on a one-element tensor formats its number, as PyTorch's
# expect: 2.250    7 +1.50e+00
print(f"{tensor([2.25]):.3f} {tensor(7):>4d} {tensor(1.5, requires_grad=true):+.2e}")
# ---
# case: Progress with a negative total
# expect error: tests/lang/errors_hostile4.dsl:23:9: error: Progress(): total must be a count of steps, 0 or more (none: unknown), got -5
# expect error line:   let p = data.Progress(total=-5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
import data
let p = data.Progress(total=-5)
# ---
# case: Progress with a float total
# expect error: tests/lang/errors_hostile4.dsl:30:9: error: Progress(): total: expected an int count of steps (or none), got float
# expect error line:   let p = data.Progress(total=2.5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~
import data
let p = data.Progress(total=2.5)
# ---
# case: save_image to a .jpg path (PNG bytes were written under that name)
# expect error: tests/lang/errors_hostile4.dsl:37:1: error: save_image(): path 'picture.jpg' has extension '.jpg'; save_image writes PNG only: give a path ending in .png
# expect error line:   data.save_image(rand([3, 4, 4]), "picture.jpg")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
data.save_image(rand([3, 4, 4]), "picture.jpg")
# ---
# case: save_image to a path without an extension
# expect error: tests/lang/errors_hostile4.dsl:44:1: error: save_image(): path 'picture' has no extension; save_image writes PNG only: give a path ending in .png
# expect error line:   data.save_image(rand([4, 4]), "picture")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import data
data.save_image(rand([4, 4]), "picture")
# ---
# case: permutation of more elements than any machine holds (a bare 'out of memory')
# expect error: tests/lang/errors_hostile4.dsl:51:7: error: out of memory: permutation(n=1000000000000000000) needs 1000000000000000000 x 16 bytes, more than any machine has (2^62)
# expect error line:   print(data.permutation(1e18))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~
import data
print(data.permutation(1e18))
# ---
# case: bincount of a value near 2^63 (max + 1 wrapped negative: double free)
# expect error: tests/lang/errors_hostile4.dsl:57:7: error: out of memory: bincount(): 9223372036854775807 bins (the larger of max(input) + 1 and minlength=0) needs 9223372036854775807 x 16 bytes, more than any machine has (2^62)
# expect error line:   print(bincount(tensor([9223372036854775807])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(bincount(tensor([9223372036854775807])))
# ---
# case: histc with more bins than any machine holds (a bare 'out of memory')
# expect error: tests/lang/errors_hostile4.dsl:63:7: error: out of memory: histc(): bins=4611686018427387904 needs 4611686018427387904 x 16 bytes, more than any machine has (2^62)
# expect error line:   print(histc(tensor([1.0]), bins=4611686018427387904))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(histc(tensor([1.0]), bins=4611686018427387904))
# ---
# case: histc over an infinite range (a NaN bin index was used to write)
# expect error: tests/lang/errors_hostile4.dsl:70:7: error: histc(): the range [-inf, inf] is not finite
# expect error line:   print(histc(tensor([1.0, 2.0]), bins=4, min=-inf, max=inf))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let inf = float("inf")
print(histc(tensor([1.0, 2.0]), bins=4, min=-inf, max=inf))
# ---
# case: histc of data holding a NaN, with the data's range
# expect error: tests/lang/errors_hostile4.dsl:76:7: error: histc(): the range [nan, nan] is not finite (it is the input's min and max: give min= and max=)
# expect error line:   print(histc(tensor([float("nan"), 1.0])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(histc(tensor([float("nan"), 1.0])))
# ---
# case: tensor_split into 2^62 sections (hung building them)
# expect error: tests/lang/errors_hostile4.dsl:82:7: error: out of memory: tensor_split(): 4611686018427387904 sections needs 4611686018427387904 x 168 bytes, more than any machine has (2^62)
# expect error line:   print(tensor_split(zeros([3]), 4611686018427387904))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(tensor_split(zeros([3]), 4611686018427387904))
# ---
# case: unfold with a kernel larger than the input (a std::vector error's text)
# expect error: tests/lang/errors_hostile4.dsl:88:7: error: unfold(): input of shape [1, 1, 4, 4] with padding [0, 0] is smaller than the kernel [100000, 100000] (dilation [1, 1]) in spatial dim 0: no window fits
# expect error line:   print(unfold(randn([1, 1, 4, 4]), 100000))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(unfold(randn([1, 1, 4, 4]), 100000))
# ---
# case: a composite given none for a tensor (SIGSEGV)
# expect error: tests/lang/errors_hostile4.dsl:94:7: error: kron(): argument 'input' must be a tensor, got none
# expect error line:   print(kron(none, ones([2])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~
print(kron(none, ones([2])))
# ---
# case: matmul given none (SIGSEGV)
# expect error: tests/lang/errors_hostile4.dsl:100:7: error: matmul(): argument 'other' must be a tensor, got none
# expect error line:   print(matmul(ones([2, 2]), none))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~
print(matmul(ones([2, 2]), none))
# ---
# case: one_hot with num_classes -5 (taken as -1: found from the data)
# expect error: tests/lang/errors_hostile4.dsl:106:7: error: one_hot: num_classes must be -1 (the largest class + 1) or at least 0, got -5
# expect error line:   print(one_hot(tensor([1]), -5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~
print(one_hot(tensor([1]), -5))
# ---
# case: load_state_dict with a str strict (it was truthy: strict)
# expect error: tests/lang/errors_hostile4.dsl:114:1: error: load_state_dict(): strict: expected a bool, got str
# expect error line:   m.load_state_dict(m.state_dict(), strict="no")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(2, 2)
m.load_state_dict(m.state_dict(), strict="no")
# ---
# case: train() with a str mode (train("eval") trained)
# expect error: tests/lang/errors_hostile4.dsl:121:1: error: train(): mode: expected a bool, got str
# expect error line:   nn.Linear(2, 2).train("eval")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.Linear(2, 2).train("eval")
# ---
# case: sparsity_report of an int (failed inside the library on named_buffers)
# expect error: tests/lang/errors_hostile4.dsl:128:1: error: prune.sparsity_report(): model must be a model instance (an nn layer or a model of yours), got int
# expect error line:   prune.sparsity_report(5)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~
import prune
prune.sparsity_report(5)
# ---
# case: margin_ranking_loss with shapes that do not broadcast (the message named sub)
# expect error: tests/lang/errors_hostile4.dsl:134:7: error: margin_ranking_loss(): the shapes of input1 [4], input2 [3], target [4] do not broadcast together (dim -1: 4 vs 3 in argument 'input2')
# expect error line:   print(margin_ranking_loss(randn([4]), randn([3]), ones([4])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(margin_ranking_loss(randn([4]), randn([3]), ones([4])))
# ---
# case: cosine_embedding_loss with inputs of two shapes
# expect error: tests/lang/errors_hostile4.dsl:140:7: error: cosine_embedding_loss(): arguments 'input1' and 'input2' must have one shape, [N, D] or [D], got [4, 3] and [4, 2]
# expect error line:   print(cosine_embedding_loss(randn([4, 3]), randn([4, 2]), ones([4])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(cosine_embedding_loss(randn([4, 3]), randn([4, 2]), ones([4])))
# ---
# case: kl_div with shapes that do not broadcast
# expect error: tests/lang/errors_hostile4.dsl:146:7: error: kl_div(): argument 'input' of shape [2, 3] and argument 'target' of shape [2, 4] do not broadcast together (dim -1: 3 vs 4)
# expect error line:   print(kl_div(randn([2, 3]), randn([2, 4])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(kl_div(randn([2, 3]), randn([2, 4])))
# ---
# case: Conv2d with a negative kernel size (zeros(): negative size)
# expect error: tests/lang/errors_hostile4.dsl:153:1: error: Conv2d: argument 'kernel_size' must be an int or 2 ints, each >= 1, got -3
# expect error line:   nn.Conv2d(2, 4, -3)
# expect error line:   ^~~~~~~~~~~~~~~~~~~
import nn
nn.Conv2d(2, 4, -3)
# ---
# case: LazyConv2d with stride 0 is refused when made, not at its first call
# expect error: tests/lang/errors_hostile4.dsl:160:9: error: LazyConv2d: argument 'stride' must be an int or 2 ints, each >= 1, got 0
# expect error line:   let l = nn.LazyConv2d(4, 3, stride=0)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let l = nn.LazyConv2d(4, 3, stride=0)
# ---
# case: a ParameterDict key that names one of its methods (it replaced update)
# expect error: tests/lang/errors_hostile4.dsl:167:9: error: nn.ParameterDict: key 'update' is the name of one of the dict's own attributes or methods; choose another name
# expect error line:   let d = nn.ParameterDict({"update": ones([2])})
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let d = nn.ParameterDict({"update": ones([2])})
# ---
# case: a ParameterDict key holding a '.' (state_dict's separator)
# expect error: tests/lang/errors_hostile4.dsl:174:9: error: nn.ParameterDict: key 'a.b' is not a parameter name: it must be non-empty and hold no '.'
# expect error line:   let d = nn.ParameterDict({"a.b": ones([2])})
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let d = nn.ParameterDict({"a.b": ones([2])})
# ---
# case: LBFGS's closure returning a str (float() failed inside the step)
# expect error: tests/lang/errors_hostile4.dsl:184:1: error: optim.LBFGS.step(): the closure must return the loss, a one-element tensor or a number, got str
# expect error line:   o.step(fn() = "loss")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 2)
let o = optim.LBFGS(m.parameters())
o.step(fn() = "loss")
# ---
# case: LBFGS.step given an int
# expect error: tests/lang/errors_hostile4.dsl:194:1: error: optim.LBFGS.step(): closure must be a function of no arguments that zeroes the grads, computes the loss, calls backward() and returns it; got int
# expect error line:   o.step(5)
# expect error line:   ^~~~~~~~~
import nn
import optim
let m = nn.Linear(2, 2)
let o = optim.LBFGS(m.parameters())
o.step(5)
