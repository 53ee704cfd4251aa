# Pruning with masks (stdlib/prune.dsl): which entries go, that they stay zero through
# training, save/load and compile(), composition and remove() (ctest dsl_tests).
import nn
import optim
import prune
import math

# The magnitudes of the pruned (mask 0) and kept (mask 1) entries of t, as lists.
fn split_by_mask(t, mask) = (t.abs()[mask == 0].tolist(), t.abs()[mask != 0].tolist())

test "l1_unstructured zeroes exactly round(amount * n) entries, the smallest magnitudes" {
  manual_seed(1)
  let fc = nn.Linear(7, 5)
  let w = fc.weight.detach().clone()
  prune.l1_unstructured(fc, "weight", amount=0.4)
  expect(sum(fc.weight_mask == 0).item() == 14)  # round(0.4 * 35)
  expect(sum(fc.weight == 0).item() == 14)
  let (gone, kept) = split_by_mask(w, fc.weight_mask)
  expect(max(gone) < min(kept), f"pruned {max(gone)} >= kept {min(kept)}")
  # the parameter itself is untouched and is now weight_orig; weight = orig * mask
  expect_close(fc.weight_orig, w, rtol=0.0, atol=0.0)
  expect_close(fc.weight, w * fc.weight_mask, rtol=0.0, atol=0.0)
  expect(list(fc.state_dict().keys()) == ["bias", "weight_orig", "weight_mask"])
  expect(len(fc.parameters()) == 2 and len(fc.buffers()) == 1)
}

test "amount is a fraction (rounded half to even, as PyTorch) or a count" {
  let fc = nn.Linear(5, 1)
  prune.l1_unstructured(fc, "weight", amount=0.5)  # round(2.5) == 2
  expect(sum(fc.weight_mask == 0).item() == 2)
  let g = nn.Linear(5, 2)
  prune.l1_unstructured(g, "weight", amount=3)
  expect(sum(g.weight_mask == 0).item() == 3)
  let h = nn.Linear(3, 2)
  prune.l1_unstructured(h, "weight", amount=0.0)
  expect(sum(h.weight_mask == 0).item() == 0)
  prune.l1_unstructured(h, "weight", amount=1.0)
  expect(sum(h.weight == 0).item() == 6)
}

test "ties are broken by position and still give exactly k zeros" {
  let m = nn.Linear(4, 2)
  no_grad { m.weight.copy_(tensor([[1.0, -1.0, 2.0, 1.0], [-1.0, 3.0, 1.0, 0.5]])) }
  prune.l1_unstructured(m, "weight", amount=3)  # 0.5, then two of the five |1|s
  expect(m.weight_mask.tolist() == [[0.0, 0.0, 1.0, 1.0], [1.0, 1.0, 1.0, 0.0]], str(m.weight_mask.tolist()))
}

test "pruned entries get zero gradient and stay zero through optimizer steps" {
  manual_seed(2)
  let m = nn.Sequential([nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)])
  let opt = optim.Adam(m.parameters(), lr=0.05, weight_decay=0.01)  # made before pruning
  let x = randn([16, 6])
  let y = randint(0, 3, [16])
  # a few steps first, so Adam has momentum at the entries about to be pruned
  for i in range(3) {
    let loss = cross_entropy(m(x), y)
    opt.zero_grad(); loss.backward(); opt.step()
  }
  prune.l1_unstructured(m[0], "weight", amount=0.6)
  let zeros_at = m[0].weight_mask == 0
  let n_zero = sum(zeros_at).item()
  let before = m[0].weight_orig.detach().clone()
  for i in range(5) {
    let loss = cross_entropy(m(x), y)
    opt.zero_grad(); loss.backward()
    expect(m[0].weight_orig.grad.abs()[zeros_at].max().item() == 0.0, "a pruned entry got a gradient")
    expect(m[0].weight_orig.grad.abs()[m[0].weight_mask != 0].max().item() > 0.0)
    opt.step()
  }
  m(x)  # the pre-hook recomputes weight before forward
  expect(sum(m[0].weight == 0).item() == n_zero)
  expect(m[0].weight.abs()[zeros_at].max().item() == 0.0)
  # the optimizer updated the same tensor (weight_orig is the old parameter)
  expect((m[0].weight_orig - before).abs()[m[0].weight_mask != 0].max().item() > 1e-4)
}

test "masks survive save and load into a fresh model prepared with identity()" {
  manual_seed(3)
  let path = "/tmp/nabla_prune_masks.safetensors"
  let a = nn.Sequential([nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2)])
  prune.l1_unstructured(a[0], "weight", amount=0.5)
  prune.ln_structured(a[2], "weight", amount=1, n=2, dim=0)
  save(a, path)
  expect(list(load(path).keys()) == ["0.bias", "0.weight_orig", "0.weight_mask", "2.bias", "2.weight_orig", "2.weight_mask"])
  let b = nn.Sequential([nn.Linear(5, 4), nn.ReLU(), nn.Linear(4, 2)])
  prune.identity(b[0], "weight")
  prune.identity(b[2], "weight")
  expect(sum(b[0].weight_mask == 0).item() == 0)
  load(path, into=b)
  expect_close(b[0].weight_mask, a[0].weight_mask, rtol=0.0, atol=0.0)
  expect_close(b[2].weight_mask, a[2].weight_mask, rtol=0.0, atol=0.0)
  let x = randn([3, 5])
  expect_close(b(x), a(x), rtol=0.0, atol=0.0)
  expect(sum(b[0].weight == 0).item() == 10)
  # and keeps pruning through training after the load
  let opt = optim.SGD(b.parameters(), lr=0.5, momentum=0.9)
  for i in range(3) {
    let loss = b(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
  }
  b(x)
  expect(sum(b[0].weight == 0).item() == 10)
  expect(sum(b[2].weight[1] == 0).item() == 4 or sum(b[2].weight[0] == 0).item() == 4)
}

test "pruning again composes with the old mask (iterative pruning)" {
  manual_seed(4)
  let fc = nn.Linear(10, 10)
  prune.l1_unstructured(fc, "weight", amount=0.5)
  let first = fc.weight_mask.clone()
  let mask_object = fc.weight_mask
  prune.l1_unstructured(fc, "weight", amount=0.5)  # half of the 50 still there
  expect(sum(fc.weight_mask == 0).item() == 75)
  expect(sum((first == 0) * (fc.weight_mask != 0)).item() == 0, "an entry came back")
  let (gone, kept) = split_by_mask(fc.weight_orig.detach(), fc.weight_mask)
  expect(max(gone) < min(kept))
  # the mask was changed in place: compiled graphs and references see the new one
  expect_close(mask_object, fc.weight_mask, rtol=0.0, atol=0.0)
  # structured after unstructured: whole rows go on top of the old zeros
  prune.ln_structured(fc, "weight", amount=2, n=1, dim=0)
  let rows_gone = sum(fc.weight_mask.sum(dim=1) == 0).item()
  expect(rows_gone >= 2)
  expect(sum((first == 0) * (fc.weight_mask != 0)).item() == 0)
  expect(len(fc._pruned) == 1)
}

test "ln_structured removes the slices of smallest norm along dim, and n matters" {
  let fc = nn.Linear(3, 3, bias=false)
  # row norms: L1 = 3, 2.1, 2.8; L2 = 1.73, 2.0, 1.81 -> L1 prunes row 1, L2 row 0
  no_grad { fc.weight.copy_(tensor([[1.0, 1.0, 1.0], [2.0, 0.05, 0.05], [1.6, 0.6, 0.6]])) }
  let a = deepcopy(fc)
  prune.ln_structured(a, "weight", amount=1, n=1, dim=0)
  expect(a.weight_mask.sum(dim=1).tolist() == [3.0, 0.0, 3.0])
  let b = deepcopy(fc)
  prune.ln_structured(b, "weight", amount=1, n=2, dim=0)
  expect(b.weight_mask.sum(dim=1).tolist() == [0.0, 3.0, 3.0])
  let c = deepcopy(fc)
  prune.ln_structured(c, "weight", amount=1, n=math.inf, dim=1)  # columns: max 2, 1, 1 (a tie: the first goes)
  expect(c.weight_mask.sum(dim=0).tolist() == [3.0, 0.0, 3.0])
  # a conv's output channels: 25% of 8 filters
  manual_seed(5)
  let conv = nn.Conv2d(3, 8, 3)
  let norms = conv.weight.detach().abs().sum(dim=[1, 2, 3])
  prune.ln_structured(conv, "weight", amount=0.25, n=1, dim=0)
  let alive = conv.weight_mask.sum(dim=[1, 2, 3])
  expect(sum(alive == 0).item() == 2)
  expect(norms[alive == 0].max().item() < norms[alive != 0].min().item())
  expect(sum(alive == 27).item() == 6)
}

test "global_unstructured prunes the smallest entries over all parameters together" {
  manual_seed(6)
  let a = nn.Linear(8, 8)
  let b = nn.Linear(8, 4)
  no_grad { b.weight.mul_(10.0) }  # b's entries are large: a loses more
  let all = cat([a.weight.detach().abs().reshape([-1]), b.weight.detach().abs().reshape([-1])])
  prune.global_unstructured([(a, "weight"), (b, "weight")], amount=0.5)
  let za = sum(a.weight_mask == 0).item()
  let zb = sum(b.weight_mask == 0).item()
  expect(za + zb == 48, f"{za} + {zb}")
  expect(za > zb)
  let gone = cat([a.weight_orig.detach().abs()[a.weight_mask == 0], b.weight_orig.detach().abs()[b.weight_mask == 0]])
  let kept = cat([a.weight_orig.detach().abs()[a.weight_mask != 0], b.weight_orig.detach().abs()[b.weight_mask != 0]])
  expect(gone.max().item() < kept.min().item())
  # again: half of what is left, over both
  prune.global_unstructured([(a, "weight"), (b, "weight")], amount=0.5)
  expect(sum(a.weight_mask == 0).item() + sum(b.weight_mask == 0).item() == 72)
}

test "global_unstructured takes PyTorch's order (parameters, pruning_method, amount=) and a number second as the amount" {
  for call in [fn(ps) = prune.global_unstructured(ps, prune.L1Unstructured, amount=0.25),
               fn(ps) = prune.global_unstructured(ps, 0.25),
               fn(ps) = prune.global_unstructured(ps, amount=0.25, pruning_method="l1")] {
    manual_seed(7)
    let a = nn.Linear(8, 8)
    call([(a, "weight")])
    expect(sum(a.weight_mask == 0).item() == 16)
  }
  manual_seed(7)
  let r = nn.Linear(8, 8)
  prune.global_unstructured([(r, "weight")], prune.RandomUnstructured, amount=0.5)
  expect(sum(r.weight_mask == 0).item() == 32)
}

test "random_unstructured and custom_from_mask" {
  manual_seed(7)
  let fc = nn.Linear(10, 10)
  prune.random_unstructured(fc, "weight", amount=0.3)
  expect(sum(fc.weight_mask == 0).item() == 30)
  let g = nn.Linear(2, 2)
  prune.custom_from_mask(g, "weight", mask=tensor([[1.0, 0.0], [0.0, 1.0]]))
  expect(g.weight[0, 1].item() == 0.0 and g.weight[1, 0].item() == 0.0 and g.weight[0, 0].item() != 0.0)
  prune.custom_from_mask(g, "bias", mask=tensor([0.0, 1.0]))
  expect(g.bias[0].item() == 0.0)
  expect(g._pruned == ["weight", "bias"])
}

test "remove() makes the pruning permanent in the same tensor" {
  manual_seed(8)
  let m = nn.Sequential([nn.Linear(4, 6), nn.ReLU(), nn.Linear(6, 2)])
  let w = m[0].weight
  let opt = optim.SGD(m.parameters(), lr=0.1)
  prune.l1_unstructured(m[0], "weight", amount=0.5)
  let x = randn([5, 4])
  let y = m(x)
  expect(prune.is_pruned(m))
  prune.remove(m[0], "weight")
  expect(not prune.is_pruned(m))
  expect(list(m.state_dict().keys()) == ["0.weight", "0.bias", "2.weight", "2.bias"])
  expect(m[0].weight.requires_grad and m[0].weight.is_leaf)
  expect(sum(m[0].weight == 0).item() == 12)
  expect(sum(w == 0).item() == 12, "not the optimizer's tensor")
  expect_close(m(x), y, rtol=0.0, atol=0.0)
  # unmasked now: training moves the zeros again, through the optimizer made at first
  let loss = m(x).pow(2).sum()
  opt.zero_grad(); loss.backward(); opt.step()
  expect(sum(m[0].weight == 0).item() < 12)
  # the pre-hook of the module stays but does nothing: prune again, remove_all
  prune.l1_unstructured(m[0], "weight", amount=3)
  prune.l1_unstructured(m[2], "bias", amount=1)
  prune.remove_all(m)
  expect(not prune.is_pruned(m) and sum(m[2].bias == 0).item() == 1)
  expect_error("import prune\nimport nn\nprune.remove(nn.Linear(2, 2), 'weight')", "has to be pruned before pruning can be removed")
}

test "errors name the amount and the parameter" {
  expect_error("import prune\nimport nn\nprune.l1_unstructured(nn.Linear(2, 2), 'weight', amount=1.5)",
               "prune: amount=1.5 should either be a float in the range [0, 1] or a non-negative integer")
  expect_error("import prune\nimport nn\nprune.l1_unstructured(nn.Linear(2, 2), 'weight', amount=5)",
               "prune: amount=5 should be smaller than the number of parameters to prune=4")
  expect_error("import prune\nimport nn\nprune.l1_unstructured(nn.Linear(2, 2), 'kernel', amount=1)",
               "prune: Linear has no parameter 'kernel'")
}

test "sparsity_report counts the zeros forward sees" {
  manual_seed(9)
  let m = nn.Sequential([nn.Linear(10, 10), nn.ReLU(), nn.Linear(10, 5)])
  prune.l1_unstructured(m[0], "weight", amount=0.7)
  prune.l1_unstructured(m[2], "weight", amount=10)
  let r = prune.sparsity_report(m, show=false)
  expect(r["numel"] == 165)
  expect(r["zeros"] == 80)
  expect_close(tensor(r["sparsity"]), tensor(100.0 * 80 / 165))
  let names = []
  for row in r["layers"] { names.append(row[0]) }
  expect(names == ["0.bias", "0.weight*", "2.bias", "2.weight*"], str(names))
  expect(r["layers"][1][3] == 70 and r["layers"][1][4] == 70.0)
}

test "a pruned model lowers with compile(): the graph multiplies by the live mask" {
  manual_seed(10)
  let m = nn.Sequential([nn.Linear(6, 8), nn.ReLU(), nn.Linear(8, 3)])
  prune.l1_unstructured(m[0], "weight", amount=0.5)
  let x = randn([4, 6])
  let gm = compile(m, x)
  gm.optimize("default")
  expect_close(gm(x), m(x), rtol=0.0, atol=0.0)
  expect(gm.ir().find("mul(%0.weight_orig, %0.weight_mask)") >= 0)
  let opt = optim.SGD(m.parameters(), lr=0.5)
  for i in range(3) {
    let loss = m(x).pow(2).mean()
    opt.zero_grad(); loss.backward(); opt.step()
  }
  prune.l1_unstructured(m[0], "weight", amount=0.5)  # the mask changes in place
  expect_close(gm(x), m(x), rtol=1e-6, atol=1e-7)
  expect(sum(m[0].weight == 0).item() == 36)
}

test "deepcopy gives an independent model whose pruning hook works on the copy" {
  manual_seed(11)
  let m = nn.Sequential([nn.Linear(3, 3), nn.BatchNorm1d(3)])
  prune.l1_unstructured(m[0], "weight", amount=4)
  let c = deepcopy(m)
  expect(c[0].weight_orig.requires_grad and c[0].weight_orig.is_leaf)
  expect(c[1].running_mean.requires_grad == false)
  expect(list(c.state_dict().keys()) == list(m.state_dict().keys()))
  no_grad { c[0].weight_orig.fill_(1.0) }
  let x = randn([4, 3])
  m.eval()
  c.eval()
  c(x)
  expect(sum(c[0].weight == 1.0).item() == 5 and sum(c[0].weight == 0).item() == 4)
  expect(m[0].weight_orig.abs().max().item() < 1.0, "the copy shares tensors with the original")
  let shared = nn.Linear(2, 2)
  let s = deepcopy([shared, shared])
  no_grad { s[0].weight.fill_(2.0) }
  expect(s[1].weight[0, 0].item() == 2.0 and shared.weight[0, 0].item() != 2.0)
}

test "forward pre-hooks see and may replace the input; register_buffer; delattr" {
  let m = nn.Linear(2, 1, bias=false)
  no_grad { m.weight.fill_(1.0) }
  let seen = []
  let h = m.register_forward_pre_hook(fn(mod, input) = seen.append(input[0].shape))
  let h2 = m.register_forward_pre_hook(fn(mod, input) = (input[0] * 2.0,))
  expect(m(ones([1, 2])).item() == 4.0)
  expect(seen == [(1, 2)])
  h2.remove()
  expect(m(ones([1, 2])).item() == 2.0)
  h.remove()
  m(ones([1, 2]))
  expect(len(seen) == 2)
  m.register_buffer("scale", tensor([3.0]))
  expect(list(m.state_dict().keys()) == ["weight", "scale"] and len(m.parameters()) == 1)
  delattr(m, "scale")
  expect(list(m.state_dict().keys()) == ["weight"])
  expect_error("import nn\ndelattr(nn.Linear(1, 1), 'nope')", "model Linear has no field 'nope'")
  expect(getattr(m, "nope", none) == none)
}

# PyTorch 1.13's values for these calls (torch.nn.utils.prune) are the hand-checkable
# ones below: the smallest magnitudes, or the slices of smallest norm, zeroed.
test "the pruning method classes: compute_mask, prune and apply as torch.nn.utils.prune's" {
  let w = tensor([[1.0, -5.0, 2.0], [0.5, 3.0, -0.25], [4.0, -1.5, 0.75]], dtype=f64)
  let l1 = tensor([[0.0, -5.0, 2.0], [0.0, 3.0, 0.0], [4.0, -1.5, 0.0]], dtype=f64)
  expect(equal(prune.L1Unstructured(0.5).prune(w), l1) and equal(prune.L1Unstructured(4).prune(w), l1))
  expect(equal(prune.LnStructured(0.34, 2, dim=0).prune(w), tensor([[1.0, -5.0, 2.0], [0.0, 0.0, 0.0], [4.0, -1.5, 0.75]], dtype=f64)))
  expect(equal(prune.LnStructured(1, 1).prune(w), tensor([[1.0, -5.0, 0.0], [0.5, 3.0, 0.0], [4.0, -1.5, 0.0]], dtype=f64)), "dim=-1 by default")
  expect(equal(prune.LnStructured(2, math.inf, dim=1).prune(w), tensor([[0.0, -5.0, 0.0], [0.0, 3.0, 0.0], [0.0, -1.5, 0.0]], dtype=f64)))
  let m = tensor([[1, 0, 1], [1, 1, 0], [1, 1, 1]], dtype=f64)
  expect(equal(prune.L1Unstructured(2).compute_mask(w, m), tensor([[1, 0, 1], [0, 1, 0], [1, 1, 1]], dtype=f64)),
         "counted over all of t, as PyTorch's compute_mask")
  expect(equal(prune.CustomFromMask(m).prune(w), w * m) and equal(prune.Identity().prune(w), w))
  expect(prune.L1Unstructured(0.1).PRUNING_TYPE == "unstructured")
  expect(prune.LnStructured(0.1, 1).PRUNING_TYPE == "structured" and prune.CustomFromMask(m).PRUNING_TYPE == "global")
  expect(sum(prune.RandomUnstructured(3).compute_mask(w, ones_like(w)) == 0).item() == 3)
  expect(sum(prune.RandomStructured(1, dim=0).prune(ones(3, 3)).sum(dim=1) == 0).item() == 1)
  let a = nn.Linear(4, 4)
  prune.L1Unstructured.apply(a, "weight", amount=0.25)
  expect(sum(a.weight_mask == 0).item() == 4 and a.weight_orig.requires_grad)
  prune.LnStructured.apply(a, "weight", 0.5, 2, 0)
  expect(sum(a.weight_mask.sum(dim=1) == 0).item() >= 2)
  let b = nn.Linear(8, 8)
  prune.global_unstructured([(b, "weight")], pruning_method=prune.RandomUnstructured, amount=0.25)
  expect(sum(b.weight_mask == 0).item() == 16)
  expect_error(fn() = prune.global_unstructured([(b, "weight")], prune.LnStructured, amount=0.25), "got LnStructured")
  expect_error(fn() = prune.L1Unstructured(1.5), "amount=1.5 should either be a float in the range [0, 1]")
  expect_error(fn() = prune.L1Unstructured(-1), "non-negative integer")
  expect_error(fn() = prune.LnStructured(0.5, "fro"), "n (the order of the norm) must be a number")
  expect_error(fn() = prune.L1Unstructured(0.5).prune(w, importance_scores=ones(2)), "must have the parameter's shape")
}
