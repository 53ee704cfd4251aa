# A mixture of experts with top-2 gating as a PyTorch user writes it: the gate's logits,
# topk, a softmax over the chosen two, each expert run on the rows routed to it
# (nonzero(as_tuple=true)) and its weighted outputs summed back with index_add, plus the
# Switch Transformer's load-balancing loss. One step is checked against PyTorch 1.13 at
# f64 (tests/stdlib/reference/make_newuser3.py) and against a dense gather form; then
# training fits a piecewise target and the aux loss keeps the experts in use.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

model MoE(d=4, n_experts=4, hidden=8, k=2) {
  gate = nn.Linear(d, n_experts)
  experts = nn.ModuleList([nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, d)) for _ in range(n_experts)])

  forward(x) {
    let logits = self.gate(x)
    let (top_v, top_i) = logits.topk(k, dim=-1)
    let w = nn.functional.softmax(top_v, dim=-1)
    let out = zeros_like(x)
    for (e, expert) in enumerate(self.experts) {
      let (rows, slot) = (top_i == e).nonzero(as_tuple=true)
      if rows.numel() == 0 { continue }
      out = out.index_add(0, rows, expert(x[rows]) * w[rows, slot].unsqueeze(1))
    }
    let n = len(self.experts)
    let probs = nn.functional.softmax(logits, dim=-1)
    let frac = nn.functional.one_hot(top_i[:, 0], n).to(x.dtype).mean(0)
    let aux = n * (frac * probs.mean(0)).sum()
    return (out, aux, top_i)
  }

  # the same layer computed densely: every expert on every row, the chosen gathered
  dense(x) {
    let (top_v, top_i) = self.gate(x).topk(k, dim=-1)
    let w = nn.functional.softmax(top_v, dim=-1)
    let all = stack([expert(x) for expert in self.experts], dim=1)          # [N, E, d]
    let idx = top_i.unsqueeze(-1).expand(-1, -1, x.shape[1])                 # [N, k, d]
    return (all.gather(1, idx) * w.unsqueeze(-1)).sum(1)
  }
}

test "one top-2 MoE step matches PyTorch: routing, outputs, aux loss and gradients" {
  let m = MoE().double()
  m.load_state_dict({k: ref["moe." + k] for k in m.state_dict().keys()})
  let (out, aux, top_i) = m(ref["moe.x"])
  expect(equal(top_i, ref["moe.top_i"]))
  expect_close(out, ref["moe.out"], rtol=1e-12, atol=1e-14)
  expect_close(aux, ref["moe.aux"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.mse_loss(out, ref["moe.y"]) + 0.01 * aux
  expect_close(loss, ref["moe.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    let want = ref.get("moe.grad." + name)
    if want == none { expect(p.grad == none or (p.grad == 0).all().item(), f"{name}: an unused expert") }
    else { expect_close(p.grad, want, rtol=1e-9, atol=1e-12) }
  }
  no_grad { expect_close(m.dense(ref["moe.x"]), out, rtol=1e-12, atol=1e-14) }
}

test "an MoE layer learns a piecewise function, and the balancing loss keeps experts busy" {
  manual_seed(0)
  let m = MoE(d=2, n_experts=4, hidden=16)
  let x = randn(512, 2)
  # a different linear map in each quadrant
  let maps = randn(4, 2, 2)
  let quadrant = (x[:, 0] > 0).long() * 2 + (x[:, 1] > 0).long()
  let y = (maps[quadrant] @ x.unsqueeze(-1)).squeeze(-1)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let first = none
  let last = none
  for step in range(150) {
    let (out, aux, _) = m(x)
    let mse = nn.functional.mse_loss(out, y)
    let loss = mse + 0.01 * aux
    opt.zero_grad()
    loss.backward()
    opt.step()
    if step == 0 { first = mse.item() }
    last = mse.item()
  }
  expect(last < 0.2 * first, f"the MoE fits the piecewise map: {first} -> {last}")
  no_grad {
    let (_, aux, top_i) = m(x)
    let counts = bincount(top_i[:, 0], minlength=4)
    expect((counts > 0).sum().item() >= 3, f"top-1 routing uses the experts: {counts}")
    expect(aux.item() < 1.5, f"balanced routing keeps the aux loss near its minimum 1: {aux}")
  }
}
