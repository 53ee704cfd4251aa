# The child of kill_during_save.sh: the whole real path of a checkpoint save (the
# save() builtin, its encoding, the safetensors writer, the atomic file).
#   nabla save_loop.dsl refs DIR   writes DIR/a.safetensors and DIR/b.safetensors: a
#                                  model and its Adam state after one step and after two
#   nabla save_loop.dsl loop DIR   saves a, b, a, b, ... to DIR/ckpt.safetensors until
#                                  killed, printing "saving X" before each save and
#                                  "saved X" after it (print flushes each line)
#   nabla save_loop.dsl once DIR   one save of a, then exits
# The loop saves what load() gives back from the reference files, so each save must
# reproduce those files byte for byte (the script checks that too, with `once`).
import nn
import optim

let mode = args[0]
let dir = args[1]
let target = dir + "/ckpt.safetensors"

fn write_references() {
  manual_seed(0)
  let m = nn.Sequential([nn.Linear(256, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10)])
  let opt = optim.Adam(m.parameters(), lr=1e-3)
  let x = randn([64, 256])
  let y = randint(0, 10, [64])
  for k in range(2) {
    let loss = cross_entropy(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    let name = ["a", "b"][k]
    save({"model": m.state_dict(), "optimizer": opt.state_dict(), "step": k + 1}, f"{dir}/{name}.safetensors")
  }
}

if mode == "refs" {
  write_references()
} else {
  let a = load(dir + "/a.safetensors")
  let b = load(dir + "/b.safetensors")
  if mode == "once" {
    save(a, target)
  } else {
    let k = 0
    while true {
      let name = ["a", "b"][k % 2]
      print("saving " + name)
      save([a, b][k % 2], target)
      print("saved " + name)
      k = k + 1
    }
  }
}
