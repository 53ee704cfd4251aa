# A submodule held twice, a cycle two modules long, models in lists and dicts (nested,
# and a list that holds itself) and a tied weight: each module and each tensor counts
# once in parameters(), count_parameters, print's totals and state_dict, which lists a
# shared module under its first name; load_state_dict takes that back, and also a dict
# that names a shared tensor under another of its paths (as PyTorch's state_dict does).
# status: 0
# timeout: 60
# expect: 6 22 22
# expect: ['emb.weight', 'head.bias', 'enc.weight', 'enc.bias', 'blocks.1.weight', 'blocks.1.bias']
# expect: ['', 'emb', 'head', 'enc', 'b', 'blocks.1', 'blocks.2.k']
# expect:   (again): Linear(...)  # same module as enc
# expect:   (b): B(
# expect:     (back): Top(...)  # same module as the model itself
# expect: )  # 22 parameters in total
# expect: loaded
# expect: 7.0 7.0
# expect: 4 2
import nn
model Emb() { weight = nn.parameter([4, 2]) }
model Head() {
  weight = nn.parameter([4, 2])
  bias = nn.parameter([4])
}
model B() { x = 1 }
model Top() {
  emb = Emb()
  head = Head()
  enc = nn.Linear(2, 2)
}
let t = Top()
t.head.weight = t.emb.weight  # tied
t.again = t.enc               # shared
let b = B()
b.back = t                    # a cycle: t -> b -> t
t.b = b
let loop = [t.enc]
loop.append(loop)             # a list that holds itself
t.blocks = [t.enc, nn.Linear(1, 2), {"k": nn.Identity(), "again": t}, loop]
print(len(t.parameters()), nn.count_parameters(t), 8 + 4 + 6 + 4)
print(list(t.state_dict().keys()))
let names = []
for (n, m) in t.named_modules() { names.append(n) }
print(names)
let text = str(t)
for line in text.split("\n") {
  if "in total" in line or "(back):" in line or "(again): Linear" in line or line == "  (b): B(" { print(line) }
}
t.load_state_dict(t.state_dict())
print("loaded")
let sd = t.state_dict()
sd["again.weight"] = zeros([2, 2]) + 7.0  # PyTorch's name for the shared module's weight
sd.pop("enc.weight")
t.load_state_dict(sd)
print(t.enc.weight[0, 0].item(), t.blocks[0].weight[1, 1].item())
print(len(t.children()), len(nn.Sequential([t.enc, t.enc]).children(remove_duplicate=false)) )
