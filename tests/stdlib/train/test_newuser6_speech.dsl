# A speech model as a PyTorch user writes one without torch.stft: frames of a waveform
# by unfold, a Hann-windowed DFT as two fixed matmuls (cos and sin bases kept as
# buffers), a triangular mel filterbank as a third, log; a Conv1d + GELU frontend over
# the log-mel frames; a bidirectional GRU (batch_first) over packed sequences of
# different lengths (pack_padded_sequence with enforce_sorted=false, pad_packed_sequence
# with total_length), log_softmax and CTC loss with per-utterance input_lengths. The
# features, log-probabilities, loss and gradients from a fixed init are checked against
# PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser6.py); then the model learns
# to transcribe synthetic "words" of tones, and greedy CTC decoding reads them back.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser6.safetensors")

# triangular filters evenly spaced over the bins, a fixed [n_freq, n_mels] matrix
fn mel_filterbank(n_freq, n_mels) {
  let centers = linspace(0, n_freq - 1, n_mels + 2, dtype=f64)
  let f = arange(n_freq, dtype=f64).unsqueeze(1)
  let (lo, mid, hi) = (centers[:-2], centers[1:-1], centers[2:])
  let up = (f - lo) / (mid - lo)
  let down = (hi - f) / (hi - mid)
  return clamp(minimum(up, down), min=0.0)
}

fn dft_basis(n_fft) {
  let n = arange(n_fft, dtype=f64).unsqueeze(1)
  let k = arange(n_fft // 2 + 1, dtype=f64).unsqueeze(0)
  let window = hann_window(n_fft, periodic=true, dtype=f64).unsqueeze(1)
  return (window * cos(2 * math.pi * n * k / n_fft), -window * sin(2 * math.pi * n * k / n_fft))
}

model SpeechModel(n_fft=16, hop=8, n_mels=6, hidden=8, vocab=5) {
  n_fft = n_fft
  hop = hop
  frontend = nn.Sequential(nn.Conv1d(n_mels, 12, 3, padding=1), nn.GELU())
  gru = nn.GRU(12, hidden, batch_first=true, bidirectional=true)
  out = nn.Linear(2 * hidden, vocab)
  let (c, s) = dft_basis(n_fft)
  self.register_buffer("cos", c.float())
  self.register_buffer("sin", s.float())
  self.register_buffer("mel", mel_filterbank(n_fft // 2 + 1, n_mels).float())
  features(wave) {
    let frames = wave.unfold(1, self.n_fft, self.hop)
    let power = (frames @ self.cos) ** 2 + (frames @ self.sin) ** 2
    return log(power @ self.mel + 1e-6)
  }
  forward(wave, lengths) {
    let x = self.frontend(self.features(wave).transpose(1, 2)).transpose(1, 2)
    let packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=true, enforce_sorted=false)
    let (out, _) = self.gru(packed)
    (out, _) = nn.utils.rnn.pad_packed_sequence(out, batch_first=true, total_length=x.shape[1])
    return self.out(out).log_softmax(-1)
  }
}

test "log-mel features, BiGRU over packed lengths, CTC loss and gradients match PyTorch" {
  let m = SpeechModel().double()
  m.load_state_dict({k: ref["speech." + k] for k in m.state_dict().keys()})
  let (wave, lengths) = (ref["speech.wave"], ref["speech.lengths"])
  expect_close(m.features(wave), ref["speech.features"], rtol=1e-11, atol=1e-12)
  let logp = m(wave, lengths)
  expect_close(logp, ref["speech.logp"], rtol=1e-11, atol=1e-12)
  let loss = nn.functional.ctc_loss(logp.transpose(0, 1), ref["speech.targets"], lengths, ref["speech.target_lengths"],
                                    blank=0, zero_infinity=true)
  expect_close(loss, ref["speech.loss"], rtol=1e-11, atol=1e-13)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["speech.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "the backward direction of a packed BiGRU starts at each sequence's own end" {
  manual_seed(0)
  let gru = nn.GRU(3, 4, batch_first=true, bidirectional=true)
  let x = randn(2, 6, 3)
  let lengths = tensor([6, 4])
  let packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=true, enforce_sorted=false)
  let (out, h) = gru(packed)
  out = nn.utils.rnn.pad_packed_sequence(out, batch_first=true)[0]
  # the short sequence alone gives the same outputs; the padding never reaches it
  let (alone, h_alone) = gru(x[1:, :4])
  expect_close(out[1, :4], alone[0], rtol=1e-5, atol=1e-6)
  expect((out[1, 4:] == 0).all().item())
  expect_close(h[:, 1], h_alone[:, 0], rtol=1e-5, atol=1e-6)
}

# a "word" is a sequence of tones: label k (1..4) is a sine of frequency bin 2k for 3 frames
fn utterance(labels, hop=8) {
  let pieces = []
  for k in labels {
    let n = arange(3 * hop + 8).float()
    pieces.append(0.8 * sin(2 * math.pi * (2 * k) * n / 16))
    pieces.append(zeros(8))
  }
  return cat(pieces)
}

fn greedy_ctc(logp, length) {
  let best = logp[:length].argmax(-1).tolist()
  let out = []
  let prev = 0
  for b in best {
    if b != 0 and b != prev { out.append(b) }
    prev = b
  }
  return out
}

fn batch(n, max_samples) {
  let (waves, lengths, targets, target_lengths, words) = ([], [], [], [], [])
  for i in range(n) {
    let word = randint(1, 5, [randint(1, 4, []).item()]).tolist()
    let w = utterance(word)
    w = w + 0.05 * randn(w.shape[0])
    waves.append(nn.functional.pad(w, (0, max_samples - w.shape[0])))
    lengths.append((w.shape[0] - 16) // 8 + 1)
    targets = targets + word
    target_lengths.append(len(word))
    words.append(word)
  }
  return (stack(waves), tensor(lengths), tensor(targets), tensor(target_lengths), words)
}

test "the speech model learns to transcribe tone words, read back by greedy CTC decoding" {
  manual_seed(0)
  let m = SpeechModel(hidden=16)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let max_samples = 3 * (3 * 8 + 16)
  for step in range(120) {
    let (wave, lengths, targets, target_lengths, _) = batch(16, max_samples)
    let logp = m(wave, lengths)
    let loss = nn.functional.ctc_loss(logp.transpose(0, 1), targets, lengths, target_lengths, zero_infinity=true)
    opt.zero_grad()
    loss.backward()
    nn.utils.clip_grad_norm_(m.parameters(), 5.0)
    opt.step()
  }
  let (wave, lengths, _, _, words) = batch(20, max_samples)
  let logp = zeros(1)
  no_grad { logp = m(wave, lengths) }
  let right = sum([1 if greedy_ctc(logp[i], lengths[i].item()) == words[i] else 0 for i in range(20)])
  expect(right >= 17, f"{right} of 20 words read back")
}
