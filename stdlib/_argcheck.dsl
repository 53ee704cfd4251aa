# _argcheck: the argument checks the standard library's constructors share (optim's
# optimizers and schedulers, dist's wrappers): each failure names the function (who),
# the argument (what) and the value found, e.g. "optim.SGD(): lr must be >= 0, got -0.1".
# Private to the stdlib (its name starts with _).

fn is_number(v) = type(v) == "int" or type(v) == "float"

# A range an argument must lie in, by the text its error message shows.
let ranges = {">= 0": fn(v) = v >= 0, "> 0": fn(v) = v > 0, "> 1": fn(v) = v > 1,
              "in [0, 1)": fn(v) = v >= 0 and v < 1, "in [0, 1]": fn(v) = v >= 0 and v <= 1, "in (0, 1)": fn(v) = v > 0 and v < 1,
              "in (0, 1]": fn(v) = v > 0 and v <= 1}

# How a found value is shown: numbers, bools and strs as written, a model class by
# name, others by type.
fn shown(v) {
  if type(v) in ["int", "float", "bool", "str", "none"] { return repr(v) }
  return f"the model class {v.name} (not an instance)" if type(v) == "model" else type(v)
}

# Checks argument `what` of `who` (e.g. "optim.SGD()") against kind: "number", "bool",
# "int > 0", "int > 0 or none", "betas" (a pair in [0, 1)), "etas" (Rprop's pair,
# 0 < etaminus < 1 < etaplus), "step_sizes" (Rprop's pair, 0 <= min <= max), "line
# search" (none or "strong_wolfe", LBFGS's) or a range of ranges.
fn check_option(who, what, kind, v) {
  if kind == "betas" {
    if not (type(v) in ["tuple", "list"] and len(v) == 2) {
      fail(f"{who}: {what} must be a pair (beta1, beta2), got {shown(v)}")
    }
    check_option(who, f"{what}[0]", "in [0, 1)", v[0])
    return check_option(who, f"{what}[1]", "in [0, 1)", v[1])
  }
  if kind in ["etas", "step_sizes"] {
    let names = "(etaminus, etaplus)" if kind == "etas" else "(step_size_min, step_size_max)"
    let found = repr(v) if type(v) in ["tuple", "list"] else shown(v)
    if not (type(v) in ["tuple", "list"] and len(v) == 2 and is_number(v[0]) and is_number(v[1])) {
      fail(f"{who}: {what} must be a pair of numbers {names}, got {found}")
    }
    if kind == "etas" and not (0 < v[0] and v[0] < 1 and 1 < v[1]) {
      fail(f"{who}: {what} must be a pair {names} with 0 < etaminus < 1 < etaplus, got {found}")
    }
    if kind == "step_sizes" and not (0 <= v[0] and v[0] <= v[1]) {
      fail(f"{who}: {what} must be a pair {names} with 0 <= step_size_min <= step_size_max, got {found}")
    }
    return none
  }
  if kind == "int > 0 or none" {
    if v == none { return none }
    kind = "int > 0"
  }
  if kind == "line search" {
    if v != none and v != "strong_wolfe" { fail(f"{who}: {what} must be none or \"strong_wolfe\", got {shown(v)}") }
    return none
  }
  let want = none
  if kind == "bool" {
    if type(v) != "bool" { want = "true or false" }
  } elif kind == "int > 0" {
    if type(v) != "int" or v <= 0 { want = "an int > 0" }
  } elif not is_number(v) {
    want = "a number"
  } elif kind != "number" and not ranges[kind](v) {
    want = kind
  }
  if want != none { fail(f"{who}: {what} must be {want}, got {shown(v)}") }
}

# Checks every argument of `given` whose kind `kinds` names; prefix: what encloses them.
fn check_options(who, prefix, given, kinds) {
  for k in given {
    if k in kinds { check_option(who, prefix + (k if prefix == "" else f"[{repr(k)}]"), kinds[k], given[k]) }
  }
}

# PyTorch's last_epoch and verbose, which every scheduler takes (helpers such as
# get_cosine_schedule_with_warmup pass last_epoch=-1 on): -1 starts the schedule, as
# PyTorch's default; resuming from another epoch is load_state_dict's job here, so any
# other value is an error that says so. verbose=true makes step() print each group's
# lr, as PyTorch's "Adjusting learning rate of group 0 to 1.0000e-02.". Returns verbose.
fn check_scheduler_start(who, last_epoch, verbose) {
  check_option(who, "verbose", "bool", verbose)
  if last_epoch != -1 {
    fail(f"{who}: last_epoch must be -1 (a new schedule), got {shown(last_epoch)}: to resume a schedule, make it with last_epoch=-1 and call load_state_dict() with the state_dict() saved")
  }
  return verbose
}

# Whether x is one of optim's optimizers (or shaped like them: a list param_groups).
fn is_optimizer(x) = type(getattr(x, "param_groups", none)) == "list"

fn check_optimizer(who, x) {
  if not is_optimizer(x) {
    fail(f"{who}: optimizer must be an optimizer (optim.SGD, optim.Adam, ...), got {shown(x)}")
  }
  return x
}

# The keys as a message lists them: 'a', 'b', 'c'.
fn joined(keys) {
  let out = ""
  for k in keys { out = out + (", " if out != "" else "") + repr(k) }
  return out
}

# d[key] of a state dict, or an error naming the key it lacks.
fn loaded(who, d, key) {
  if not (key in d) { fail(f"{who}: the state dict has no '{key}'") }
  return d[key]
}

# A state dict given to a load_state_dict(): a dict (anything else has no keys to read).
fn check_state_dict(who, d) {
  if type(d) != "dict" { fail(f"{who}: the state dict must be a dict (from state_dict()), got {shown(d)}") }
}

# d[key] of a state dict, checked to be of the kind of `current` (the value it will
# replace): a list of as many values (numbers where current has numbers), an int, a
# number, or a value of current's type. A load that checks every value before it sets
# any leaves its object as it was when the dict is bad.
fn loaded_like(who, d, key, current) {
  let v = loaded(who, d, key)
  let want = none
  if type(current) in ["list", "tuple"] {
    if not (type(v) in ["list", "tuple"]) or len(v) != len(current) {
      want = f"a list of {len(current)} value(s)"
    } else {
      for i in range(len(v)) {
        if is_number(current[i]) and not is_number(v[i]) { want = f"a list of {len(current)} number(s)" }
      }
    }
  } elif type(current) == "int" {
    if type(v) != "int" { want = "an int" }
  } elif is_number(current) {
    if not is_number(v) { want = "a number" }
  } elif type(v) != type(current) {
    want = f"a {type(current)}"
  }
  if want != none {
    fail(f"{who}: the state dict's '{key}' must be {want}, got " + (repr(list(v)) if type(v) in ["list", "tuple"] else shown(v)))
  }
  return v
}
