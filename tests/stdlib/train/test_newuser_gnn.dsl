# A graph convolution network written with message passing over an edge list:
# neighbours' features gathered by x[src], summed into their targets with index_add,
# divided by the in-degree. Two communities, labels known on a quarter of the nodes.
import nn
import optim

model GraphConv(d_in, d_out) {
  lin_self = nn.Linear(d_in, d_out)
  lin_nbr = nn.Linear(d_in, d_out, bias=false)
  forward(x, edge_index) {
    let (src, dst) = (edge_index[0], edge_index[1])
    let agg = zeros([x.shape[0], x.shape[1]]).index_add(0, dst, x[src])
    let deg = zeros([x.shape[0]]).index_add_(0, dst, ones([dst.shape[0]])).clamp(min=1)
    return self.lin_self(x) + self.lin_nbr(agg / deg.unsqueeze(1))
  }
}

model GCN(d_in, d_hidden, classes) {
  conv1 = GraphConv(d_in, d_hidden)
  conv2 = GraphConv(d_hidden, classes)
  forward(x, edge_index) = self.conv2(relu(self.conv1(x, edge_index)), edge_index)
}

test "message passing by index_add aggregates the mean of the neighbours" {
  let conv = GraphConv(1, 1)
  no_grad {
    conv.lin_self.weight.zero_()
    conv.lin_self.bias.zero_()
    conv.lin_nbr.weight.fill_(1.0)
  }
  # 0 <- 1, 0 <- 2, 1 <- 2; node 2 has no incoming edge
  let out = conv(tensor([[1.0], [2.0], [4.0]]), tensor([[1, 2, 2], [0, 0, 1]]))
  expect(equal(out, tensor([[3.0], [4.0], [0.0]])), f"{out}")
}

test "a GCN classifies the nodes of two communities from a few labels" {
  manual_seed(0)
  let N = 40
  let labels = (arange(N) >= N // 2).long()
  let src = randint(0, N, [400])
  let inside = randint(0, N // 2, [400]) + where(labels[src] == 1, N // 2, 0)
  let across = randint(0, N // 2, [400]) + where(labels[src] == 1, 0, N // 2)
  let dst = where(rand([400]) < 0.9, inside, across)
  let edge_index = stack([cat([src, dst]), cat([dst, src])])
  # a weak, noisy signal in the features: the graph must do the rest
  let x = randn([N, 4])
  x[:, 0] = x[:, 0] + (labels.float() * 2 - 1) * 0.5
  let train_mask = arange(N) % 4 == 0
  let m = GCN(4, 16, 2)
  let opt = optim.Adam(m.parameters(), lr=0.02, weight_decay=5e-4)
  let losses = []
  for step in range(60) {
    let loss = cross_entropy(m(x, edge_index)[train_mask], labels[train_mask])
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.2 * losses[0], f"{losses[0]} -> {losses[-1]}")
  no_grad {
    let pred = m(x, edge_index).argmax(1)
    let acc = (pred[~train_mask] == labels[~train_mask]).float().mean().item()
    expect(acc > 0.8, f"accuracy on the unlabelled nodes: {acc}")
  }
}
