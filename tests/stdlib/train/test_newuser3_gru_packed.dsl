# A GRU sentiment classifier as a PyTorch user writes it: padded token batches with a
# lengths tensor in no particular order, pack_padded_sequence(enforce_sorted=false)
# into a bidirectional GRU, pad_packed_sequence back, and the final hidden states of
# both directions into a Linear. One step is checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser3.py); then it learns a task where the padding
# would mislead a model that read it.
import nn
import optim

let ref = load("tests/stdlib/reference/newuser3.safetensors")
let pack_padded_sequence = nn.utils.rnn.pack_padded_sequence
let pad_packed_sequence = nn.utils.rnn.pad_packed_sequence

model Sentiment(vocab=20, d=6, hidden=8) {
  embedding = nn.Embedding(vocab, d, padding_idx=0)
  gru = nn.GRU(d, hidden, batch_first=true, bidirectional=true)
  fc = nn.Linear(2 * hidden, 2)
  forward(tokens, lengths) {
    let packed = pack_padded_sequence(self.embedding(tokens), lengths, batch_first=true, enforce_sorted=false)
    let (out, h) = self.gru(packed)
    let (padded, lens) = pad_packed_sequence(out, batch_first=true)
    return (self.fc(cat([h[-2], h[-1]], dim=1)), padded, lens)
  }
}

test "one step over an unsorted packed batch matches PyTorch's outputs and gradients" {
  let m = Sentiment().double()
  m.load_state_dict({k: ref["gru." + k] for k in m.state_dict().keys()})
  let (logits, padded, lens) = m(ref["gru.tokens"], ref["gru.lengths"])
  expect(equal(lens, ref["gru.lengths"]), f"lengths come back in the batch's order: {lens}")
  expect_close(padded, ref["gru.padded"], rtol=1e-12, atol=1e-14)
  expect_close(logits, ref["gru.logits"], rtol=1e-12, atol=1e-14)
  let loss = nn.functional.cross_entropy(logits, ref["gru.labels"])
  expect_close(loss, ref["gru.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["gru.grad." + name], rtol=1e-9, atol=1e-12)
  }
  # the padding row of the embedding gets no gradient
  expect((m.embedding.weight.grad[0] == 0).all().item())
}

# sequences of random tokens 1..9; the label: whether token 7 occurs. Padding (token 0)
# at the end of short sequences would push a plain GRU's last state around; packing skips it.
fn batch(n, max_len=12) {
  let lengths = randint(2, max_len + 1, [n])
  let tokens = randint(1, 10, [n, max_len])
  tokens = tokens.masked_fill(arange(max_len).unsqueeze(0) >= lengths.unsqueeze(1), 0)
  let labels = (tokens == 7).any(1).long()
  return (tokens, lengths, labels)
}

test "the packed GRU classifier learns which sequences hold a token" {
  manual_seed(0)
  let m = Sentiment(vocab=10, d=8, hidden=16)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let (test_tokens, test_lengths, test_labels) = batch(256)
  for step in range(60) {
    let (tokens, lengths, labels) = batch(64)
    let (logits, _, _) = m(tokens, lengths)
    let loss = nn.functional.cross_entropy(logits, labels)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0)
    opt.step()
  }
  no_grad {
    let (logits, _, _) = m(test_tokens, test_lengths)
    let acc = (logits.argmax(1) == test_labels).float().mean().item()
    expect(acc > 0.9, f"held-out accuracy: {acc}")
    # a sequence's prediction does not depend on what lies past its length
    let noisy = test_tokens.masked_fill(arange(12).unsqueeze(0) >= test_lengths.unsqueeze(1), 7)
    let (logits2, _, _) = m(noisy, test_lengths)
    expect_close(logits2, logits, rtol=1e-5, atol=1e-6)
  }
}
