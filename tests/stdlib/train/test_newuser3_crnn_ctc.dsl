# CRNN-style OCR as a PyTorch user writes it: a conv feature map whose columns become
# time steps (permute + reshape), a bidirectional LSTM, log_softmax over the classes,
# permuted to [T, B, C] for ctc_loss with padded targets and input/target lengths.
# One step is checked against PyTorch 1.13 at f64 (tests/stdlib/reference/
# make_newuser3.py); then it learns to read digit strings drawn as column patterns,
# decoded greedily (collapse repeats, drop blanks).
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")

model CRNN(n_classes=5, hidden=8) {
  conv = nn.Conv2d(1, 4, 3, padding=1)
  pool = nn.MaxPool2d((2, 1))
  rnn = nn.LSTM(4 * 4, hidden, batch_first=true, bidirectional=true)
  fc = nn.Linear(2 * hidden, n_classes)
  forward(img) {                                    # [B, 1, 8, W] -> [W, B, classes]
    let f = self.pool(relu(self.conv(img)))         # [B, 4, 4, W]
    let (b, c, h, w) = f.shape
    let seq = f.permute(0, 3, 1, 2).reshape(b, w, c * h)
    let (out, _) = self.rnn(seq)
    return nn.functional.log_softmax(self.fc(out), dim=2).permute(1, 0, 2)
  }
}

test "ctc_loss over a CRNN's outputs matches PyTorch's, per sample and its gradients" {
  let m = CRNN().double()
  m.load_state_dict({k: ref["ctc." + k] for k in m.state_dict().keys()})
  let log_probs = m(ref["ctc.img"])
  expect_close(log_probs, ref["ctc.log_probs"], rtol=1e-12, atol=1e-14)
  let (targets, il, tl) = (ref["ctc.targets"], ref["ctc.input_lengths"], ref["ctc.target_lengths"])
  let per = nn.functional.ctc_loss(log_probs, targets, il, tl, reduction="none")
  expect_close(per, ref["ctc.per_sample"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.ctc_loss(log_probs, targets, il, tl, blank=0, reduction="mean", zero_infinity=true)
  expect_close(loss, ref["ctc.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["ctc.grad." + name], rtol=1e-8, atol=1e-12)
  }
  # targets concatenated into one 1-D tensor (PyTorch's other form) give the same losses
  let flat = cat([targets[0, :3], targets[1, :2]])
  expect_close(nn.functional.ctc_loss(log_probs, flat, (6, 5), (3, 2), reduction="none"), ref["ctc.per_sample"],
               rtol=1e-12, atol=1e-14)
  # the module form and a list of lengths give the same loss
  let crit = nn.CTCLoss(blank=0, zero_infinity=true)
  expect_close(crit(log_probs, targets, [6, 5], [3, 2]), ref["ctc.loss"], rtol=1e-12, atol=1e-14)
}

# greedy CTC decoding: the argmax path, repeats collapsed, blanks (0) dropped
fn greedy_decode(log_probs, lengths) {
  let best = log_probs.argmax(2).t()                # [B, T]
  let out = []
  for b in range(best.shape[0]) {
    let seq = []
    let prev = 0
    for t in range(lengths[b]) {
      let c = best[b, t].item()
      if c != 0 and c != prev { seq.append(c) }
      prev = c
    }
    out.append(seq)
  }
  return out
}

# images of 2-3 "digits" 1..4: each digit is a 3-column stripe pattern of its own, at a
# random horizontal offset, on an 8-row canvas 12 columns wide, with noise
fn make_batch(glyphs, n) {
  let imgs = 0.1 * randn(n, 1, 8, 12)
  let targets = zeros(n, 3, dtype=i64)
  let lengths = randint(2, 4, [n])
  for b in range(n) {
    let col = randint(0, 2, []).item()
    for j in range(lengths[b].item()) {
      let d = randint(1, 5, []).item()
      targets[b, j] = d
      imgs[b, 0, :, col:col + 3] += glyphs[d]
      col = col + 4
    }
  }
  return (imgs, targets, lengths)
}

test "the CRNN learns to read digit strings with CTC" {
  manual_seed(0)
  let glyphs = (rand(5, 8, 3) > 0.5).float()
  let m = CRNN(n_classes=5, hidden=16)
  let opt = optim.Adam(m.parameters(), lr=2e-2)
  let ctc = nn.CTCLoss(blank=0, zero_infinity=true)
  let losses = []
  for step in range(150) {
    let (imgs, targets, tl) = make_batch(glyphs, 16)
    let log_probs = m(imgs)
    let il = full([16], 12, dtype=i64)
    let loss = ctc(log_probs, targets, il, tl)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.3 * losses[0], f"the CTC loss should fall: {losses[0]} -> {losses[-1]}")
  no_grad {
    let (imgs, targets, tl) = make_batch(glyphs, 32)
    let decoded = greedy_decode(m(imgs), [12] * 32)
    let right = 0
    for b in range(32) {
      if decoded[b] == targets[b, :tl[b]].tolist() { right = right + 1 }
    }
    expect(right >= 24, f"strings read exactly: {right} of 32")
  }
}
