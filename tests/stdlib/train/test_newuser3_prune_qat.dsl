# Compressing a small CNN as a PyTorch user does: magnitude pruning with
# torch.nn.utils.prune's functions (l1_unstructured, global_unstructured with
# pruning_method=prune.L1Unstructured, fine-tuning through the masks, remove), and
# quantization-aware training of its dense layers (quant.prepare_qat, fine-tune,
# quant.convert to int8). Each keeps the accuracy within a few points.
import nn
import optim
import prune
import quant

model CNN() {
  conv1 = nn.Conv2d(1, 8, 3, padding=1)
  conv2 = nn.Conv2d(8, 16, 3, padding=1)
  pool = nn.MaxPool2d(2)
  fc1 = nn.Linear(16 * 2 * 2, 32)
  fc2 = nn.Linear(32, 4)
  forward(x) {
    let h = self.pool(relu(self.conv1(x)))           # [B, 8, 4, 4]
    h = self.pool(relu(self.conv2(h)))               # [B, 16, 2, 2]
    return self.fc2(relu(self.fc1(h.flatten(1))))
  }
}

# 8x8 images of four classes: a bright bar in one of four places, with noise
fn make_data(n) {
  let labels = randint(0, 4, [n])
  let x = 0.3 * randn(n, 1, 8, 8)
  for k in range(4) {
    let rows = (labels == k).nonzero(as_tuple=true)[0]
    if k < 2 { x[rows, 0, 4 * k:4 * k + 2, :] += 1.5 }          # horizontal bars
    else { x[rows, 0, :, 4 * (k - 2):4 * (k - 2) + 2] += 1.5 }  # vertical bars
  }
  return (x, labels)
}

fn train(m, x, y, steps, lr=1e-2) {
  let opt = optim.Adam(m.parameters(), lr=lr)
  for step in range(steps) {
    let loss = nn.functional.cross_entropy(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
  }
}

fn accuracy(m, x, y) {
  let acc = 0.0
  no_grad { acc = (m(x).argmax(1) == y).float().mean().item() }
  return acc
}

fn trained_cnn() {
  manual_seed(0)
  let (x, y) = make_data(256)
  let m = CNN()
  train(m, x, y, 60)
  return (m, x, y)
}

test "l1_unstructured keeps the largest weights, masks hold through fine-tuning, remove makes it permanent" {
  let (m, x, y) = trained_cnn()
  let (tx, ty) = make_data(256)
  let base = accuracy(m, tx, ty)
  expect(base > 0.9, f"the dense CNN learns the bars: {base}")
  let w = m.fc1.weight.detach().clone()
  prune.l1_unstructured(m.fc1, name="weight", amount=0.5)
  expect(m.fc1.weight_mask.sum().item() == w.numel() / 2)
  let kept = w.abs()[m.fc1.weight_mask.bool()]
  let dropped = w.abs()[~m.fc1.weight_mask.bool()]
  expect(kept.min().item() >= dropped.max().item(), "the mask keeps the largest magnitudes")
  expect("weight_orig" in dict(m.fc1.named_parameters()) and "weight_mask" in dict(m.fc1.named_buffers()))
  # global pruning of the convolutions, PyTorch's spelling of the method
  prune.global_unstructured([(m.conv1, "weight"), (m.conv2, "weight")], pruning_method=prune.L1Unstructured,
                            amount=0.6)
  let n_conv = m.conv1.weight.numel() + m.conv2.weight.numel()
  let zeros_conv = (m.conv1.weight == 0).sum().item() + (m.conv2.weight == 0).sum().item()
  expect(zeros_conv == round(0.6 * n_conv), f"{zeros_conv} of {n_conv} conv weights pruned")
  train(m, x, y, 30, lr=3e-3)
  expect((m.fc1.weight[~m.fc1.weight_mask.bool()] == 0).all().item(), "fine-tuning keeps pruned weights at zero")
  for layer in [m.conv1, m.conv2, m.fc1] { prune.remove(layer, "weight") }
  expect(not prune.is_pruned(m))
  expect(len(list(m.parameters())) == 8 and dict(m.named_parameters())["fc1.weight"].requires_grad)
  let after = accuracy(m, tx, ty)
  expect(after > base - 0.05, f"pruned and fine-tuned accuracy stays: {base} -> {after}")
  expect((m.fc1.weight == 0).float().mean().item() == 0.5)
}

test "QAT fine-tuning then convert gives an int8 model with the accuracy kept" {
  let (m, x, y) = trained_cnn()
  let (tx, ty) = make_data(256)
  let base = accuracy(m, tx, ty)
  let qat = quant.prepare_qat(m)
  expect(type(qat.fc1) == "QATLinear", f"{type(qat.fc1)}")
  train(qat, x, y, 20, lr=1e-3)
  qat.eval()
  let q = quant.convert(qat)
  let acc = accuracy(q, tx, ty)
  expect(acc > base - 0.05, f"int8 accuracy: {base} -> {acc}")
  expect(quant.model_size_bytes(q) < quant.model_size_bytes(m), "the int8 dense layers are smaller")
  # the converted model computes what the QAT model trained, up to int8 rounding of the input
  no_grad { expect((q(tx) - qat(tx)).abs().max().item() < 0.1) }
}
