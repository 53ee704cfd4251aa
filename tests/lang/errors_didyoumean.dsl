# Did-you-mean and Python habits: each case runs alone (sections split by '# ---');
# the first line of the message is checked exactly. A lookup that fails by name (an
# undefined name, an attribute or method, a module, a keyword argument) names the
# closest valid names; a keyword lists the valid ones too. Python spellings that are
# not nabla's get a one-line hint at the place they start.
# case: undefined local: the parameter it was meant to be
# expect error: tests/lang/errors_didyoumean.dsl:8:20: error: undefined name 'wieght'; did you mean 'weight'?
fn scale(weight) = wieght * 2
scale(1)
# ---
# case: undefined global
# expect error: tests/lang/errors_didyoumean.dsl:14:7: error: undefined name 'totl'; did you mean 'total'?
let total = 3
print(totl)
# ---
# case: undefined builtin
# expect error: tests/lang/errors_didyoumean.dsl:18:1: error: undefined name 'prnt'; did you mean 'print'?
prnt(1)
# ---
# case: assignment to a misspelled name keeps the let advice
# expect error: tests/lang/errors_didyoumean.dsl:23:1: error: undefined name 'totl' (declare it with let); did you mean 'total'?
let total = 0
totl = 1
# ---
# case: a member of an imported module, unqualified
# expect error: tests/lang/errors_didyoumean.dsl:28:10: error: undefined name 'Lienar'; did you mean 'nn.Linear' or 'linear'?
import nn
let fc = Lienar(3, 4)
# ---
# case: a module used before its import
# expect error: tests/lang/errors_didyoumean.dsl:32:10: error: undefined name 'nn' (it is a module: write 'import nn' first)
let fc = nn.Linear(3, 4)
# ---
# case: a name far from every other gets no suggestion
# expect error: tests/lang/errors_didyoumean.dsl:36:7: error: undefined name 'zzqqx'
print(zzqqx)
# ---
# case: the loop variable of a comprehension does not leak
# expect error: tests/lang/errors_didyoumean.dsl:41:7: error: undefined name 'i'; did you mean 'i0' or 'i8'?
let squares = [i * i for i in range(3)]
print(i)
# ---
# case: model field
# expect error: tests/lang/errors_didyoumean.dsl:47:7: error: model Linear has no attribute 'wieght'; did you mean 'weight'?
import nn
let m = nn.Linear(3, 4)
print(m.wieght)
# ---
# case: model method, user model
# expect error: tests/lang/errors_didyoumean.dsl:56:1: error: model Net has no attribute 'forwrd'; did you mean 'forward'?
model Net(d) {
  fc = d
  forward(x) = x * fc
}
let net = Net(2)
net.forwrd(1)
# ---
# case: builtin model method
# expect error: tests/lang/errors_didyoumean.dsl:62:1: error: model Linear has no attribute 'paramters'; did you mean 'parameters'?
import nn
let m = nn.Linear(3, 4)
m.paramters()
# ---
# case: tensor method
# expect error: tests/lang/errors_didyoumean.dsl:67:7: error: tensor has no attribute 'smu'; did you mean 'sum'?
let x = ones([2, 3])
print(x.smu())
# ---
# case: tensor attribute
# expect error: tests/lang/errors_didyoumean.dsl:72:7: error: tensor has no attribute 'shap'; did you mean 'shape'?
let x = ones([2, 3])
print(x.shap)
# ---
# case: str method
# expect error: tests/lang/errors_didyoumean.dsl:76:7: error: str has no attribute 'spilt'; did you mean 'split'?
print("a,b".spilt(","))
# ---
# case: list method
# expect error: tests/lang/errors_didyoumean.dsl:81:1: error: list has no attribute 'apend'; did you mean 'append'?
let xs = [1]
xs.apend(2)
# ---
# case: dict method
# expect error: tests/lang/errors_didyoumean.dsl:86:7: error: dict has no attribute 'itmes'; did you mean 'items'?
let d = {"a": 1}
print(d.itmes())
# ---
# case: module member
# expect error: tests/lang/errors_didyoumean.dsl:91:10: error: module 'nn' has no attribute 'Lienar'; did you mean 'Linear'?
import nn
let fc = nn.Lienar(3, 4)
# ---
# case: module member differing in case
# expect error: tests/lang/errors_didyoumean.dsl:96:12: error: module 'optim' has no attribute 'adam'; did you mean 'Adam'?
import optim
let make = optim.adam
# ---
# case: a Keras name gets the nabla one
# expect error: tests/lang/errors_didyoumean.dsl:101:10: error: module 'nn' has no attribute 'Dense'; did you mean 'Linear'?
import nn
let fc = nn.Dense(3, 4)
# ---
# case: import of a misspelled standard module
# expect error: tests/lang/errors_didyoumean.dsl:105:1: error: no module named 'nmm'; did you mean 'nn'?
import nmm
# ---
# case: import of a module differing in case
# expect error: tests/lang/errors_didyoumean.dsl:109:1: error: no module named 'Optim'; did you mean 'optim'?
import Optim
# ---
# case: tensor method keyword
# expect error: tests/lang/errors_didyoumean.dsl:114:7: error: sum() got an unexpected keyword argument 'keep_dim'; did you mean 'keepdim'? (valid keywords: input, dim, dims, keepdim)
let x = ones([2, 3])
print(x.sum(keep_dim=true))
# ---
# case: TensorFlow's keep_dims (NumPy's keepdims is PyTorch's too, and taken)
# expect error: tests/lang/errors_didyoumean.dsl:119:7: error: mean() got an unexpected keyword argument 'keep_dims'; did you mean 'keepdim'? (valid keywords: input, dim, dims, keepdim)
let x = ones([2, 3])
print(x.mean(keep_dims=true))
# ---
# case: TensorFlow's axes (NumPy's axis is PyTorch's too, and taken)
# expect error: tests/lang/errors_didyoumean.dsl:124:7: error: sum() got an unexpected keyword argument 'axes'; did you mean 'dim' or 'dims'? (valid keywords: input, dim, dims, keepdim)
let x = ones([2, 3])
print(sum(x, axes=0))
# ---
# case: tensor method keyword, the receiver left out
# expect error: tests/lang/errors_didyoumean.dsl:129:9: error: to() got an unexpected keyword argument 'devise'; did you mean 'device'? (valid keywords: target, dtype, device, non_blocking)
let x = ones([2])
let y = x.to(devise="cpu")
# ---
# case: layer constructor keyword
# expect error: tests/lang/errors_didyoumean.dsl:134:10: error: Linear() got an unexpected keyword argument 'bais'; did you mean 'bias'? (valid keywords: in_features, out_features, bias, device, dtype)
import nn
let fc = nn.Linear(3, 4, bais=false)
# ---
# case: optimizer keyword from PyTorch/Keras habits
# expect error: tests/lang/errors_didyoumean.dsl:141:11: error: SGD() got an unexpected keyword argument 'learning_rate'; did you mean 'lr'? (valid keywords: params, lr, momentum, dampening, weight_decay, nesterov, maximize)
import nn
import optim
let m = nn.Linear(3, 4)
let opt = optim.SGD(m.parameters(), learning_rate=0.1)
# ---
# case: user function keyword
# expect error: tests/lang/errors_didyoumean.dsl:146:1: error: train() got an unexpected keyword argument 'stpes'; did you mean 'steps'? (valid keywords: steps, lr)
fn train(steps, lr=0.1) = steps
train(stpes=3)
# ---
# case: user model method keyword
# expect error: tests/lang/errors_didyoumean.dsl:154:1: error: Net.forward() got an unexpected keyword argument 'scael'; did you mean 'scale'? (valid keywords: x, scale)
model Net(d) {
  fc = d
  forward(x, scale=1) = x * scale
}
Net(2)(1, scael=2)
# ---
# case: builtin keyword
# expect error: tests/lang/errors_didyoumean.dsl:158:1: error: print() got an unexpected keyword argument 'sepp'; did you mean 'sep'? (valid keywords: sep, end, flush)
print(1, 2, sepp=",")
# ---
# case: factory keyword
# expect error: tests/lang/errors_didyoumean.dsl:162:9: error: zeros() got an unexpected keyword argument 'dtyp'; did you mean 'dtype'? (valid keywords: dtype, device, requires_grad)
let z = zeros([2], dtyp=f32)
# ---
# case: a keyword far from all lists the valid ones
# expect error: tests/lang/errors_didyoumean.dsl:167:10: error: Linear() got an unexpected keyword argument 'colour' (valid keywords: in_features, out_features, bias, device, dtype)
import nn
let fc = nn.Linear(3, 4, colour=1)
# ---
# case: def
# expect syntax error: tests/lang/errors_didyoumean.dsl:171:1: error: 'def' is Python's; nabla defines a function with 'fn name(params) { ... }' or 'fn name(params) = expr'
def train(x):
    return x
# ---
# case: lambda
# expect syntax error: tests/lang/errors_didyoumean.dsl:176:14: error: 'lambda' is Python's; nabla writes an anonymous function as 'fn(x) = x + 1'
let double = lambda x: x * 2
# ---
# case: lambda as an argument
# expect syntax error: tests/lang/errors_didyoumean.dsl:180:14: error: 'lambda' is Python's; nabla writes an anonymous function as 'fn(x) = x + 1'
let ys = map(lambda x: x, [1])
# ---
# case: with no_grad:
# expect syntax error: tests/lang/errors_didyoumean.dsl:184:1: error: 'with' is Python's; nabla writes a context block without it: 'no_grad { ... }'
with no_grad:
    y = 1
# ---
# case: class
# expect syntax error: tests/lang/errors_didyoumean.dsl:189:1: error: 'class' is Python's; nabla declares a model with 'model Name(params) { ... }'
class Net(nn.Module):
    pass
# ---
# case: from ... import
# expect syntax error: tests/lang/errors_didyoumean.dsl:194:1: error: 'from ... import' is Python's; nabla imports the module ('import nn') and names its members ('nn.Linear')
from nn import Linear
# ---
# case: left shift
# expect syntax error: tests/lang/errors_didyoumean.dsl:198:13: error: '<<' and '>>' are not operators here (no bit shifts; write 2 ** n for a power of two)
let big = 1 << 62
# ---
# case: right shift
# expect syntax error: tests/lang/errors_didyoumean.dsl:202:14: error: '<<' and '>>' are not operators here (no bit shifts; write 2 ** n for a power of two)
let half = 8 >> 1
# ---
# case: True
# expect syntax error: tests/lang/errors_didyoumean.dsl:206:10: error: 'True' is Python's spelling; nabla writes 'true'
let ok = True
# ---
# case: False
# expect syntax error: tests/lang/errors_didyoumean.dsl:210:10: error: 'False' is Python's spelling; nabla writes 'false'
let ok = False
# ---
# case: None
# expect syntax error: tests/lang/errors_didyoumean.dsl:215:11: error: 'None' is Python's spelling; nabla writes 'none'
let x = ones([3])
let y = x[None]
# ---
# case: &&
# expect syntax error: tests/lang/errors_didyoumean.dsl:221:17: error: '&&' is not an operator here; write 'and'
# expect error line:   let both = true && false
# expect error line:                   ^
let both = true && false
# ---
# case: ||
# expect syntax error: tests/lang/errors_didyoumean.dsl:225:19: error: '||' is not an operator here; write 'or'
let either = true || false
# ---
# case: ! as not
# expect syntax error: tests/lang/errors_didyoumean.dsl:229:10: error: '!' is not an operator here; write 'not x'
let no = !true
# ---
# case: if with ':'
# expect syntax error: tests/lang/errors_didyoumean.dsl:234:9: error: expected '{' to start the block (nabla writes blocks in braces, not after ':')
let x = 1
if x > 0:
    print(x)
# ---
# case: for with ':'
# expect syntax error: tests/lang/errors_didyoumean.dsl:239:18: error: expected '{' to start the block (nabla writes blocks in braces, not after ':')
for i in range(3):
    print(i)
# ---
# case: while with ':'
# expect syntax error: tests/lang/errors_didyoumean.dsl:244:11: error: expected '{' to start the block (nabla writes blocks in braces, not after ':')
while true:
    break
# ---
# case: fn with ':'
# expect syntax error: tests/lang/errors_didyoumean.dsl:249:8: error: expected '{' to start the block (nabla writes blocks in braces, not after ':')
fn f(x):
    return x
# ---
# case: generator expression beside another argument
# expect syntax error: tests/lang/errors_didyoumean.dsl:254:26: error: a generator expression must be a call's only argument, sum(x for x in xs), or in parentheses of its own; or make it a list comprehension: [x for x in xs]
let total = max(0, x * x for x in range(3))
# ---
# case: else if
# expect syntax error: tests/lang/errors_didyoumean.dsl:258:18: error: 'else if' is written 'elif' in nabla
if true { } else if false { }
# ---
# case: an undeclared name is declared with let (kept)
# expect error: tests/lang/errors_didyoumean.dsl:262:1: error: undefined name 'x' (declare it with let)
x = 1
# ---
# case: & of floats
# expect error: tests/lang/errors_didyoumean.dsl:266:1: error: cannot combine float and int with '&' (it takes ints, bools and bool tensors)
1.5 & 2
# ---
# case: ~ of a bool
# expect error: tests/lang/errors_didyoumean.dsl:270:1: error: ~ of a bool is Python's bitwise not (~true is -2); write 'not b'
~true
# ---
# case: & of float tensors
# expect error: tests/lang/errors_didyoumean.dsl:274:1: error: operator '&' combines bool masks, got a f32 tensor (compare first: (x > 0) & (y > 0))
ones([2]) & ones([2])
# ---
# case: self in a static method
# expect error: tests/lang/errors_didyoumean.dsl:280:18: error: undefined name 'self' (self exists inside a model's methods; a static method has none)
model WithStatic() {
  k = 1
  static bad() = self.k
}
WithStatic.bad()
