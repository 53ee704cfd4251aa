# _nn_adaptive: nn.AdaptiveLogSoftmaxWithLoss (round 8b, tests/stdlib/test_gaps_vs_torch8b_nn.dsl),
# PyTorch 1.13's efficient softmax approximation of Grave et al. (2016). nn re-exports
# it; import nn, not this module.
#
# Note [Adaptive softmax as a full log_prob gathered]
# PyTorch's forward runs each tail cluster only on the rows whose target falls in it
# and adds the head's log-probability of the cluster. Here every cluster runs on every
# row and the result is the full log_prob [N, n_classes] gathered at the targets: the
# same two terms summed in the same order, so the same values, and the same gradients
# (a row's other clusters get a zero gradient through the gather). It costs the tails'
# products on every row, which a training loop of this size does not notice.
import _nn_basic
import _nn_containers

fn _check_cutoffs(cutoffs, n_classes) {
  let cs = list(cutoffs) if type(cutoffs) in ["list", "tuple"] else none
  let ok = cs != none and len(cs) > 0 and all([type(c) == "int" for c in cs]) and all([cs[i] < cs[i + 1] for i in range(len(cs) - 1)]) and cs[0] > 0 and cs[-1] <= n_classes - 1
  if not ok {
    fail(f"nn.AdaptiveLogSoftmaxWithLoss(): cutoffs must be a list of unique, positive ints in increasing order, each between 1 and n_classes - 1 = {n_classes - 1}, got {repr(cutoffs)}")
  }
  return cs
}

fn _kind(v) = f"shape {list(v.shape)}" if type(v) == "tensor" else type(v)

fn _positive_int(what, v) {
  if type(v) != "int" or v <= 0 { fail(f"nn.AdaptiveLogSoftmaxWithLoss(): {what} must be an int above 0, got {repr(v)}") }
  return v
}

model AdaptiveLogSoftmaxWithLoss(in_features, n_classes, cutoffs, div_value=4.0, head_bias=false, device=none, dtype=none) {
  "The adaptive softmax of Grave et al.: a head over the shortlist and one entry per cluster, and a low-rank tail per cluster; forward(input, target) returns (output, loss), as torch.nn.AdaptiveLogSoftmaxWithLoss. Example: nn.AdaptiveLogSoftmaxWithLoss(16, 100, [10, 40])(randn(4, 16), tensor([1, 20, 50, 99]))"
  in_features = _positive_int("in_features", in_features)
  n_classes = _positive_int("n_classes", n_classes)
  cutoffs = _check_cutoffs(cutoffs, n_classes) + [n_classes]
  div_value = div_value
  head_bias = head_bias
  shortlist_size = self.cutoffs[0]
  n_clusters = len(self.cutoffs) - 1
  head_size = self.shortlist_size + self.n_clusters
  head = _nn_basic.Linear(in_features, self.head_size, bias=head_bias, device=device, dtype=dtype)
  tail = _nn_containers.ModuleList([_nn_containers.Sequential(
           _nn_basic.Linear(in_features, int(in_features // (div_value ** (i + 1))), bias=false, device=device, dtype=dtype),
           _nn_basic.Linear(int(in_features // (div_value ** (i + 1))), self.cutoffs[i + 1] - self.cutoffs[i], bias=false, device=device, dtype=dtype))
         for i in range(self.n_clusters)])

  # log-probabilities of every class [N, n_classes] from the head's output
  _full_log_prob(input, head_output) {
    let head_lp = log_softmax(head_output, dim=1)
    let parts = [head_lp[:, :self.shortlist_size]]
    for i in range(self.n_clusters) {
      parts.append(log_softmax(self.tail[i](input), dim=1) + head_lp[:, self.shortlist_size + i].unsqueeze(1))
    }
    return cat(parts, 1)
  }

  _checked_input(who, input) {
    if type(input) != "tensor" or input.dim() != 2 or input.shape[1] != self.in_features {
      fail(f"nn.AdaptiveLogSoftmaxWithLoss.{who}(): input must be a tensor [N, in_features = {self.in_features}], got {_kind(input)}")
    }
    return input
  }

  forward(input, target) {
    if type(input) != "tensor" or type(target) != "tensor" {
      fail(f"nn.AdaptiveLogSoftmaxWithLoss(): input and target must be tensors, got {type(input)} and {type(target)}")
    }
    if target.dim() > 1 { fail(f"nn.AdaptiveLogSoftmaxWithLoss(): target must be 0-D or 1-D (multi-target not supported), got shape {list(target.shape)}") }
    if target.dim() == 1 and (input.dim() != 2 or input.shape[0] != target.shape[0]) {
      fail(f"nn.AdaptiveLogSoftmaxWithLoss(): a 1-D target needs a 2-D input with as many rows, got input {list(input.shape)} and target {list(target.shape)}")
    }
    if target.dim() == 0 and input.dim() != 1 { fail(f"nn.AdaptiveLogSoftmaxWithLoss(): a 0-D target needs a 1-D input, got input {list(input.shape)}") }
    if target.dtype.is_floating_point or target.dtype == bool { fail(f"nn.AdaptiveLogSoftmaxWithLoss(): target must be an integer tensor (class indices), got {target.dtype}") }
    let batched = target.dim() == 1
    let x = input if batched else input.unsqueeze(0)
    let t = target if batched else target.unsqueeze(0)
    if x.shape[1] != self.in_features { fail(f"nn.AdaptiveLogSoftmaxWithLoss(): input must have in_features = {self.in_features} features, got {x.shape[1]}") }
    if t.numel() > 0 and ((t < 0).any().item() or (t >= self.n_classes).any().item()) {
      fail(f"nn.AdaptiveLogSoftmaxWithLoss(): target values must be in [0, {self.n_classes - 1}], got values in [{t.min().item()}, {t.max().item()}]")
    }
    let output = self._full_log_prob(x, self.head(x)).gather(1, t.to(i64).unsqueeze(1)).squeeze(1)
    let loss = (-output).mean()
    return named_tuple(["output", "loss"], [output if batched else output.squeeze(0), loss])
  }

  log_prob(input) = self._full_log_prob(self._checked_input("log_prob", input), self.head(input))

  # PyTorch's rule: the head's argmax where it is in the shortlist (nothing in a cluster
  # can beat it), else the full log_prob's argmax
  predict(input) {
    let head_output = self.head(self._checked_input("predict", input))
    let first = head_output.argmax(dim=1)
    let outside = first >= self.shortlist_size
    if not outside.any().item() { return first }
    return where(outside, self._full_log_prob(input, head_output).argmax(dim=1), first)
  }
}
