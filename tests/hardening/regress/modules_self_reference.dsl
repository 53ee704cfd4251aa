# A model that holds itself (r.me = r, setattr(m, "me", m)): every builtin that walks
# submodules visits each module once (Note [Module walk]). These looped forever while
# memory grew, and train() overflowed the stack.
# status: 0
# timeout: 60
# expect: R(
# expect:   (l): Linear(in_features=2, out_features=3, bias=true)  # 9 parameters
# expect:   w: Parameter[2]
# expect:   (me): R(...)  # same module as the model itself
# expect: )  # 11 parameters in total
# expect: 3 11
# expect: ['w', 'l.weight', 'l.bias']
# expect: ['', 'l']
# expect: false false
# expect: true true
# expect: none
# expect: ['Linear', 'R']
# expect: true
# expect: (1, 3)
# expect: true true
# expect: 11
import nn
model R() {
  l = nn.Linear(2, 3)
  w = nn.parameter([2])
}
let r = R()
r.me = r
print(r)
print(len(r.parameters()), nn.count_parameters(r))
print(list(r.state_dict().keys()))
let names = []
for (n, m) in r.named_modules() { names.append(n) }
print(names)
r.eval()
print(r.training, r.l.training)
r.train()
print(r.training, r.me.l.training)
r.l(ones([1, 2])).sum().backward()
r.zero_grad()
print(r.l.weight.grad)
let kinds = []
r.apply(fn(m) = kinds.append(type(m)))
print(kinds)
r.to("cpu")
r.load_state_dict(r.state_dict())
let path = env("REGRESS_TMP") + "/self.safetensors"  # removed after the run (regress.sh)
save(r, path)
load(path, into=r)
print(len(load(path)) == 3)
model Fwd() {
  l = nn.Linear(2, 3)
  forward(x) = self.l(x)
}
let f = Fwd()
setattr(f, "me", f)
let gm = compile(f, ones([1, 2]))
print(gm(ones([1, 2])).shape)
let c = deepcopy(r)
print(c.me == c, c.me != r)
print(nn.count_parameters(c))
