# _optim_scaler: optim.GradScaler, dynamic loss scaling for 16-bit training. optim
# re-exports it; import optim, not this module.
import _argcheck
import _optim_graph

# GradScaler(init_scale=65536, growth_factor=2, backoff_factor=0.5, growth_interval=2000):
# dynamic loss scaling for 16-bit training (PyTorch's torch.cuda.amp.GradScaler):
#   scaler.scale(loss).backward()   # gradients of loss * scale
#   scaler.step(opt)                # unscales them; skips the step on Inf/NaN
#   scaler.update()                 # halves the scale after Inf/NaN, doubles it
#                                   # after growth_interval clean steps
# The scale and the count of clean steps are 0-dim tensors (f32, i64), as PyTorch's,
# moved to the loss's device at the first scale(): a compiled step with the scaler
# inside (compile(..., scaler=scaler), stdlib/_optim_graph.dsl) updates them on the
# device, and eager steps read the same ones.
model GradScaler(init_scale=65536.0, growth_factor=2.0, backoff_factor=0.5, growth_interval=2000, enabled=true) {
  """Dynamic loss scaling for 16-bit training: scales the loss, unscales the grads and skips steps with Inf or NaN, as torch.cuda.amp.GradScaler.

  Example: scaler.scale(loss).backward(); scaler.step(opt); scaler.update()
  """
  let _checked = _argcheck.check_options("optim.GradScaler()", "",
                                {"init_scale": init_scale, "growth_factor": growth_factor,
                                 "backoff_factor": backoff_factor, "growth_interval": growth_interval},
                                {"init_scale": "> 0", "growth_factor": "> 1", "backoff_factor": "in (0, 1)",
                                 "growth_interval": "int > 0"})
  let _enabled_checked = _argcheck.check_options("optim.GradScaler()", "", {"enabled": enabled}, {"enabled": "bool"})
  # enabled=false (PyTorch's GradScaler(enabled=use_amp)): every method is a no-op but
  # step(), which steps; get_scale() is 1.0 and the state dict empty, as PyTorch's.
  enabled = enabled
  growth = growth_factor
  backoff = backoff_factor
  interval = growth_interval
  _scale = tensor(float(init_scale), dtype=f32)
  _growth_tracker = tensor(0, dtype=i64)
  found_inf = false  # whether the last step() skipped (read on the host there)
  _found = none      # unscale_()'s device flag: 1 after Inf/NaN
  unscaled = false
  scale(loss) {
    "loss times the scale (a list or tuple of tensors: each, as PyTorch's). Example: scaler.scale(loss).backward()"
    if not self.enabled { return loss }
    if type(loss) in ["list", "tuple"] {
      let out = [self.scale(x) for x in loss]
      return tuple(out) if type(loss) == "tuple" else out
    }
    if type(loss) != "tensor" {
      fail(f"optim.GradScaler.scale(): expected the loss as a tensor (or a list of them), got {_argcheck.shown(loss)}")
    }
    self._to(loss.device)
    return loss * self._scale
  }
  _to(device) {
    if self._scale.device != device {
      self._scale = self._scale.to(device)
      self._growth_tracker = self._growth_tracker.to(device)
    }
  }
  _inverse_scale() = 1.0 / self._scale
  get_scale() { "The current scale (1.0 when disabled). Example: print(scaler.get_scale())"; return self._scale.item() if self.enabled else 1.0 }
  is_enabled() { "Whether the scaler scales (enabled=). Example: scaler.is_enabled()"; return self.enabled }
  unscale_(opt) {
    "Divides every grad of opt's parameters by the scale (once per step) and notes Inf/NaN. Example: scaler.unscale_(opt); nn.clip_grad_norm_(m.parameters(), 1.0)"
    _argcheck.check_optimizer("optim.GradScaler.unscale_()", opt)
    if self.unscaled or not self.enabled { return none }
    no_grad {
      let inv = self._inverse_scale()
      let grads = []
      for p in opt.params {
        if p.grad != none {
          p.grad.mul_(inv)
          grads.append(p.grad)
        }
      }
      # 1 where a gradient holds Inf or NaN, computed on the device: step() reads it
      # once (PyTorch's single sync), update() not at all
      self._found = _optim_graph._nonfinite(grads).to(self._scale.device)
    }
    self.unscaled = true
  }
  step(opt) {
    "opt.step() on the unscaled grads unless one held Inf or NaN; returns whether it stepped. Example: scaler.step(opt)"
    if not self.enabled {
      _argcheck.check_optimizer("optim.GradScaler.step()", opt).step()
      return true
    }
    self.unscale_(_argcheck.check_optimizer("optim.GradScaler.step()", opt))
    self.found_inf = self._found.item() != 0
    if self.found_inf { return false }
    opt.step()
    return true
  }
  update() {
    "Halves the scale after an Inf/NaN step, doubles it after growth_interval clean ones. Example: scaler.update()"
    if not self.enabled { return none }
    no_grad { self._update_scale(self._found if self._found != none else zeros([], device=self._scale.device)) }
    self._found = none
    self.found_inf = false
    self.unscaled = false
  }
  # The scale's schedule as tensor ops, which a compiled step records: found (0-dim,
  # nonzero after Inf/NaN) halves the scale and restarts the count of clean steps;
  # the growth_interval-th clean step in a row doubles it.
  _update_scale(found) {
    let bad = found != 0
    let clean = where(bad, zeros_like(self._growth_tracker), self._growth_tracker + 1)
    let grow = clean >= self.interval
    let s = self._scale
    self._scale.copy_(where(bad, s * self.backoff, where(grow, s * self.growth, s)))
    self._growth_tracker.copy_(where(grow, zeros_like(clean), clean))
  }
  state_dict() {
    "The scale and its schedule, as a dict (empty when disabled). Example: save(scaler.state_dict(), \"scaler.nabla\")"
    if not self.enabled { return {} }
    return {"scale": self.get_scale(), "growth_factor": self.growth, "backoff_factor": self.backoff,
            "growth_interval": self.interval, "clean_steps": self._growth_tracker.item()}
  }
  load_state_dict(d) {
    "Restores the scale, its schedule and the count of clean steps from state_dict(). Example: scaler.load_state_dict(d)"
    # Every value checked before any is set; the factors and the interval are restored
    # too, as PyTorch's (they were kept from the constructor, silently).
    if not self.enabled { return none }
    let who = "optim.GradScaler.load_state_dict()"
    _argcheck.check_state_dict(who, d)
    let keys = ["scale", "growth_factor", "backoff_factor", "growth_interval", "clean_steps"]
    let kinds = {"scale": "> 0", "growth_factor": "> 1", "backoff_factor": "in (0, 1)", "growth_interval": "int > 0",
                 "clean_steps": ">= 0"}
    let v = {}
    for k in keys {
      v[k] = _argcheck.loaded(who, d, k)
      _argcheck.check_option(who, repr(k), kinds[k], v[k])
    }
    if type(v["clean_steps"]) != "int" { fail(f"{who}: 'clean_steps' must be an int >= 0, got {_argcheck.shown(v['clean_steps'])}") }
    self._scale.fill_(v["scale"])
    self._growth_tracker.fill_(v["clean_steps"])
    self.growth = v["growth_factor"]
    self.backoff = v["backoff_factor"]
    self.interval = v["growth_interval"]
  }
}
