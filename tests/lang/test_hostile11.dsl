# What the hardening of round 11 (tests/lang/errors_hostile11.dsl) keeps working, and
# the values it fixed: the truth of a model with __len__ (an empty nn.Sequential,
# nn.ModuleList or nn.ModuleDict is false, as in PyTorch 1.13: bool(nn.Sequential()) is
# False), len() of a model, __iter__ returning another model, a call of a name that
# __getattr__ answers, a custom function's gradient when nothing it saved was written,
# register_buffer over a buffer, and nn.ModuleDict's ordinary keys.
import nn

model Bag(n) {
  n = n
  __len__() = self.n
  forward(x) = x
}

test "an empty container model is false and a full one true, wherever a truth is asked" {
  # torch 1.13: bool(nn.Sequential()), bool(nn.ModuleList()), bool(nn.ModuleDict()) are
  # False; bool(nn.Sequential(nn.ReLU())) is True
  expect(not bool(nn.Sequential()))
  expect(not bool(nn.ModuleList()))
  expect(not bool(nn.ModuleDict()))
  expect(bool(nn.Sequential(nn.ReLU())))
  expect(bool(nn.ModuleList([nn.ReLU()])))
  let empty = Bag(0)
  let full = Bag(2)
  let seen = []
  if empty { seen.append("if") } else { seen.append("else") }
  if full { seen.append("full") }
  seen.append("ternary" if full else "no")
  seen.append(empty or "or")
  seen.append(not empty)
  expect(seen == ["else", "full", "ternary", "or", true])
  expect([k for k in range(3) if full] == [0, 1, 2])
  expect([k for k in range(3) if empty] == [])
  expect(any([empty, full]) and not all([empty, full]))
  let trips = 0
  while empty { trips += 1 }
  expect(trips == 0)
  expect((full and 7) == 7)
}

test "a model without __len__ is true, as any object" {
  expect(bool(nn.Linear(2, 2)))
  expect(bool(nn.ReLU()))
}

test "len() of a model gives its __len__'s int" {
  expect(len(Bag(0)) == 0)
  expect(len(Bag(5)) == 5)
  expect(len(nn.Sequential(nn.ReLU(), nn.Tanh())) == 2)
}

test "__iter__ may return another model, which is walked through its own __iter__" {
  model Stack() {
    layers = nn.ModuleList([nn.ReLU(), nn.Tanh()])
    __iter__() = self.layers
    forward(x) = x
  }
  let names = [type(l) for l in Stack()]
  expect(len(names) == 2)
  let (a, b) = Stack()
  expect(str(a) == "ReLU()" and str(b) == "Tanh()")
}

test "a call of a name that only __getattr__ answers calls what it answers" {
  model Lazy() {
    __getattr__(name) = fn(x) = name + ":" + str(x)
    forward(x) = x
  }
  let m = Lazy()
  expect(m.encode(3) == "encode:3")
  # a builtin model method is still the builtin, not __getattr__'s answer
  expect(len(m.parameters()) == 0)
}

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

test "a custom function's gradient when what it saved is left alone" {
  let x = tensor([0.0, 1.0], requires_grad=true)
  let y = Exp.apply(x)
  # writing into something it did not save is fine
  let other = ones([2])
  other.mul_(3)
  y.sum().backward()
  expect_close(x.grad, tensor([0.0, 1.0]).exp())
  # a second function call saves the values of its own forward
  let x2 = tensor([0.5], requires_grad=true)
  let y2 = Exp.apply(x2)
  y2.backward(gradient=ones([1]))
  expect_close(x2.grad, tensor([0.5]).exp())
}

test "a custom function may write into a tensor inside forward before it returns" {
  function Scaled {
    forward(ctx, x) {
      let s = x * 1
      ctx.save(s)
      s.mul_(2)
      return x * 2
    }
    backward(ctx, g) {
      let (s,) = ctx.saved
      return g * s
    }
  }
  # PyTorch records a saved tensor's version when forward returns: a write inside
  # forward is part of what was saved
  let x = tensor([3.0], requires_grad=true)
  Scaled.apply(x).backward(gradient=ones([1]))
  expect_close(x.grad, tensor([6.0]))
}

test "register_buffer replaces a buffer, and may take a plain attribute's name" {
  let bn = nn.BatchNorm1d(2)
  bn.register_buffer("running_mean", tensor([1.0, 2.0]))
  expect(bn.running_mean.tolist() == [1.0, 2.0])
  expect("running_mean" in bn.state_dict().keys())
  model Holder() {
    mask = none
    forward(x) = x
  }
  let h = Holder()
  h.register_buffer("mask", ones([3]))
  expect(h.state_dict().keys() == ["mask"])
}

test "nn.ModuleDict's ordinary keys still work, and a key may be set again" {
  let heads = nn.ModuleDict({"cls": nn.Linear(4, 2), "reg": nn.Linear(4, 1)})
  expect(heads.keys() == ["cls", "reg"])
  heads["cls"] = nn.Linear(4, 3)
  expect(heads["cls"].out_features == 3)
  heads.update({"extra": nn.ReLU()})
  expect(len(heads) == 3)
  expect(heads.state_dict().keys() == ["cls.weight", "cls.bias", "reg.weight", "reg.bias"])
}

test "a field may still take the name of a builtin model method, as before" {
  model Flagged() {
    train = 5
    forward(x) = x
  }
  expect(Flagged().train == 5)
}

# list.sort() sorts with the builtin sorted, whatever `sorted` names here: this file's
# own function of that name (l.sort() called it and kept what it returned, [0]).
fn sorted(xs, key=none, reverse=false) = [0]

test "list.sort() is the builtin's sort, even where a function shadows the name sorted" {
  let xs = [3, 1, 2]
  xs.sort()
  expect(xs == [1, 2, 3])
  xs.sort(reverse=true)
  expect(xs == [3, 2, 1])
  xs.sort(key=fn(x) = x % 3)
  expect(xs == [3, 1, 2])
  # reverse takes a bool, or an int as Python's does
  xs.sort(reverse=1)
  expect(xs == [3, 2, 1])
  expect(sorted(xs) == [0], "the file's own sorted is still what the name calls")
}

test "break and continue inside loops, in functions and test blocks, as before" {
  fn first_even(xs) {
    for x in xs {
      if x % 2 == 1 { continue }
      return x
    }
    return none
  }
  expect(first_even([1, 3, 4, 5]) == 4)
  let k = 0
  while true {
    k += 1
    no_grad {
      if k == 3 { break }
    }
  }
  expect(k == 3)
}

test "a tensor's to() with its dtype and device given once each, in any of PyTorch's forms" {
  let x = ones([2])
  expect(x.to("cpu", f64).dtype == f64)
  expect(x.to("cpu", dtype=f64).dtype == f64)
  expect(x.to(dtype=i64, device="cpu").dtype == i64)
  expect(x.to(ones([1], dtype=f16)).dtype == f16)
  expect(x.to(f64).to(f32).dtype == f32)
}
