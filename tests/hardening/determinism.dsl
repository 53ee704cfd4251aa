# Determinism (issue 10), run twice by determinism.sh in two processes with the same
# thread count: the same seed must give the same loss curve bit for bit. Prints each
# step's loss with 17 significant digits (a double's exact value, so two equal lines
# are equal bits), then the forward output of a copy loaded from a checkpoint, which
# must equal the model's own output exactly.
#   nabla determinism.dsl CHECKPOINT_PATH
import nn
import optim

let path = args[0]
fn make_model() = nn.Sequential([nn.Linear(32, 64), nn.ReLU(), nn.Dropout(0.1), nn.Linear(64, 10)])

manual_seed(1234)
let m = make_model()
let opt = optim.Adam(m.parameters(), lr=1e-2)
let x = randn([128, 32])
let y = randint(0, 10, [128])
for step in range(30) {
  let loss = cross_entropy(m(x), y)  # dropout draws from the seeded generator too
  opt.zero_grad()
  loss.backward()
  opt.step()
  print(f"loss {step} {loss.item():.17g}")
}

m.eval()
let out = m(x)
save(m, path)
let copy = make_model()  # other initial weights, then the checkpoint's
copy.eval()
load(path, into=copy)
let out_copy = copy(x)
assert((out == out_copy).sum().item() == out.numel(), "save -> load -> forward changed the output")
print(f"forward {out.sum().item():.17g} {out.abs().max().item():.17g}")
print("save -> load -> forward: identical")
