# A siamese embedding net trained with a triplet loss as a PyTorch user writes it:
# L2-normalized embeddings, batch-hard mining (the farthest positive and the nearest
# negative of each anchor from torch.cdist, label masks, argmax and topk with
# largest=false), nn.TripletMarginLoss, the swap variant and
# nn.TripletMarginWithDistanceLoss with a cosine distance. Distances, the mined
# indices, the losses and gradients from a fixed init are checked against PyTorch 1.13
# at f64 (tests/stdlib/reference/make_newuser5.py); then the embedding learns to
# cluster classes so that nearest-neighbour retrieval finds the same class.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser5.safetensors")

fn embedder() = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))

# For each anchor: the farthest same-label sample and the nearest other-label one.
fn mine_hard(e, labels) {
  let d = cdist(e, e)
  let same = labels.unsqueeze(0) == labels.unsqueeze(1)
  let pos_mask = same & ~eye(len(labels), dtype=bool)
  let hardest_pos = (d * pos_mask).argmax(dim=1)
  let (_, neg) = d.masked_fill(same, float("inf")).topk(1, dim=1, largest=false)
  return (d, hardest_pos, neg.squeeze(1))
}

test "batch-hard mining and the triplet losses match PyTorch, gradients too" {
  let emb = embedder().double()
  emb.load_state_dict({k: ref["triplet." + k] for k in emb.state_dict().keys()})
  let e = nn.functional.normalize(emb(ref["triplet.x"]), dim=1)
  let (d, pos, neg) = mine_hard(e, ref["triplet.labels"])
  expect_close(d, ref["triplet.dist"], rtol=1e-12, atol=1e-13)
  expect((pos == ref["triplet.pos"]).all().item(), f"{pos}")
  expect((neg == ref["triplet.neg"]).all().item(), f"{neg}")
  let loss = nn.TripletMarginLoss(margin=0.5, p=2)(e, e[pos], e[neg])
  expect_close(loss, ref["triplet.loss"], rtol=1e-12, atol=1e-14)
  let swapped = nn.functional.triplet_margin_loss(e, e[pos], e[neg], margin=0.5, swap=true, reduction="none")
  expect_close(swapped, ref["triplet.swap"], rtol=1e-12, atol=1e-14)
  let cosine = nn.TripletMarginWithDistanceLoss(distance_function=fn(a, b) = 1 - nn.functional.cosine_similarity(a, b), margin=0.3)
  expect_close(cosine(e, e[pos], e[neg]), ref["triplet.cosine"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in emb.named_parameters() { expect_close(p.grad, ref["triplet.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "cdist's gradient is finite with zero distances on its diagonal" {
  manual_seed(0)
  let e = randn(6, 3, requires_grad=true)
  let d = cdist(e, e)
  expect((d.diagonal() == 0).all().item())
  (d * d.detach().gt(0.5)).sum().backward()
  expect(isfinite(e.grad).all().item(), f"{e.grad}")
  let e2 = randn(5, 3, dtype=f64, requires_grad=true)
  let d2 = cdist(e2, e2)
  d2.sum().backward()
  # PyTorch's subgradient at 0 is 0: each row's gradient comes from the other rows only
  let want = zeros_like(e2)
  no_grad {
    for i in range(5) {
      for j in range(5) {
        if i != j { want[i] = want[i] + 2 * (e2[i] - e2[j]) / (e2[i] - e2[j]).norm() }
      }
    }
  }
  expect_close(e2.grad, want, rtol=1e-12, atol=1e-13)
}

# Four classes, each a noisy cluster in 4-d, drawn in balanced batches.
fn class_batch(centers, per_class) {
  let labels = arange(centers.shape[0]).repeat_interleave(per_class)
  return (centers[labels] + 0.35 * randn(len(labels), centers.shape[1]), labels)
}

test "training with batch-hard triplets clusters the classes for retrieval" {
  manual_seed(0)
  let centers = randn(4, 4)
  let emb = embedder()
  let opt = optim.Adam(emb.parameters(), lr=1e-2)
  let loss_fn = nn.TripletMarginLoss(margin=0.3)
  for step in range(150) {
    let (x, labels) = class_batch(centers, 8)
    let e = nn.functional.normalize(emb(x), dim=1)
    let (_, pos, neg) = mine_hard(e.detach(), labels)
    let loss = loss_fn(e, e[pos], e[neg])
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
  let (x, labels) = class_batch(centers, 25)
  let recall = 0.0
  no_grad {
    let e = nn.functional.normalize(emb(x), dim=1)
    let d = cdist(e, e) + eye(len(labels)) * 1e9
    recall = (labels[d.argmin(dim=1)] == labels).float().mean().item()
  }
  expect(recall > 0.8, f"recall@1 {recall}")
}
