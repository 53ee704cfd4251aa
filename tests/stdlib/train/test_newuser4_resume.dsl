# Checkpoint and resume as a PyTorch user writes it: train N steps, save
# {"model": m.state_dict(), "optimizer": opt.state_dict(), "scheduler":
# sched.state_dict(), "scaler": scaler.state_dict(), "rng": get_rng_state(), "step": n}
# with save(), then in a fresh model, optimizer, scheduler and scaler load_state_dict()
# each, set_rng_state(), and continue. The resumed run must equal the uninterrupted
# one bit for bit: parameters, optimizer moments, learning rates, and the random draws
# that dropout, the data shuffling and `import random` (the same generator) make after
# the resume. Files go to /tmp under names of their own.
import nn
import optim
import random

let path = "/tmp/nabla_newuser4_resume.safetensors"

model Net() {
  body = nn.Sequential(nn.Linear(6, 32), nn.BatchNorm1d(32), nn.ReLU(), nn.Dropout(0.2), nn.Linear(32, 3))
  forward(x) = self.body(x)
}

fn make(kind) {
  let m = Net()
  let opt = none
  let sched = none
  if kind == "adamw" {
    opt = optim.AdamW(m.parameters(), lr=1e-2, weight_decay=1e-2, amsgrad=true)
    sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=2e-2, total_steps=40)
  } else {
    opt = optim.SGD([{"params": m.body[0].parameters()}, {"params": m.body[4].parameters(), "lr": 5e-2},
                     {"params": m.body[1].parameters()}], lr=0.1, momentum=0.9, nesterov=true)
    sched = optim.lr_scheduler.StepLR(opt, step_size=5, gamma=0.5)
  }
  return (m, opt, sched, optim.GradScaler(init_scale=1024.0, growth_interval=3))
}

let data_x = randn(64, 6)
let data_y = randint(0, 3, (64,))

# steps [start, stop) of training: a fresh shuffle per step (RNG), dropout (RNG)
fn train(m, opt, sched, scaler, start, stop) {
  m.train()
  for step in range(start, stop) {
    let idx = randperm(64)[:16]
    let sign = -1.0 if random.random() < 0.5 else 1.0        # an augmentation drawn by Python's random
    let loss = nn.functional.cross_entropy(m(sign * data_x[idx]), data_y[idx])
    opt.zero_grad()
    scaler.scale(loss).backward()
    scaler.step(opt)
    scaler.update()
    sched.step()
  }
}

fn checkpoint(m, opt, sched, scaler, step) = {
  "model": m.state_dict(), "optimizer": opt.state_dict(), "scheduler": sched.state_dict(),
  "scaler": scaler.state_dict(), "rng": get_rng_state(), "step": step,
}

fn expect_same_run(kind) {
  # the uninterrupted run
  manual_seed(7)
  let (m1, opt1, sched1, scaler1) = make(kind)
  train(m1, opt1, sched1, scaler1, 0, 20)
  let rng1 = get_rng_state()
  # the interrupted run: 12 steps, a checkpoint on disk, a fresh everything, 8 more
  manual_seed(7)
  let (m2, opt2, sched2, scaler2) = make(kind)
  train(m2, opt2, sched2, scaler2, 0, 12)
  save(checkpoint(m2, opt2, sched2, scaler2, 12), path)
  manual_seed(12345)                                      # the fresh process's generator is elsewhere
  let (m3, opt3, sched3, scaler3) = make(kind)
  let ck = load(path)
  m3.load_state_dict(ck["model"])
  opt3.load_state_dict(ck["optimizer"])
  sched3.load_state_dict(ck["scheduler"])
  scaler3.load_state_dict(ck["scaler"])
  set_rng_state(ck["rng"])
  train(m3, opt3, sched3, scaler3, ck["step"], 20)
  for (k, v) in m1.state_dict().items() { expect(equal(v, m3.state_dict()[k]), f"{kind}: {k}") }
  let (s1, s3) = (opt1.state_dict(), opt3.state_dict())
  expect(list(s1) == list(s3), f"{kind}: the optimizer state's keys")
  for k in s1 {
    let same = equal(s1[k], s3[k]) if type(s1[k]) == "tensor" else s1[k] == s3[k]
    expect(same, f"{kind}: optimizer {k}")
  }
  expect(sched1.get_last_lr() == sched3.get_last_lr(), f"{kind}: {sched1.get_last_lr()} vs {sched3.get_last_lr()}")
  expect(scaler1.get_scale() == scaler3.get_scale())
  expect(equal(rng1, get_rng_state()), f"{kind}: the generator ends where the uninterrupted run left it")
}

test "AdamW(amsgrad) + OneCycleLR + GradScaler: the resumed run equals the uninterrupted one bit for bit" {
  expect_same_run("adamw")
}

test "SGD (nesterov, three groups) + StepLR: the resumed run equals the uninterrupted one bit for bit" {
  expect_same_run("sgd")
}

test "without the RNG state the resumed run differs (dropout and the shuffle draw elsewhere)" {
  manual_seed(7)
  let (m1, opt1, sched1, scaler1) = make("sgd")
  train(m1, opt1, sched1, scaler1, 0, 20)
  manual_seed(7)
  let (m2, opt2, sched2, scaler2) = make("sgd")
  train(m2, opt2, sched2, scaler2, 0, 12)
  let ck = checkpoint(m2, opt2, sched2, scaler2, 12)
  manual_seed(12345)
  let (m3, opt3, sched3, scaler3) = make("sgd")
  m3.load_state_dict(ck["model"])
  opt3.load_state_dict(ck["optimizer"])
  sched3.load_state_dict(ck["scheduler"])
  train(m3, opt3, sched3, scaler3, 12, 20)
  expect(not equal(m1.body[0].weight, m3.body[0].weight))
}

test "loading a checkpoint into the wrong optimizer or model is an error that names it" {
  manual_seed(0)
  let (m, opt, sched, scaler) = make("adamw")
  train(m, opt, sched, scaler, 0, 2)
  save(checkpoint(m, opt, sched, scaler, 2), path)
  let ck = load(path)
  let (m2, opt2, sched2, scaler2) = make("sgd")
  expect_error(fn() = opt2.load_state_dict(ck["optimizer"]), "SGD")
  expect_error(fn() = nn.Linear(6, 3).load_state_dict(ck["model"]), "body.0.weight")
}

test "import random draws from nabla's generator: manual_seed repeats it, get_rng_state saves it" {
  fn draws() = [random.random(), random.randint(1, 6), random.choice(["a", "b", "c"]), random.gauss(0, 1),
                random.sample(range(10), 3), random.randrange(0, 10, 3)]
  manual_seed(3)
  let first = draws()
  random.seed(3)
  expect(draws() == first, "random.seed is manual_seed")
  let state = get_rng_state()
  let again = draws()
  random.setstate(state)
  expect(draws() == again)
  manual_seed(0)
  let rolls = [random.randint(1, 6) for _ in range(600)]
  expect(min(rolls) == 1 and max(rolls) == 6, "randint includes both ends")
  let xs = list(range(20))
  random.shuffle(xs)
  expect(sorted(xs) == list(range(20)) and xs != list(range(20)), "shuffle permutes in place")
  let s = random.sample(xs, 20)
  expect(sorted(s) == list(range(20)), "sample draws without replacement")
  let picks = random.choices(["rare", "common"], weights=[1, 9], k=1000)
  let common = len([p for p in picks if p == "common"])
  expect(common > 850 and common < 950, f"{common} of 1000 by weight 9 : 1")
  expect(random.randrange(0, 10, 3) in [0, 3, 6, 9])
}
