# Hostile inputs, round 11: the language's own protocols and models, by hand. A model's
# __len__ that returned a negative number or a str (len() gave it back as it was); an
# __iter__ that returned the model itself (recursion until the native stack was full,
# reported at "0 calls deep"); a custom function whose saved tensor was written in place
# before backward (the gradient was computed from the new values, silently); a field
# named as one of the model's methods (reads saw the field, calls ran the method, so
# `m.forward = f` was ignored by m(x)); register_buffer over a parameter or a submodule
# (it left parameters() and the optimizer, silently); nn.ModuleDict keys that hold a
# '.' or are empty (state_dict keys that get_submodule could not find); `m[i] = v` whose
# __setitem__ failed in the library (shown at the library's line, its trace ending in a
# stale frame); `break` or `continue` outside a loop in a function or a test block
# (shown at the call, or at no line for a test block); list.sort(reverse="no")
# (truthy: sorted in reverse); x.to(f64, f32) (the second dtype won, silently). Each
# is now an error at the user's line naming what was expected and what was found.

# case: a model's __len__ that returns a negative number (len() returned -1)
# expect error: tests/lang/errors_hostile11.dsl:24:7: error: Bag.__len__() must return a length >= 0, got -1
# expect error line:   print(len(Bag()))
# expect error line:         ^~~~~~~~~~
model Bag() {
  __len__() = -1
  forward(x) = x
}
print(len(Bag()))
# ---

# case: a model's __len__ that returns a str (len() returned it)
# expect error: tests/lang/errors_hostile11.dsl:35:9: error: Bag.__len__() must return an int, got str
# expect error line:   let n = len(Bag())
# expect error line:           ^~~~~~~~~~
model Bag() {
  __len__() = "three"
  forward(x) = x
}
let n = len(Bag())
# ---

# case: a model's __len__ checked where its truth is asked too
# expect error: tests/lang/errors_hostile11.dsl:46:4: error: Bag.__len__() must return a length >= 0, got -2
# expect error line:   if Bag() { print(1) }
# expect error line:      ^~~~~
model Bag() {
  __len__() = -2
  forward(x) = x
}
if Bag() { print(1) }
# ---

# case: a model whose __iter__ returns itself (the native stack filled, at '0 calls deep')
# expect error: tests/lang/errors_hostile11.dsl:57:1: error: 'Loop' object is not iterable: its __iter__() leads back to the model itself (return a list of the items)
# expect error line:   for x in Loop() { print(x) }
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~
model Loop() {
  __iter__() = self
  forward(x) = x
}
for x in Loop() { print(x) }
# ---

# case: two models whose __iter__ lead to each other
# expect error: tests/lang/errors_hostile11.dsl:73:13: error: 'A' object is not iterable: its __iter__() leads back to the model itself (return a list of the items)
# expect error line:   let items = list(a)
# expect error line:               ^~~~~~~
model A() {
  other = none
  __iter__() = self.other
  forward(x) = x
}
let a = A()
let b = A()
a.other = b
b.other = a
let items = list(a)
# ---

# case: a custom function's saved input written in place before backward (a wrong gradient, silently)
# expect error: tests/lang/errors_hostile11.dsl:93:1: error: backward of 'Exp': ctx.saved[0] was saved at version 0 but has been modified by an in-place operation since (now version 1); use an out-of-place op or clone it first (Exp.apply called at tests/lang/errors_hostile11.dsl:91:9)
# expect error line:   y.sum().backward()
# expect error line:   ^~~~~~~~~~~~~~~~~~
function Exp {
  forward(ctx, x) {
    ctx.save(x)
    return x.exp()
  }
  backward(ctx, g) {
    let (x,) = ctx.saved
    return g * x.exp()
  }
}
let x = ones([2], requires_grad=true)
let y = Exp.apply(x)
no_grad { x.mul_(2) }
y.sum().backward()
# ---

# case: a custom function's saved output written in place before backward
# expect error: tests/lang/errors_hostile11.dsl:114:1: error: backward of 'Exp': ctx.saved[1] was saved at version 0 but has been modified by an in-place operation since (now version 1); use an out-of-place op or clone it first (Exp.apply called at tests/lang/errors_hostile11.dsl:112:9)
# expect error line:   y.sum().backward()
# expect error line:   ^~~~~~~~~~~~~~~~~~
function Exp {
  forward(ctx, x) {
    let y = x.exp()
    ctx.save(1.5, y)
    return y
  }
  backward(ctx, g) {
    let (_, y) = ctx.saved
    return g * y
  }
}
let x = ones([2], requires_grad=true)
let y = Exp.apply(x)
no_grad { y.add_(1) }
y.sum().backward()
# ---

# case: assigning a function to a model's forward (m(x) still ran the method)
# expect error: tests/lang/errors_hostile11.dsl:125:1: error: cannot set field 'forward' of Net: Net has a method forward(), which calls would still run (a field cannot replace a method; give the field another name)
# expect error line:   m.forward = fn(x) = x * 100
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
model Net() {
  forward(x) = x + 1
}
let m = Net()
m.forward = fn(x) = x * 100
# ---

# case: a constructor field named as one of the model's methods
# expect error: tests/lang/errors_hostile11.dsl:133:3: error: cannot set field 'scale' of Net: Net has a method scale(), which calls would still run (a field cannot replace a method; give the field another name)
# expect error line:     scale = 2
# expect error line:     ^~~~~~~~~
model Net() {
  scale = 2
  scale(x) = x * 3
  forward(x) = self.scale(x)
}
let m = Net()
# ---

# case: setattr of a method's name
# expect error: tests/lang/errors_hostile11.dsl:149:1: error: cannot set field 'scale' of Net: Net has a method scale(), which calls would still run (a field cannot replace a method; give the field another name)
# expect error line:   setattr(m, "scale", fn(x) = x)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
model Net() {
  scale(x) = x * 3
  forward(x) = self.scale(x)
}
let m = Net()
setattr(m, "scale", fn(x) = x)
# ---

# case: register_buffer over a parameter (it left parameters(), silently)
# expect error: tests/lang/errors_hostile11.dsl:158:1: error: register_buffer(): Linear already has a parameter named 'weight' (a buffer cannot take its place; choose another name)
# expect error line:   m.register_buffer("weight", ones([2, 2]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(2, 2)
m.register_buffer("weight", ones([2, 2]))
# ---

# case: register_buffer over a submodule
# expect error: tests/lang/errors_hostile11.dsl:167:1: error: register_buffer(): Sequential already has a submodule named '0' (a buffer cannot take its place; choose another name)
# expect error line:   m.register_buffer("0", ones([1]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Sequential(nn.Linear(2, 2))
m.register_buffer("0", ones([1]))
# ---

# case: register_buffer of a method's name
# expect error: tests/lang/errors_hostile11.dsl:179:1: error: cannot set field 'scale' of Net: Net has a method scale(), which calls would still run (a field cannot replace a method; give the field another name)
# expect error line:   m.register_buffer("scale", ones([1]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
model Net() {
  scale(x) = x * 3
  forward(x) = self.scale(x)
}
let m = Net()
m.register_buffer("scale", ones([1]))
# ---

# case: an nn.ModuleDict key holding a '.' (state_dict keys that get_submodule could not find)
# expect error: tests/lang/errors_hostile11.dsl:187:13: error: nn.ModuleDict: key 'cls.head' is not a module name: it must be non-empty and hold no '.'
# expect error line:   let heads = nn.ModuleDict({"cls.head": nn.Linear(4, 2)})
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let heads = nn.ModuleDict({"cls.head": nn.Linear(4, 2)})
# ---

# case: an empty nn.ModuleDict key
# expect error: tests/lang/errors_hostile11.dsl:196:1: error: nn.ModuleDict: key '' is not a module name: it must be non-empty and hold no '.'
# expect error line:   heads[""] = nn.Linear(4, 2)
# expect error line:   ^~~~~~~~~
import nn
let heads = nn.ModuleDict()
heads[""] = nn.Linear(4, 2)
# ---

# case: an nn.ModuleDict key naming one of its methods
# expect error: tests/lang/errors_hostile11.dsl:205:1: error: nn.ModuleDict: key 'items' is the name of one of the dict's own attributes or methods; choose another name
# expect error line:   heads.update({"items": nn.ReLU()})
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let heads = nn.ModuleDict()
heads.update({"items": nn.ReLU()})
# ---

# case: nn.ModuleList item assignment out of range (the error was shown at the library's line)
# expect error: tests/lang/errors_hostile11.dsl:215:1: error: assertion failed: nn.ModuleList: index 3 is out of range for 1 layers
# expect error line:   layers[3] = nn.Tanh()
# expect error line:   ^~~~~~~~~
import nn
let layers = nn.ModuleList([nn.ReLU()])
let unused = nn.Linear(2, 2)
layers[3] = nn.Tanh()
# ---

# case: a model's __iter__ that leads back, unpacked by a pattern
# expect error: tests/lang/errors_hostile11.dsl:228:1: error: 'Pair' object is not iterable: its __iter__() leads back to the model itself (return a list of the items)
# expect error line:   let (a, b) = p
# expect error line:   ^~~~~~~~~~~~~~
model Pair() {
  __iter__() = self
  forward(x) = x
}
let p = Pair()
let z = abs(-1)
let (a, b) = p
# ---

# case: 'break' in a function's body, outside any loop (the error was shown at the call)
# expect error: tests/lang/errors_hostile11.dsl:236:14: error: 'break' outside a loop
# expect error line:     if x > 0 { break }
# expect error line:                ^~~~~
fn stop(x) {
  if x > 0 { break }
  return x
}
let y = stop(1)
# ---

# case: 'continue' in a model's method, outside any loop
# expect error: tests/lang/errors_hostile11.dsl:248:5: error: 'continue' outside a loop
# expect error line:       continue
# expect error line:       ^~~~~~~~
model Net() {
  forward(x) {
    continue
  }
}
# ---

# case: list.sort(reverse="no") (truthy: it sorted in reverse)
# expect error: tests/lang/errors_hostile11.dsl:258:1: error: sorted(): reverse: expected a bool, got str
# expect error line:   xs.sort(reverse="no")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~
let xs = [3, 1, 2]
xs.sort(reverse="no")
# ---

# case: sorted() with a reverse that is not a bool
# expect error: tests/lang/errors_hostile11.dsl:265:10: error: sorted(): reverse: expected a bool, got list
# expect error line:   let ys = sorted([3, 1, 2], reverse=[1])
# expect error line:            ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let ys = sorted([3, 1, 2], reverse=[1])
# ---

# case: a tensor's to() given the dtype twice (the second won, silently)
# expect error: tests/lang/errors_hostile11.dsl:273:9: error: to(): the dtype is given twice, by the first argument and as dtype
# expect error line:   let y = x.to(f64, f32)
# expect error line:           ^~~~~~~~~~~~~~
let x = ones([2])
let y = x.to(f64, f32)
# ---

# case: a tensor's to() given a tensor's dtype and device, then device= again
# expect error: tests/lang/errors_hostile11.dsl:281:9: error: to(): the device is given twice, by the first argument and as device
# expect error line:   let y = x.to(ones([1], dtype=f64), device="cpu")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = ones([2])
let y = x.to(ones([1], dtype=f64), device="cpu")
# ---

# case: an nn.ModuleDict key that is not a str
# expect error: tests/lang/errors_hostile11.dsl:289:13: error: nn.ModuleDict: keys must be strings (module names), got int
# expect error line:   let heads = nn.ModuleDict({0: nn.ReLU()})
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let heads = nn.ModuleDict({0: nn.ReLU()})
# ---
