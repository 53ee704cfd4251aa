# Fully sharded data parallel (ZeRO-2/3, as torch.distributed.fsdp), the private part
# of `import dist` that dist.dsl re-exports as dist.FullyShardedDataParallel.
#
# The model is cut into units (auto_wrap: a submodule becomes a unit of its own by
# parameter count, by class or by a predicate; the root takes what is left). The
# parameters of a unit are flattened into one vector, padded to a multiple of the
# world size, and rank r keeps only the r-th 1/N slice of it, its `flat_param`: the
# only parameter the optimizer sees. The module's own parameter fields are none
# outside the unit's forward and backward.
#
# One unit call (docs/distributed.md, "Fully sharded data parallel"):
#   pre-forward   all-gather the shards into the full flat vector (in param_dtype),
#                 bind each parameter field to its view of it;
#   post-forward  unbind; under "full" give the flat vector's bytes back (its views
#                 stay in the autograd graph: Note [FSDP resharding]); hooks on the
#                 outputs wait for backward;
#   pre-backward  (the first output gradient) all-gather into the same bytes again,
#                 bind the views (nn.checkpoint's recomputation reads them);
#   post-backward (_GatherShard's backward, when every use of the views has sent its
#                 gradient) reduce-scatter the flat gradient, averaged over the
#                 ranks, into this rank's flat_param.grad; unbind and give the bytes
#                 back. A recomputation's own backward (nn.checkpoint inside a unit)
#                 (nn.checkpoint around a unit) reshards at its own depth.
# nn.checkpoint goes around whole units, as PyTorch's apply_activation_checkpointing
# wraps FSDP's units: a recomputation inside a unit would run the unit's
# _GatherShard node in its own backward, which releases what the node saved before
# the outer backward reaches it (an error that says so).
# "grad_op" (ZeRO-2) keeps the gathered vector from forward to backward and gathers
# once; "none" keeps whole parameters on every rank and all-reduces the flat
# gradient (DistributedDataParallel's arithmetic, one bucket per unit).
#
# A tied parameter (one tensor in fields of several modules: an embedding and the
# output layer that shares its weight) goes to the innermost unit whose module holds
# every one of those fields, and each of them is bound to the same gathered view, so
# the uses' gradients add up in the one flat gradient (a parameter of a unit of its
# own, read by a module outside it, would be read stale and never get that gradient).
#
# Prefetch (prefetch=true): the units' collectives go through one queue that a thread
# of its own runs in order (Note [One queue for a unit's collectives] in
# tensor/dist/collective_queue.hpp), so a gather can run while a unit computes. The
# first forward records the order the units run in, and the first backward the order
# they start their backward in (the root first: its outputs are the model's); from
# then on a unit's forward queues the next unit's gather before it computes, and a
# unit's backward the gather of the next unit to start its backward. A gather
# queued but not used by the end of the forward (or backward) is waited for and
# dropped, so a prefetched vector never outlives the parameters it was gathered from.
# Every rank queues the same calls in the same order because every rank runs the
# same graph.
#
# Inside compile() (is_compiling()) a unit's forward gathers with the op
# dist_shard_gather instead, whose backward is the reduce-scatter: both are nodes of
# the compiled step's graph, and under "full" the reshard pass frees each gathered
# vector after the forward and gathers it again before the backward reads it
# (passes/reshard.cpp). comm_counts() counts the eager calls only.
import _dist
import _argcheck
import nn

let _shardings = ["full", "grad_op", "none"]
let _float_dtypes = [f16, bf16, f32, f64]

# The full flat vector of a unit from this rank's shard: a custom function so that
# its backward is the reduce-scatter (Note [FSDP resharding] in tensor/dist/flat_storage.hpp).
function _GatherShard {
  forward(ctx, unit, call, shard) {
    ctx.save(unit, call)
    return unit._gather(shard)
  }
  backward(ctx, grad) {
    if ctx == none {
      # A backward nested in this one (nn.checkpoint's recomputation inside the unit)
      # already ran this node and released what it saved.
      fail("dist.FullyShardedDataParallel: nn.checkpoint inside a unit's forward is not supported; " +
           "checkpoint whole units instead (nn.checkpoint(unit, x), where unit is wrapped by auto_wrap)")
    }
    let unit = ctx.saved[0]
    let reduced = unit._reduce_grad(grad)
    unit._post_backward(ctx.saved[1])
    return (none, none, reduced)
  }
}

# One unit: `entries` are [owner module, field name, shape, numel, name in the unit,
# [[owner, field] of each other place a tied parameter is held]] of its parameters in order, `shard` this rank's slice of their values flattened
# and padded to a multiple of `world` (the whole vector when world is 1). The whole
# vector is not kept: the constructor's arguments live as long as the unit.
model _FsdpUnit(module, path, entries, shard, world, sharding, param_dtype, reduce_dtype, schedule, index) {
  path = path
  sharding = sharding
  world = world
  shard_size = shard.numel()
  # This rank's slice of the flat parameter vector: the optimizer's parameter.
  flat_param = shard.requires_grad_()
  numel = _fsdp_numel(entries)
  # The call whose forward runs now (set by the pre-forward hook), and the last one.
  _current = none
  _last_call = none
  # [full vector, ticket] of a gather the previous unit queued for this one's forward.
  _prefetched = none
  # Collectives this unit made: what tests and comm_counts() read.
  gathers = 0
  reductions = 0
  prefetches = 0  # of the gathers, those queued ahead of the unit's forward or backward

  _install() {
    module.register_forward_pre_hook(fn(mod, inp) = self._pre_forward(inp))
    module.register_forward_hook(fn(mod, inp, out) = self._post_forward(out))
  }

  # What forward gathers: the shard in param_dtype.
  _shard_to_gather() = self.flat_param.detach().to(param_dtype).contiguous()

  _gather(shard) {
    if self.world == 1 { return shard.detach().to(param_dtype) }
    let ready = self._prefetched
    if ready != none {
      self._prefetched = none
      _dist.wait_collective(ready[1])
      return ready[0]
    }
    let queued = self._queue_gather()
    _dist.wait_collective(queued[1])
    return queued[0]
  }

  # [full vector, ticket] of a gather of every rank's shard queued now (into `full`,
  # or a new vector).
  _queue_gather(full=none) {
    self.gathers = self.gathers + 1
    let into = full if full != none else zeros([self.shard_size * self.world], dtype=param_dtype)
    return [into, _dist.gather_async(self._shard_to_gather(), into)]
  }

  # The gradient of the full flat vector -> this rank's share of its average.
  _reduce_grad(grad) {
    let g = grad.to(reduce_dtype).contiguous()
    self.reductions = self.reductions + 1
    if self.world == 1 {
      if _dist.world_size() > 1 { g = _dist.reduce_queued(g, "avg", false) }
      return g.to(self.flat_param.dtype)
    }
    return _dist.reduce_queued(g, "avg", true).to(self.flat_param.dtype)
  }

  # The unit after this one in a recorded order ("forward" or "backward"), or none.
  _next_in(which) {
    let order = schedule[which]  # unit indices
    for k in range(len(order) - 1) {
      if order[k] == index { return schedule["units"][order[k + 1]] if order[k + 1] != index else none }
    }
    return none
  }

  # Queues this unit's gather for its coming forward.
  _prefetch_forward() {
    if self.world == 1 or self._prefetched != none { return none }
    self._prefetched = self._queue_gather()
    self.prefetches = self.prefetches + 1
  }

  # Queues the gather into the bytes its last forward gave back, for its backward.
  _prefetch_backward() {
    let call = self._last_call
    if call == none or call["full"] == none or call["refill"] != none or _dist.has_bytes(call["full"]) { return none }
    call["refill"] = self._queue_gather(call["full"])[1]
    self.prefetches = self.prefetches + 1
    if not call["queued"] { call["queued"] = _dist.at_backward_end(fn() = self._reshard(call)) }
  }

  # Waits for a prefetched gather nobody used, and drops it.
  _drop_prefetch() {
    if self._prefetched != none { _dist.wait_collective(self._prefetched[1]) }
    self._prefetched = none
  }

  _pre_forward(inp) {
    if is_compiling() { return self._pre_forward_compiled(inp) }
    let call = {"views": none, "full": none, "depth": _dist.backward_depth(), "queued": false, "refill": none}
    if not schedule["recorded"] and not (index in schedule["forward"]) { schedule["forward"].append(index) }
    let full = _GatherShard(self, call, self.flat_param)
    # Queued after this unit's own gather: it runs while this unit computes.
    if schedule["prefetch"] and call["depth"] == 0 {
      let next = self._next_in("forward")
      if next != none { next._prefetch_forward() }
    }
    let views = self._views(full)
    call["full"] = full
    call["views"] = views
    self._bind(views)
    self._current = call
    self._last_call = call
    return _fsdp_cast_inputs(inp, param_dtype)
  }

  # The forward inside compile() (Note [Sharded parameters in a graph] in
  # autograd/ops/dist.cpp): the gather is an op the graph records, and the
  # reduce-scatter its backward; under "full" the reshard pass frees the gathered
  # vector after the forward and gathers it again for the backward. No hooks, queues
  # or given-back bytes, which a graph cannot replay.
  _pre_forward_compiled(inp) {
    let full = dist_shard_gather(self.flat_param, dtype=param_dtype, reduce_dtype=reduce_dtype,
                                 sharded=self.sharding != "none", reshard=self.sharding == "full")
    self._bind(self._views(full))
    return _fsdp_cast_inputs(inp, param_dtype)
  }

  # Each parameter's view of the full flat vector.
  _views(full) {
    let views = []
    let offset = 0
    for e in entries {
      views.append(full[offset:offset + e[3]].reshape(e[2]))
      offset = offset + e[3]
    }
    return views
  }

  _post_forward(out) {
    let call = self._current
    self._current = none
    self._unbind()
    if call == none { return none }  # a compiled forward: its backward is in the graph
    if not call["full"].requires_grad {
      call["full"] = none
      call["views"] = none
      return none
    }
    if self.sharding == "full" and self.world > 1 { _dist.release_bytes(call["full"]) }
    for t in _fsdp_output_tensors(out) {
      t.register_hook(fn(g) = self._pre_backward(call))
    }
    return none
  }

  # The first gradient to reach one of the unit's outputs: gather again if the bytes
  # were given back, bind the views while the unit's backward runs.
  _pre_backward(call) {
    if call["full"] == none {
      fail("dist.FullyShardedDataParallel: a second backward through the same forward (retain_graph=true) is not supported: the unit resharded after the first")
    }
    if call["refill"] != none {  # queued by the unit after this one
      _dist.wait_collective(call["refill"])
      call["refill"] = none
    } elif not _dist.has_bytes(call["full"]) {
      _dist.wait_collective(self._queue_gather(call["full"])[1])
    }
    if not schedule["backward_recorded"] and not (index in schedule["backward"]) {
      # the first backward records the order units start theirs
      if len(schedule["backward"]) == 0 { _dist.at_backward_end(fn() = _fsdp_backward_recorded(schedule)) }
      schedule["backward"].append(index)
    }
    if schedule["prefetch"] {
      let next = self._next_in("backward")
      if next != none { next._prefetch_backward() }
    }
    self._bind(call["views"])
    if not call["queued"] {
      # A unit whose backward never reaches _GatherShard at its own depth (all of it
      # inside a recomputation) reshards when backward ends.
      call["queued"] = _dist.at_backward_end(fn() = self._reshard(call))
    }
    return none
  }

  # After the flat gradient was reduced: reshard when this is the backward of the
  # forward that gathered (a unit recomputed by nn.checkpoint gathers inside the
  # outer backward and is differentiated one level deeper).
  _post_backward(call) {
    if _dist.backward_depth() == call["depth"] + 1 { self._reshard(call) }
  }

  # Unbinds, gives the bytes back under "full", and drops the call's tensors: the
  # call, its flat vector, that vector's _GatherShard node and the node's saved call
  # make a cycle that reference counts never free.
  _reshard(call) {
    if call["full"] == none { return none }
    if call["refill"] != none {  # a prefetched gather still writing into the bytes
      _dist.wait_collective(call["refill"])
      call["refill"] = none
    }
    self._unbind()
    if self.sharding == "full" and self.world > 1 { _dist.release_bytes(call["full"]) }
    call["full"] = none
    call["views"] = none
  }

  _bind(views) {
    for (e, v) in zip(entries, views) {
      setattr(e[0], e[1], v)
      for place in e[5] { setattr(place[0], place[1], v) }
    }
  }
  _unbind() {
    for e in entries {
      setattr(e[0], e[1], none)
      for place in e[5] { setattr(place[0], place[1], none) }
    }
  }

  # This unit's parameters whole, by name (every rank calls it: an all-gather).
  full_params() {
    let whole = self.flat_param.detach()
    if self.world > 1 { whole = _dist.all_gather(whole.contiguous()) }
    let out = {}
    let offset = 0
    for e in entries {
      out[_fsdp_join(path, e[4])] = whole[offset:offset + e[3]].reshape(e[2]).clone()
      offset = offset + e[3]
    }
    return out
  }
  # Writes whole parameter values (a dict by name, as full_params gives) into this
  # rank's shard.
  load_full_params(values) {
    let shard = self.shard_of(values)
    no_grad { self.flat_param.copy_(shard) }
  }
  # This rank's slice of the flat vector of whole tensors by name (parameters, or an
  # optimizer's state shaped like them).
  shard_of(values) {
    let parts = []
    for e in entries { parts.append(values[_fsdp_join(path, e[4])].detach().to(self.flat_param.dtype).reshape([-1])) }
    let flat = _fsdp_padded(cat(parts), self.shard_size * self.world)
    let r = _dist.rank() if self.world > 1 else 0
    return flat[r * self.shard_size:(r + 1) * self.shard_size].clone()
  }
  # [name, shape, numel] of each parameter, in flat order.
  layout() {
    let out = []
    for e in entries { out.append([_fsdp_join(path, e[4]), e[2], e[3]]) }
    return out
  }
}

fn _fsdp_join(path, name) = name if path == "" else path + "." + name

fn _fsdp_backward_recorded(schedule) {
  schedule["backward_recorded"] = true
}

fn _fsdp_numel(entries) {
  let n = 0
  for e in entries { n = n + e[3] }
  return n
}

fn _fsdp_padded(flat, size) = flat if flat.numel() == size else cat([flat, zeros([size - flat.numel()], dtype=flat.dtype)])

# The floating-point tensors among a forward's positional inputs, cast to dtype (as
# PyTorch's MixedPrecision casts a unit's inputs); none when nothing changes.
fn _fsdp_cast_inputs(inp, dtype) {
  let changed = false
  let out = []
  for x in inp {
    if isinstance(x, "tensor") and x.dtype in _float_dtypes and x.dtype != dtype {
      out.append(x.to(dtype))
      changed = true
    } else {
      out.append(x)
    }
  }
  return tuple(out) if changed else none
}

# The tensors of a forward's output that need a gradient (a tensor, or a tuple or
# list of them).
fn _fsdp_output_tensors(out) {
  let items = out if type(out) in ["tuple", "list"] else [out]
  let ts = []
  for x in items {
    if isinstance(x, "tensor") and x.requires_grad { ts.append(x) }
  }
  return ts
}

# ---- auto-wrap -----------------------------------------------------------------------

# Whether auto_wrap makes `m` (with n parameter elements not yet in a unit) a unit.
fn _fsdp_wraps(policy, m, n) {
  if policy == none or n == 0 { return false }
  if type(policy) == "int" { return n >= policy }
  if type(policy) in ["list", "tuple"] {
    for name in policy {
      if isinstance(m, name) { return true }
    }
    return false
  }
  return policy(m)
}

fn _fsdp_check_policy(policy) {
  let ok = policy == none or type(policy) in ["int", "list", "tuple", "function", "builtin", "method"]
  if not ok {
    fail(f"dist.FullyShardedDataParallel(): auto_wrap must be none, a parameter count (int), a list of model " +
         f"class names or a function of the module, got {_argcheck.shown(policy)}")
  }
}

# Whether `name` (a parameter path) lies under the module at `prefix`.
fn _fsdp_under(name, prefix) = prefix == "" or name.startswith(prefix + ".")

# Whether parameter `name` and every other name of it (`aliases`: tied weights) lie
# under the module at `prefix`.
fn _fsdp_all_under(name, aliases, prefix) {
  for a in aliases.get(name, []) {
    if not _fsdp_under(a, prefix) { return false }
  }
  return _fsdp_under(name, prefix)
}

# [module path, [parameter names]] of each unit, innermost first, the root last: a
# submodule whose parameters not yet in a unit satisfy the policy becomes a unit. A
# tied parameter counts for a module only when the module holds all its places.
fn _fsdp_plan(root, policy, aliases) {
  let names = []
  for (n, p) in root.named_parameters() { names.append(n) }
  let taken = {}
  let units = []
  let mods = root.named_modules()
  for k in range(len(mods) - 1, 0, -1) {
    let (path, m) = mods[k]
    let mine = [n for n in names if _fsdp_all_under(n, aliases, path) and not (n in taken)]
    let count = 0
    for n in mine { count = count + _fsdp_resolve(root, n).numel() }
    if _fsdp_wraps(policy, m, count) {
      for n in mine { taken[n] = true }
      units.append([path, mine])
    }
  }
  let rest = [n for n in names if not (n in taken)]
  if len(rest) > 0 { units.append(["", rest]) }
  return units
}

# The object a dotted path names from root ("blocks.0.attn" -> the module; the last
# part of a parameter path is its field).
fn _fsdp_resolve(root, path) {
  let obj = root
  for part in path.split(".") { obj = getattr(obj, part) }
  return obj
}

# [owner module, field name] of the parameter at dotted path n.
fn _fsdp_place(root, n) {
  let steps = n.split(".")
  let owner = root if len(steps) == 1 else _fsdp_resolve(root, ".".join(steps[0:len(steps) - 1]))
  return [owner, steps[len(steps) - 1]]
}

fn _fsdp_unit(root, path, names, aliases, sharding, param_dtype, reduce_dtype, schedule, index) {
  let entries = []
  let parts = []
  let dtype = none
  for n in names {
    let (owner, field) = _fsdp_place(root, n)
    let p = getattr(owner, field)
    if dtype != none and p.dtype != dtype {
      fail(f"dist.FullyShardedDataParallel(): the parameters of unit '{path}' have dtypes {dtype} and {p.dtype}; a unit's flat parameter has one dtype (cast the model with .to() first)")
    }
    dtype = p.dtype
    let others = [_fsdp_place(root, a) for a in aliases.get(n, [])]
    entries.append([owner, field, p.shape, p.numel(), n[len(path) + 1:len(n)] if path != "" else n, others])
    parts.append(p.detach().reshape([-1]))
  }
  let world = 1 if sharding == "none" else _dist.world_size()
  let numel = _fsdp_numel(entries)
  let size = (numel + world - 1) // world
  let r = _dist.rank() if world > 1 else 0
  let shard = _fsdp_padded(cat(parts), size * world)[r * size:(r + 1) * size].detach().clone()
  parts = none
  let unit = _FsdpUnit(_fsdp_resolve(root, path) if path != "" else root, path, entries, shard, world, sharding,
                       param_dtype if param_dtype != none else dtype, reduce_dtype if reduce_dtype != none else dtype,
                       schedule, index)
  unit._unbind()
  unit._install()
  return unit
}

fn _fsdp_precision(mixed_precision) {
  if mixed_precision == none { return [none, none] }
  if type(mixed_precision) != "dict" {
    fail(f"dist.FullyShardedDataParallel(): mixed_precision must be none or a dict such as " +
         f"{{\"param_dtype\": bf16, \"reduce_dtype\": f32}}, got {_argcheck.shown(mixed_precision)}")
  }
  for k in mixed_precision.keys() {
    if not (k in ["param_dtype", "reduce_dtype"]) {
      fail(f"dist.FullyShardedDataParallel(): mixed_precision has no key '{k}' (param_dtype, reduce_dtype)")
    }
  }
  return [mixed_precision.get("param_dtype", none), mixed_precision.get("reduce_dtype", none)]
}

# ---- the wrapper -----------------------------------------------------------------------

# FullyShardedDataParallel(module, sharding="full", auto_wrap=none, mixed_precision=none, prefetch=true)
model FullyShardedDataParallel(module, sharding="full", auto_wrap=none, mixed_precision=none, prefetch=true) {
  """Shards module's parameters, gradients and optimizer state over the ranks (ZeRO-3 with
  sharding="full", ZeRO-2 with "grad_op", DistributedDataParallel's arithmetic with "none"), as
  torch.distributed.fsdp.FullyShardedDataParallel: each unit's parameters are all-gathered for its
  forward and backward and its gradients reduce-scattered. auto_wrap makes submodules units of their
  own: a parameter count, a list of model class names or a function of the module;
  mixed_precision={"param_dtype": bf16, "reduce_dtype": f32} gathers and computes in param_dtype and
  reduces gradients in reduce_dtype; prefetch=true gathers the next unit's parameters while one
  computes. Give the optimizer its parameters() (this rank's shards).

  Example: let fsdp = dist.FullyShardedDataParallel(net, sharding="full", auto_wrap=["Block"])
  """
  let _mod_checked = nn._is_module(module) or fail(f"dist.FullyShardedDataParallel(): the module must be a model instance, got {_argcheck.shown(module)}")
  let _sharding_checked = sharding in _shardings or fail(f"dist.FullyShardedDataParallel(): sharding must be \"full\", \"grad_op\" or \"none\", got {_argcheck.shown(sharding)}")
  let _policy_checked = _fsdp_check_policy(auto_wrap)
  let _precision = _fsdp_precision(mixed_precision)
  sharding = sharding
  no_grad {
    for p in module.parameters() { _dist.broadcast(p, 0) }
    for b in module.buffers() { _dist.broadcast(b, 0) }
  }
  module = module
  # The units, innermost first and the root's last; their flat_params are this
  # model's parameters().
  let _aliases = _dist.parameter_aliases(module)  # tied weights: {first name: [other names]}
  # The units' forward order (recorded by the first forward) and whether they prefetch.
  _schedule = {"prefetch": prefetch, "forward": [], "recorded": false, "backward": [], "backward_recorded": false,
               "units": []}
  let _plan = _fsdp_plan(module, auto_wrap, _aliases)
  units = [_fsdp_unit(module, _plan[k][0], _plan[k][1], _aliases, sharding, _precision[0], _precision[1], self._schedule, k)
           for k in range(len(_plan))]
  let _units_known = self._schedule["units"].extend(self.units)
  forward(*args) {
    let out = self.module(*args)
    if not is_compiling() {
      self._schedule["recorded"] = true
      for u in self.units { u._drop_prefetch() }
    }
    return out
  }

  clip_grad_norm_(max_norm, norm_type=2.0) {
    """Scales the gradients of every shard so that the norm of the whole model's gradient, over all
    ranks, is at most max_norm; returns that norm (before scaling), the same on every rank.

    Example: fsdp.clip_grad_norm_(1.0)
    """
    let sharded = zeros([1], dtype=f64)
    let replicated = zeros([1], dtype=f64)
    for u in self.units {
      if u.flat_param.grad != none {
        let s = (u.flat_param.grad.to(f64).abs() ** norm_type).sum().reshape([1])
        if u.world > 1 { sharded = sharded + s } else { replicated = replicated + s }
      }
    }
    _dist.all_reduce(sharded, "sum")
    let total = ((sharded + replicated) ** (1.0 / norm_type)).item()
    let coef = max_norm / (total + 1e-6)
    if coef < 1.0 {
      no_grad {
        for u in self.units {
          if u.flat_param.grad != none { u.flat_param.grad = u.flat_param.grad * coef }
        }
      }
    }
    return total
  }

  comm_counts() {
    """{all_gather, reduce, prefetched} : how many parameter all-gathers and gradient reductions
    (reduce-scatters, or all-reduces under sharding="none") the units made so far, and how many of
    the gathers were queued ahead of the unit's forward or backward (prefetch=true).

    Example: fsdp.comm_counts()
    """
    let g = 0
    let r = 0
    let p = 0
    for u in self.units {
      g = g + u.gathers
      r = r + u.reductions
      p = p + u.prefetches
    }
    return {"all_gather": g, "reduce": r, "prefetched": p}
  }

  full_state_dict() {
    """The whole model's parameters by their names in the wrapped module (gathered from every rank;
    every rank calls it).

    Example: let whole = fsdp.full_state_dict()
    """
    let out = {}
    for u in self.units {
      for (k, v) in u.full_params().items() { out[k] = v }
    }
    return out
  }

  load_full_state_dict(state) {
    """Loads whole parameter values by name (as full_state_dict gives them) into this rank's shards.

    Example: fsdp.load_full_state_dict(whole)
    """
    for u in self.units { u.load_full_params(state) }
  }
}
