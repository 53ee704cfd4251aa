# random: Python's random module, as PyTorch programs use it beside torch
# (teacher forcing's `random.random() < ratio`, a replay memory's
# `random.sample(memory, batch)`, epsilon-greedy's `random.random() > eps`).
#
# Note [One generator]
# Python's random keeps a generator of its own; here every function draws from
# nabla's one generator (rand, randn), so manual_seed(n) repeats them, get_rng_state()
# / set_rng_state() save and restore them with the tensors' draws (a resumed run is
# bit for bit the same), and random.seed(n) is manual_seed(n). The numbers are not
# Python's for a given seed. (A stream of its own is a torch.Generator: Generator(),
# Note [A Generator is a saved state].)

fn _draw() = rand([], dtype=f64).item()

fn _check_int(who, what, v) {
  if type(v) != "int" { fail(f"random.{who}(): {what} must be an int, got {type(v)}") }
  return v
}
fn _check_sequence(who, seq) {
  if not (type(seq) in ["list", "tuple", "str", "range"]) {
    fail(f"random.{who}(): expected a list, tuple, str or range, got {type(seq)}")
  }
  return seq
}
fn _below(n) = min(int(_draw() * n), n - 1)    # an int in [0, n)

fn random() { "A float in [0, 1), from nabla's generator (Note [One generator]). Example: random.random() < 0.5"; return _draw() }

fn uniform(a, b) { "A float between a and b. Example: random.uniform(-1, 1)"; return a + (b - a) * _draw() }

fn randint(a, b) {
  "An int in [a, b], both ends included, as Python's. Example: random.randint(1, 6)"
  _check_int("randint", "a", a)
  _check_int("randint", "b", b)
  if b < a { fail(f"random.randint(): empty range [{a}, {b}] (b must be >= a)") }
  # ints are 64-bit here (Python's are unbounded): the range's size must fit one
  if float(b) - float(a) >= 2.0 ** 62 { fail(f"random.randint(): the range [{a}, {b}] is wider than 2**62") }
  return a + _below(b - a + 1)
}

fn randrange(start, stop=none, step=1) {
  "An int of range(start, stop, step), as Python's. Example: random.randrange(0, 10, 2)"
  if stop == none { return randrange(0, start, step) }
  _check_int("randrange", "start", start)
  _check_int("randrange", "stop", stop)
  _check_int("randrange", "step", step)
  if step == 0 { fail("random.randrange(): step must not be zero") }
  let n = len(range(start, stop, step))
  if n == 0 { fail(f"random.randrange(): empty range ({start}, {stop}, {step})") }
  # range's own indexing: start + step * k overflowed for ranges past 2**62 wide
  # (randrange(-2**63, 2**63 - 1, 3) failed now and then with "integer overflow in *")
  return range(start, stop, step)[_below(n)]
}

fn choice(seq) {
  "One element of a non-empty sequence. Example: random.choice(['a', 'b'])"
  _check_sequence("choice", seq)
  if len(seq) == 0 { fail("random.choice(): cannot choose from an empty sequence") }
  return seq[_below(len(seq))]
}

fn shuffle(x) {
  "Shuffles a list in place (Fisher-Yates); returns none, as Python's. Example: random.shuffle(xs)"
  if type(x) != "list" { fail(f"random.shuffle(): expected a list (shuffled in place), got {type(x)}") }
  for i in reversed(range(1, len(x))) {
    let j = _below(i + 1)
    let t = x[i]
    x[i] = x[j]
    x[j] = t
  }
}

fn sample(population, k) {
  "k distinct elements of population, in random order. Example: random.sample(memory, 32)"
  _check_sequence("sample", population)
  _check_int("sample", "k", k)
  if k < 0 or k > len(population) { fail(f"random.sample(): k must be in [0, {len(population)}] (the population's size), got {k}") }
  # Floyd's subset (O(k) draws and memory, so sample(range(10**12), 3) is cheap), then
  # shuffled: k distinct positions in random order
  let n = len(population)
  let chosen = {}
  let order = []
  for j in range(n - k, n) {
    let t = _below(j + 1)
    let pick = j if t in chosen else t
    chosen[pick] = true
    order.append(pick)
  }
  shuffle(order)
  return [population[i] for i in order]
}

fn choices(population, weights=none, k=1) {
  "k elements drawn with replacement, by weight if given. Example: random.choices(['a', 'b'], weights=[3, 1], k=4)"
  _check_sequence("choices", population)
  _check_int("choices", "k", k)
  if len(population) == 0 { fail("random.choices(): cannot choose from an empty population") }
  if weights == none { return [population[_below(len(population))] for _ in range(k)] }
  if len(weights) != len(population) {
    fail(f"random.choices(): weights has {len(weights)} entries, the population {len(population)}")
  }
  let total = sum(weights)
  if not (total > 0) { fail(f"random.choices(): the weights must sum to more than 0, got {total}") }
  let out = []
  for _ in range(k) {
    let r = _draw() * total
    let at = len(population) - 1
    let acc = 0.0
    for i in range(len(weights)) {
      acc = acc + weights[i]
      if r < acc { at = i; break }
    }
    out.append(population[at])
  }
  return out
}

fn gauss(mu=0.0, sigma=1.0) { "A normal sample. Example: random.gauss(0, 1)"; return mu + sigma * randn([], dtype=f64).item() }
let normalvariate = gauss

fn seed(a=0) { "manual_seed(a): random's functions share nabla's generator (Note [One generator]). Example: random.seed(0)"; manual_seed(a) }
fn getstate() { "get_rng_state(). Example: let s = random.getstate()"; return get_rng_state() }
fn setstate(state) { "set_rng_state(state). Example: random.setstate(s)"; set_rng_state(state) }
