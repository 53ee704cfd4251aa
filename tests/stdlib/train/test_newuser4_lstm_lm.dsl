# An LSTM language model as a PyTorch user writes it (the word_language_model
# example): the token stream batchified to [time, batch], truncated BPTT over chunks
# of bptt steps with the hidden state carried between chunks and detached
# (repackage_hidden), clip_grad_norm_, a LambdaLR / OneCycleLR schedule and
# perplexity. Three TBPTT steps are checked against PyTorch 1.13 at f64
# (tests/stdlib/reference/make_newuser4.py): the losses, the clipped norms and the
# parameters after; then the model learns a periodic stream to low perplexity.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

model LSTMLM(vocab=12, d=8, hidden=16, layers=2) {
  embedding = nn.Embedding(vocab, d)
  lstm = nn.LSTM(d, hidden, num_layers=layers)
  decoder = nn.Linear(hidden, vocab)
  forward(x, hidden) {
    let (out, h) = self.lstm(self.embedding(x), hidden)
    return (self.decoder(out), h)
  }
  init_hidden(batch, dtype=f32) = (zeros(2, batch, 16, dtype=dtype), zeros(2, batch, 16, dtype=dtype))
}

fn repackage_hidden(h) = tuple([v.detach() for v in h]) if isinstance(h, "tuple") else h.detach()

fn get_batch(source, i, bptt) {
  let seq_len = min(bptt, source.shape[0] - 1 - i)
  return (source[i:i + seq_len], source[i + 1:i + 1 + seq_len])
}

# one epoch of truncated BPTT; returns (losses, gradient norms before clipping)
fn train_epoch(m, source, opt, sched, bptt, clip, hidden) {
  let losses = []
  let norms = []
  for i in range(0, source.shape[0] - 1, bptt) {
    let (data, target) = get_batch(source, i, bptt)
    hidden = repackage_hidden(hidden)
    opt.zero_grad()
    let (out, h) = m(data, hidden)
    hidden = h
    let loss = nn.functional.cross_entropy(out.view(-1, out.shape[-1]), target.reshape(-1))
    loss.backward()
    norms.append(nn.utils.clip_grad_norm_(m.parameters(), clip))
    opt.step()
    sched.step()
    losses.append(loss.detach())
  }
  return (stack(losses), stack(norms), hidden)
}

test "three TBPTT steps with clipping and LambdaLR match PyTorch" {
  let m = LSTMLM().double()
  m.load_state_dict({k: ref["lstm." + k] for k in m.state_dict().keys()})
  let opt = optim.SGD(m.parameters(), lr=0.5)
  let sched = optim.lr_scheduler.LambdaLR(opt, fn(epoch) = 0.5 ** epoch)
  let (losses, norms, hidden) = train_epoch(m, ref["lstm.stream"], opt, sched, 8, 0.25, m.init_hidden(2, f64))
  expect(losses.shape == ref["lstm.losses"].shape)
  expect_close(losses, ref["lstm.losses"], rtol=1e-11, atol=1e-13)
  expect_close(norms, ref["lstm.norms"], rtol=1e-10, atol=1e-12)
  for (k, v) in m.state_dict().items() { expect_close(v, ref["lstm.after." + k], rtol=1e-10, atol=1e-12) }
  expect(not hidden[0].requires_grad or hidden[0].grad_fn != none, "the last hidden state is this chunk's")
  expect_close(opt.param_groups[0]["lr"], 0.5 * 0.5 ** 3, rtol=1e-15)
}

test "carrying a detached hidden state: backward stops at the chunk boundary" {
  manual_seed(0)
  let m = LSTMLM()
  let x = randint(0, 12, (10, 2))
  let (out1, h1) = m(x[:5], m.init_hidden(2))
  let carried = repackage_hidden(h1)
  expect(not carried[0].requires_grad and carried[0].grad_fn == none)
  let (out2, h2) = m(x[5:], carried)
  out2.sum().backward()
  expect(m.lstm.weight_ih_l0.grad != none)
  # the same chunk without detaching reaches the first chunk's graph as well (and PyTorch's error
  # "Trying to backward through the graph a second time" comes from a second backward through it)
  let (out3, _) = m(x[5:], h1)
  out3.sum().backward()
  expect_error(fn() = m(x[5:], h1)[0].sum().backward(), "second time")
}

test "clip_grad_norm_ scales LSTM's two bias gradients once each (they were one aliased tensor)" {
  manual_seed(0)
  let lstm = nn.LSTM(3, 4)
  let (out, _) = lstm(randn(5, 2, 3))
  out.sum().backward()
  expect(equal(lstm.bias_ih_l0.grad, lstm.bias_hh_l0.grad), "equal values")
  let before = lstm.bias_hh_l0.grad.clone()
  lstm.bias_ih_l0.grad.mul_(0.5)
  expect(equal(lstm.bias_hh_l0.grad, before), "but their own tensors")
  # a gradient handed on unchanged (x + 0) is not the tensor given to backward
  let x = randn(3, requires_grad=true)
  let g = ones(3)
  (x + 0).backward(g)
  x.grad.mul_(5)
  expect(equal(g, ones(3)), f"{g}")
}

test "an LSTM LM with TBPTT and OneCycleLR learns a periodic stream to low perplexity" {
  manual_seed(0)
  let period = tensor([1, 5, 2, 7, 3, 9, 4])
  let stream = period.repeat(60)                        # 420 tokens
  let nbatch = stream.shape[0] // 4
  let source = stream[:nbatch * 4].view(4, -1).t().contiguous()     # batchify: [time, batch]
  let m = LSTMLM()
  let epochs = 10
  let bptt = 12
  let steps_per_epoch = (source.shape[0] - 1 + bptt - 1) // bptt
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let sched = optim.lr_scheduler.OneCycleLR(opt, max_lr=5e-2, epochs=epochs, steps_per_epoch=steps_per_epoch)
  let first = none
  let last = none
  for epoch in range(epochs) {
    let (losses, _, _) = train_epoch(m, source, opt, sched, bptt, 0.5, m.init_hidden(4))
    if epoch == 0 { first = losses.mean().item() }
    last = losses.mean().item()
  }
  let ppl = math.exp(last)
  expect(math.exp(first) > 5 and ppl < 1.5, f"perplexity {math.exp(first)} -> {ppl}")
}
