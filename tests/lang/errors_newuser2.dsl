# Errors met in the second round of training programs written as a PyTorch user
# (tests/stdlib/train/test_newuser2_*.dsl): a constructor argument read as a field,
# assigning .data (PixelCNN's weight.data *= mask), `is` chains, and a line break
# before an operator outside brackets (inside them it continues the expression).
# The asserts of nn.utils.weight_norm and distributions are checked with expect_error
# in tests/stdlib/train/test_newuser2_tcn.dsl and tests/stdlib/test_distributions.dsl.

# case: a constructor argument read as a field says how to read or keep it
# expect error: tests/lang/errors_newuser2.dsl:13:26: error: model Chomp1d has no attribute 'chomp' ('chomp' is an argument of the constructor, not a field: methods read it as 'chomp', or add the member 'chomp = chomp' to make it one, as PyTorch's self.chomp = chomp)
# expect error line:     forward(x) = x[:, :, :-self.chomp]
# expect error line:                            ^~~~~~~~~~
model Chomp1d(chomp) {
  forward(x) = x[:, :, :-self.chomp]
}
let c = Chomp1d(2)
c(zeros([1, 1, 5]))
# ---
# case: weight.data = a tensor of another shape
# expect error: tests/lang/errors_newuser2.dsl:24:1: error: tensor.data = ...: the new data has shape [2, 1, 2, 2], the tensor [2, 1, 3, 3] (nabla copies the values in place; a new shape needs a new tensor)
# expect error line:   c.weight.data = zeros([2, 1, 2, 2])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let c = nn.Conv2d(1, 2, 3)
c.weight.data = zeros([2, 1, 2, 2])
# ---
# case: weight.data = a list
# expect error: tests/lang/errors_newuser2.dsl:32:1: error: tensor.data must be a tensor, got list
# expect error line:   p.data = [0.0, 1.0]
# expect error line:   ^~~~~~~~~~~~~~~~~~~
import nn
let p = nn.Linear(2, 2).bias
p.data = [0.0, 1.0]
# ---
# case: is does not chain
# expect syntax error: tests/lang/errors_newuser2.dsl:39:14: error: comparisons do not chain (write 'a < b and b < c', or bracket one of them)
# expect error line:   print(a is a is a)
# expect error line:                ^
let a = 1
print(a is a is a)
# ---
# case: a line break before an operator outside brackets ends the statement
# expect syntax error: tests/lang/errors_newuser2.dsl:47:1: error: expected a statement
# expect error line:   * 2
# expect error line:   ^
let a = 1
let b = a
* 2
# ---
# case: finfo of an integer dtype names iinfo
# expect error: tests/lang/errors_newuser2.dsl:53:9: error: finfo(): i64 is not a floating dtype (iinfo() gives the limits of integer ones)
# expect error line:   let m = finfo(long).min
# expect error line:           ^~~~~~~~~~~
let m = finfo(long).min
# ---
# case: a missing function of nn.utils names nn.utils, not the library file behind it
# expect error: tests/lang/errors_newuser2.dsl:60:1: error: module 'nn.utils' has no attribute 'clip_grad_norm'; did you mean 'clip_grad_norm_'?
# expect error line:   nn.utils.clip_grad_norm([], 1.0)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.utils.clip_grad_norm([], 1.0)
# ---
# case: normal() with a negative std
# expect error: tests/lang/errors_newuser2.dsl:66:9: error: normal(): std must be at least 0, got -1.0
# expect error line:   let s = normal(zeros(2), -ones(2))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
let s = normal(zeros(2), -ones(2))
# ---
# case: normal() of numbers without a size
# expect error: tests/lang/errors_newuser2.dsl:72:9: error: normal(): with a number mean and std, give size (normal(0.0, 1.0, [3]))
# expect error line:   let s = normal(0.0, 1.0)
# expect error line:           ^~~~~~~~~~~~~~~~
let s = normal(0.0, 1.0)
# ---
# case: normal() of a tensor mean with a size
# expect error: tests/lang/errors_newuser2.dsl:78:9: error: normal(): size is for a number mean and std; with a tensor the shape is its own
# expect error line:   let s = normal(zeros(2), 1.0, [2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~
let s = normal(zeros(2), 1.0, [2])
# ---
