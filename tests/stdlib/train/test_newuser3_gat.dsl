# A graph attention network (GAT) as a PyTorch user writes it without a graph library:
# per-edge scores from source and destination terms, leaky_relu, a softmax over each
# node's incoming edges done with scatter_reduce("amax") for the max and index_add for
# the sum, and the messages aggregated with index_add. One step is checked against
# PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser3.py) and the attention
# against a dense masked softmax; then node classification on two communities.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

model GATLayer(d_in, d_out, heads) {
  lin = nn.Linear(d_in, heads * d_out, bias=false)
  att_src = nn.Parameter(randn(1, heads, d_out) * 0.5)
  att_dst = nn.Parameter(randn(1, heads, d_out) * 0.5)
  bias = nn.Parameter(randn(heads * d_out) * 0.1)
  forward(x, edge_index) {
    let n = x.shape[0]
    let h = self.lin(x).view(n, heads, d_out)
    let (src, dst) = edge_index
    let a_src = (h * self.att_src).sum(-1)
    let a_dst = (h * self.att_dst).sum(-1)
    let e = nn.functional.leaky_relu(a_src[src] + a_dst[dst], 0.2)          # [E, heads]
    let e_max = full([n, heads], float("-inf"), dtype=x.dtype).scatter_reduce(
      0, dst.unsqueeze(1).expand(-1, heads), e, reduce="amax", include_self=true)
    let ex = (e - e_max[dst]).exp()
    let denom = zeros(n, heads, dtype=x.dtype).index_add(0, dst, ex)
    let alpha = ex / denom[dst]
    let out = zeros(n, heads, d_out, dtype=x.dtype).index_add(0, dst, h[src] * alpha.unsqueeze(-1))
    return (out.reshape(n, -1) + self.bias, alpha)
  }
}

model GAT() {
  gat1 = GATLayer(3, 4, 2)
  gat2 = GATLayer(8, 2, 1)
  forward(x, edge_index) {
    let (h, alpha) = self.gat1(x, edge_index)
    let (out, _) = self.gat2(nn.functional.elu(h), edge_index)
    return (out, alpha)
  }
}

test "one GAT step matches PyTorch: attention, outputs and gradients" {
  let m = GAT().double()
  m.load_state_dict({k: ref["gat." + k] for k in m.state_dict().keys()})
  let (x, edge_index) = (ref["gat.x"], ref["gat.edge_index"])
  let (out, alpha) = m(x, edge_index)
  expect_close(alpha, ref["gat.alpha"], rtol=1e-12, atol=1e-14)
  expect_close(out, ref["gat.out"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.cross_entropy(out, ref["gat.y"])
  expect_close(loss, ref["gat.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["gat.grad." + name], rtol=1e-9, atol=1e-12)
  }
  # each node's incoming attention sums to one, as a dense masked softmax gives
  let n = x.shape[0]
  let (src, dst) = edge_index
  expect_close(zeros(n, 2, dtype=f64).index_add(0, dst, alpha), ones(n, 2, dtype=f64), rtol=1e-12, atol=1e-12)
  no_grad {
    let layer = m.gat1
    let h = layer.lin(x).view(n, 2, 4)
    let scores = (h * layer.att_dst).sum(-1).unsqueeze(1) + (h * layer.att_src).sum(-1).unsqueeze(0)  # [dst, src, heads]
    let adj = zeros(n, n, dtype=bool).index_put((dst, src), tensor(true))
    let dense = nn.functional.leaky_relu(scores, 0.2).masked_fill(~adj.unsqueeze(-1), float("-inf")).softmax(1)
    expect_close(dense[dst, src], alpha, rtol=1e-12, atol=1e-14)
  }
}

test "a GAT classifies the nodes of two communities from a few labels" {
  manual_seed(0)
  # two communities of 20 nodes: dense inside, sparse across; features are weak hints
  let n = 40
  let community = cat([zeros(20, dtype=i64), ones(20, dtype=i64)])
  let same = community.unsqueeze(0) == community.unsqueeze(1)
  let p = where(same, 0.3, 0.02)
  let adj = (rand(n, n) < p).triu(1)
  adj = adj | adj.t() | eye(n, dtype=bool)
  let edge_index = adj.nonzero().t()                      # [2, E]: row = source, col = dest
  let x = randn(n, 3) + 0.3 * community.unsqueeze(1).float()
  model Net() {
    g1 = GATLayer(3, 8, 2)
    g2 = GATLayer(16, 2, 1)
    forward(x, ei) {
      let (h, _) = self.g1(x, ei)
      let (out, _) = self.g2(nn.functional.elu(h), ei)
      return out
    }
  }
  let m = Net()
  let train_mask = zeros(n, dtype=bool)
  train_mask[0:4] = true
  train_mask[20:24] = true
  let opt = optim.Adam(m.parameters(), lr=1e-2, weight_decay=5e-4)
  for step in range(100) {
    let loss = nn.functional.cross_entropy(m(x, edge_index)[train_mask], community[train_mask])
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  no_grad {
    let pred = m(x, edge_index).argmax(1)
    let acc = (pred[~train_mask] == community[~train_mask]).float().mean().item()
    expect(acc > 0.85, f"accuracy on the unlabelled nodes: {acc}")
  }
}
