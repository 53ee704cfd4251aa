# A siamese embedding network trained with a triplet margin loss on anchor, positive
# and negative examples of 4 classes; cosine_similarity then tells same-class pairs
# from different-class ones.
import nn
import optim

model Embedder(d_in, d_out) {
  net = nn.Sequential(nn.Linear(d_in, 32), nn.ReLU(), nn.Linear(32, d_out))
  forward(x) = normalize(self.net(x), dim=1)
}

fn sample(centers, labels) = centers[labels] + 0.5 * randn([labels.shape[0], centers.shape[1]])

test "a triplet-loss siamese network separates classes by cosine similarity" {
  manual_seed(0)
  let centers = randn([4, 16])
  let m = Embedder(16, 8)
  let loss_fn = nn.TripletMarginLoss(margin=0.5)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let losses = []
  for step in range(80) {
    let a_lab = randint(0, 4, [64])
    let n_lab = (a_lab + randint(1, 4, [64])) % 4            # another class
    let loss = loss_fn(m(sample(centers, a_lab)), m(sample(centers, a_lab)), m(sample(centers, n_lab)))
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.2 * losses[0], f"{losses[0]} -> {losses[-1]}")
  no_grad {
    let lab = randint(0, 4, [200])
    let e1 = m(sample(centers, lab))
    let e2 = m(sample(centers, lab))
    let e3 = m(sample(centers, (lab + 1) % 4))
    let pos = cosine_similarity(e1, e2).mean().item()
    let neg = cosine_similarity(e1, e3).mean().item()
    expect(pos > neg + 0.5, f"same-class similarity {pos}, other-class {neg}")
  }
}

test "TripletMarginLoss is the hinge on the distance gap" {
  let a = tensor([[0.0, 0.0]])
  let p = tensor([[3.0, 4.0]])
  let n = tensor([[6.0, 8.0]])
  # torch.nn.TripletMarginLoss(margin=1.0)(a, p, n) = max(0, |a-p| - |a-n| + 1) with eps 1e-6
  expect(abs(nn.TripletMarginLoss(margin=1.0)(a, p, n).item() - 0.0) < 1e-6)
  expect(abs(nn.TripletMarginLoss(margin=1.0)(a, n, p).item() - 6.0) < 1e-4)
}
