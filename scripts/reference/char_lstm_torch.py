"""PyTorch's side of scripts/char_lstm.dsl: the same 2-layer LSTM language model on the
GPL-3 text, the same batches in the same order, the same Adam. Writes the model's
initial weights (PyTorch's default initialization, f32, PyTorch's state_dict keys)
and PyTorch's losses to scripts/char_lstm_init.safetensors:

- reference.losses_f64: the first F64_STEPS steps in f64 (char_lstm.dsl's f64 run must
  give the same losses within 1e-4 relative);
- reference.losses_f32: a full f32 run of F32_STEPS steps (the loss nabla's f32 run
  must also reach).

    /usr/bin/python3 scripts/reference/char_lstm_torch.py   # from the repository root
"""
import copy
import os
import sys

import torch

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "scripts", "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = os.path.join(ROOT, "scripts", "char_lstm_init.safetensors")
TEXT = "/usr/share/common-licenses/GPL-3"
SEQ, BATCH, EMBED, HIDDEN, LR = 64, 32, 24, 48, 1e-2
F64_STEPS, F32_STEPS = 50, 400
STRIDE = 7919  # batch b of step s starts at ((s * BATCH + b) * STRIDE) mod (N - SEQ - 1)


class CharLSTM(torch.nn.Module):
    def __init__(self, vocab):
        super().__init__()
        self.embed = torch.nn.Embedding(vocab, EMBED)
        self.lstm = torch.nn.LSTM(EMBED, HIDDEN, num_layers=2, batch_first=True)
        self.head = torch.nn.Linear(HIDDEN, vocab)

    def forward(self, idx):
        y, _ = self.lstm(self.embed(idx))
        return self.head(y)


def batch(corpus, step):
    span = len(corpus) - SEQ - 1
    starts = torch.tensor([((step * BATCH + b) * STRIDE) % span for b in range(BATCH)])
    idx = starts[:, None] + torch.arange(SEQ)
    return corpus[idx], corpus[idx + 1]


def train(model, corpus, steps, dtype):
    model = copy.deepcopy(model).to(dtype)
    opt = torch.optim.Adam(model.parameters(), lr=LR)
    vocab = model.head.out_features
    losses = []
    for step in range(steps):
        x, y = batch(corpus, step)
        loss = torch.nn.functional.cross_entropy(model(x).reshape(-1, vocab), y.reshape(-1))
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if step % 50 == 0 or step == steps - 1:
            print(f"{dtype} step {step:4d}  loss {loss.item():.6f}", flush=True)
    return losses


def main():
    text = open(TEXT, encoding="ascii").read()
    chars = sorted(set(text))
    corpus = torch.tensor([chars.index(c) for c in text])
    torch.manual_seed(0)
    model = CharLSTM(len(chars))
    losses_f64 = train(model, corpus, F64_STEPS, torch.float64)
    losses_f32 = train(model, corpus, F32_STEPS, torch.float32)
    tail = sum(losses_f32[-20:]) / 20
    print(f"torch f32: mean loss of the last 20 steps {tail:.4f}")
    out = dict(model.state_dict())
    out["reference.losses_f64"] = torch.tensor(losses_f64, dtype=torch.float64)
    out["reference.losses_f32"] = torch.tensor(losses_f32, dtype=torch.float32)
    write_safetensors(OUT, out)
    print(f"wrote {OUT}")


if __name__ == "__main__":
    main()
