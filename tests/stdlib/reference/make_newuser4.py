"""Writes newuser4.safetensors: PyTorch 1.13's values at f64 for the fourth round of
new-user training programs (tests/stdlib/train/test_newuser4_*.dsl): for each family a
small model's state_dict under PyTorch's keys prefixed by the case name, its inputs, and
the loss and gradients of one forward/backward step from that init (and, where the
family is about an optimizer or a schedule, the parameters after it).

    /usr/bin/python3 tests/stdlib/reference/make_newuser4.py

Models mirror the tests' models field for field, so their state_dict keys match.
"""
import math
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from reference_store import put, put_grads  # noqa: E402
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("newuser4.safetensors")
torch.set_default_dtype(torch.float64)


# ---- DDPM: the simple loss and ancestral sampling (test_newuser4_ddpm.dsl) ------------------
def time_embedding(t, dim):
    half = dim // 2
    freqs = torch.exp(-math.log(10000.0) * torch.arange(half) / half)
    args = t[:, None].to(freqs.dtype) * freqs[None]
    return torch.cat([args.sin(), args.cos()], dim=-1)


class Denoiser(nn.Module):
    def __init__(self, d=2, t_dim=16, hidden=32):
        super().__init__()
        self.t_dim = t_dim
        self.time_mlp = nn.Sequential(nn.Linear(t_dim, hidden), nn.SiLU(), nn.Linear(hidden, hidden))
        self.inp = nn.Linear(d, hidden)
        self.out = nn.Sequential(nn.SiLU(), nn.Linear(hidden, hidden), nn.SiLU(), nn.Linear(hidden, d))

    def forward(self, x, t):
        return self.out(self.inp(x) + self.time_mlp(time_embedding(t, self.t_dim)))


def ddpm_case(t):
    T = 20
    betas = torch.linspace(1e-4, 0.02, T)
    alphas = 1 - betas
    alpha_bar = torch.cumprod(alphas, dim=0)
    m = Denoiser()
    x0 = torch.randn(8, 2)
    steps = torch.randint(0, T, (8,))
    noise = torch.randn(8, 2)
    ab = alpha_bar[steps].unsqueeze(-1)
    xt = ab.sqrt() * x0 + (1 - ab).sqrt() * noise
    loss = F.mse_loss(m(xt, steps), noise)
    loss.backward()
    put(t, "ddpm", m, x0=x0, steps=steps, noise=noise, xt=xt, loss=loss, alpha_bar=alpha_bar)
    put_grads(t, "ddpm", m)
    # ancestral sampling from x_T with the noise of each step given (none at the last)
    x = torch.randn(5, 2)
    zs = torch.randn(T, 5, 2)
    put(t, "ddpm", x_T=x, zs=zs)
    with torch.no_grad():
        for i in reversed(range(T)):
            eps = m(x, torch.full((5,), i, dtype=torch.long))
            mean = (x - betas[i] / (1 - alpha_bar[i]).sqrt() * eps) / alphas[i].sqrt()
            x = mean + betas[i].sqrt() * zs[i] if i > 0 else mean
    put(t, "ddpm", sample=x)


# ---- CLIP: two encoders, a learnable temperature, symmetric cross entropy ------------------
class CLIP(nn.Module):
    def __init__(self, d_img=6, vocab=20, d=8, d_emb=4):
        super().__init__()
        self.image_encoder = nn.Sequential(nn.Linear(d_img, d), nn.ReLU(), nn.Linear(d, d_emb))
        self.token_embedding = nn.Embedding(vocab, d)
        self.text_proj = nn.Linear(d, d_emb)
        self.logit_scale = nn.Parameter(torch.ones([]) * math.log(1 / 0.07))

    def forward(self, images, tokens):
        img = F.normalize(self.image_encoder(images), dim=-1)
        txt = F.normalize(self.text_proj(self.token_embedding(tokens).mean(1)), dim=-1)
        scale = self.logit_scale.exp().clamp(max=100)
        logits = scale * img @ txt.t()
        return logits


def clip_case(t):
    m = CLIP()
    images = torch.randn(6, 6)
    tokens = torch.randint(0, 20, (6, 5))
    logits = m(images, tokens)
    labels = torch.arange(6)
    loss = (F.cross_entropy(logits, labels) + F.cross_entropy(logits.t(), labels)) / 2
    loss.backward()
    put(t, "clip", m, images=images, tokens=tokens, logits=logits, loss=loss)
    put_grads(t, "clip", m)


# ---- MobileNetV2 / EfficientNet block (test_newuser4_mobilenet.dsl) -------------------------
class SqueezeExcite(nn.Module):
    def __init__(self, c, r=4):
        super().__init__()
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc1 = nn.Conv2d(c, c // r, 1)
        self.fc2 = nn.Conv2d(c // r, c, 1)

    def forward(self, x):
        return x * torch.sigmoid(self.fc2(F.silu(self.fc1(self.pool(x)))))


class InvertedResidual(nn.Module):
    def __init__(self, c_in, c_out, stride, expand):
        super().__init__()
        hidden = c_in * expand
        self.use_res = stride == 1 and c_in == c_out
        self.expand = nn.Sequential(nn.Conv2d(c_in, hidden, 1, bias=False), nn.BatchNorm2d(hidden), nn.ReLU6(inplace=True))
        self.depthwise = nn.Sequential(nn.Conv2d(hidden, hidden, 3, stride, 1, groups=hidden, bias=False),
                                       nn.BatchNorm2d(hidden), nn.SiLU())
        self.se = SqueezeExcite(hidden)
        self.project = nn.Sequential(nn.Conv2d(hidden, c_out, 1, bias=False), nn.BatchNorm2d(c_out))

    def forward(self, x):
        out = self.project(self.se(self.depthwise(self.expand(x))))
        return x + out if self.use_res else out


class MobileNet(nn.Module):
    def __init__(self, n_classes=3):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, 2, 1, bias=False), nn.BatchNorm2d(8), nn.ReLU6())
        self.blocks = nn.Sequential(InvertedResidual(8, 8, 1, 2), InvertedResidual(8, 12, 2, 2))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.classifier = nn.Linear(12, n_classes)

    def forward(self, x):
        return self.classifier(torch.flatten(self.pool(self.blocks(self.stem(x))), 1))


def mobilenet_case(t):
    m = MobileNet()
    with torch.no_grad():  # BatchNorm's affine starts at 1 and 0: move it so its gradients show
        for mod in m.modules():
            if isinstance(mod, nn.BatchNorm2d):
                mod.weight.copy_(1 + 0.2 * torch.randn_like(mod.weight))
                mod.bias.copy_(0.2 * torch.randn_like(mod.bias))
    put(t, "mobilenet", m)
    x = torch.randn(4, 3, 8, 8)
    y = torch.tensor([0, 2, 1, 2])
    loss = F.cross_entropy(m(x), y, label_smoothing=0.1)
    loss.backward()
    put(t, "mobilenet", x=x, y=y, loss=loss)
    put_grads(t, "mobilenet", m)
    for k, v in m.state_dict().items():
        if "running" in k:
            t[f"mobilenet.after.{k}"] = v.clone()
    m.eval()
    with torch.no_grad():
        put(t, "mobilenet", eval_out=m(x))


# ---- DenseNet block with checkpointed bottlenecks (test_newuser4_densenet.dsl) --------------
class DenseLayer(nn.Module):
    def __init__(self, c_in, growth, bn_size=2):
        super().__init__()
        self.norm1 = nn.BatchNorm2d(c_in)
        self.conv1 = nn.Conv2d(c_in, bn_size * growth, 1, bias=False)
        self.norm2 = nn.BatchNorm2d(bn_size * growth)
        self.conv2 = nn.Conv2d(bn_size * growth, growth, 3, padding=1, bias=False)

    def forward(self, features):
        bottleneck = self.conv1(F.relu(self.norm1(torch.cat(features, 1))))
        return self.conv2(F.relu(self.norm2(bottleneck)))


class DenseNet(nn.Module):
    def __init__(self, c0=4, growth=3, n_layers=3, n_classes=2):
        super().__init__()
        self.stem = nn.Conv2d(1, c0, 3, padding=1)
        self.layers = nn.ModuleList([DenseLayer(c0 + k * growth, growth) for k in range(n_layers)])
        self.head = nn.Linear(c0 + n_layers * growth, n_classes)

    def forward(self, x):
        features = [self.stem(x)]
        for layer in self.layers:
            features.append(layer(features))
        return self.head(F.adaptive_avg_pool2d(torch.cat(features, 1), 1).flatten(1))


def densenet_case(t):
    m = DenseNet()
    x = torch.randn(3, 1, 6, 6)
    y = torch.tensor([1, 0, 1])
    put(t, "densenet", m, x=x, y=y)
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    put(t, "densenet", loss=loss)
    put_grads(t, "densenet", m)


# ---- LSTM language model with truncated BPTT (test_newuser4_lstm_lm.dsl) --------------------
class LSTMLM(nn.Module):
    def __init__(self, vocab=12, d=8, hidden=16, layers=2):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        self.lstm = nn.LSTM(d, hidden, num_layers=layers)
        self.decoder = nn.Linear(hidden, vocab)

    def forward(self, x, hidden):
        out, hidden = self.lstm(self.embedding(x), hidden)
        return self.decoder(out), hidden


def lstm_case(t):
    m = LSTMLM()
    put(t, "lstm", m)
    stream = torch.randint(0, 12, (25, 2))      # [time, batch], batchify'd
    opt = torch.optim.SGD(m.parameters(), lr=0.5)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda epoch: 0.5 ** epoch)
    hidden = (torch.zeros(2, 2, 16), torch.zeros(2, 2, 16))
    losses, norms = [], []
    bptt = 8
    for i in range(0, stream.size(0) - 1, bptt):
        seq_len = min(bptt, stream.size(0) - 1 - i)
        data, target = stream[i:i + seq_len], stream[i + 1:i + 1 + seq_len]
        hidden = tuple(h.detach() for h in hidden)
        opt.zero_grad()
        out, hidden = m(data, hidden)
        loss = F.cross_entropy(out.view(-1, 12), target.reshape(-1))
        loss.backward()
        norms.append(torch.nn.utils.clip_grad_norm_(m.parameters(), 0.25))
        opt.step()
        sched.step()
        losses.append(loss.detach())
    put(t, "lstm", stream=stream, losses=torch.stack(losses), norms=torch.stack(norms))
    for k, v in m.state_dict().items():
        t[f"lstm.after.{k}"] = v.clone()


# ---- seq2seq with Bahdanau attention (test_newuser4_bahdanau.dsl) ---------------------------
class Encoder(nn.Module):
    def __init__(self, vocab=10, d=6, hidden=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        self.rnn = nn.GRU(d, hidden, batch_first=True, bidirectional=True)
        self.bridge = nn.Linear(2 * hidden, hidden)

    def forward(self, src):
        out, h = self.rnn(self.embedding(src))
        return out, torch.tanh(self.bridge(torch.cat([h[0], h[1]], dim=1)))


class AdditiveAttention(nn.Module):
    def __init__(self, q_dim, k_dim, d):
        super().__init__()
        self.W_q = nn.Linear(q_dim, d, bias=False)
        self.W_k = nn.Linear(k_dim, d, bias=False)
        self.v = nn.Linear(d, 1, bias=False)

    def forward(self, query, keys, mask):
        scores = self.v(torch.tanh(self.W_q(query).unsqueeze(1) + self.W_k(keys))).squeeze(-1)
        scores = scores.masked_fill(~mask, float("-inf"))
        weights = F.softmax(scores, dim=-1)
        return torch.bmm(weights.unsqueeze(1), keys).squeeze(1), weights


class Decoder(nn.Module):
    def __init__(self, vocab=10, d=6, hidden=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d)
        self.attention = AdditiveAttention(hidden, 2 * hidden, hidden)
        self.rnn = nn.GRUCell(d + 2 * hidden, hidden)
        self.out = nn.Linear(hidden + 2 * hidden + d, vocab)

    def forward(self, token, h, enc_out, mask):
        emb = self.embedding(token)
        context, weights = self.attention(h, enc_out, mask)
        h = self.rnn(torch.cat([emb, context], dim=1), h)
        return self.out(torch.cat([h, context, emb], dim=1)), h, weights


class Seq2Seq(nn.Module):
    def __init__(self):
        super().__init__()
        self.encoder = Encoder()
        self.decoder = Decoder()

    def forward(self, src, tgt, mask):   # teacher forcing at every step
        enc_out, h = self.encoder(src)
        token = tgt[:, 0]
        logits, attn = [], []
        for i in range(1, tgt.shape[1]):
            out, h, w = self.decoder(token, h, enc_out, mask)
            logits.append(out)
            attn.append(w)
            token = tgt[:, i]
        return torch.stack(logits, 1), torch.stack(attn, 1)


def bahdanau_case(t):
    m = Seq2Seq()
    src = torch.randint(3, 10, (3, 5))
    src_len = torch.tensor([5, 3, 4])
    mask = torch.arange(5).unsqueeze(0) < src_len.unsqueeze(1)
    src = src.masked_fill(~mask, 0)
    tgt = torch.cat([torch.ones(3, 1, dtype=torch.long), torch.randint(3, 10, (3, 4))], 1)   # 1 = <sos>
    logits, attn = m(src, tgt, mask)
    loss = F.cross_entropy(logits.reshape(-1, 10), tgt[:, 1:].reshape(-1))
    loss.backward()
    put(t, "bahdanau", m, src=src, mask=mask, tgt=tgt, logits=logits, attn=attn, loss=loss)
    put_grads(t, "bahdanau", m)


# ---- recommender: matrix factorization, EmbeddingBag, BPR, SparseAdam ----------------------
class MF(nn.Module):
    def __init__(self, n_users=6, n_items=9, d=4):
        super().__init__()
        self.user = nn.Embedding(n_users, d, sparse=True)
        self.item = nn.Embedding(n_items, d, sparse=True)
        self.item_bias = nn.Embedding(n_items, 1, sparse=True)
        self.history = nn.EmbeddingBag(n_items, d, mode="sum", sparse=True)

    def score(self, u, hist, offsets, weights, items):
        users = self.user(u) + self.history(hist, offsets, per_sample_weights=weights)
        return (users * self.item(items)).sum(1) + self.item_bias(items).squeeze(1)


def recommender_case(t):
    m = MF()
    with torch.no_grad():
        for p in m.parameters():
            p.mul_(0.5)
    put(t, "rec", m)
    init = {k: v.clone() for k, v in m.state_dict().items()}
    u = torch.tensor([0, 2, 3, 5])
    hist = torch.tensor([1, 2, 2, 4, 0, 7, 8])
    offsets = torch.tensor([0, 2, 3, 5])
    weights = torch.rand(7)
    pos = torch.tensor([3, 1, 6, 2])
    neg = torch.tensor([5, 0, 4, 4])
    diff = m.score(u, hist, offsets, weights, pos) - m.score(u, hist, offsets, weights, neg)
    loss = -F.logsigmoid(diff).mean()
    loss.backward()
    put(t, "rec", u=u, hist=hist, offsets=offsets, weights=weights, pos=pos, neg=neg, loss=loss)
    for k, p in m.named_parameters():
        t[f"rec.grad.{k}"] = p.grad.to_dense().clone()
    opt = torch.optim.SparseAdam(list(m.parameters()), lr=0.1)
    opt.step()
    for step in range(2):   # two more steps, on other rows: untouched rows keep their moments
        opt.zero_grad()
        users = torch.tensor([1, 4])
        d2 = m.score(users, torch.tensor([3, 3]), torch.tensor([0, 1]), torch.ones(2), torch.tensor([0, 2])) - \
            m.score(users, torch.tensor([3, 3]), torch.tensor([0, 1]), torch.ones(2), torch.tensor([1, 8]))
        (-F.logsigmoid(d2).mean()).backward()
        opt.step()
    for k, v in m.state_dict().items():
        t[f"rec.after.{k}"] = v.clone()
    # Adagrad on the same sparse gradients (lr_decay too): PyTorch's sparse path
    m2 = MF()
    m2.load_state_dict(init)
    opt2 = torch.optim.Adagrad(m2.parameters(), lr=0.1, lr_decay=0.01)
    for step in range(2):
        opt2.zero_grad()
        d = m2.score(u, hist, offsets, weights, pos) - m2.score(u, hist, offsets, weights, neg)
        (-F.logsigmoid(d).mean()).backward()
        opt2.step()
    for k, v in m2.state_dict().items():
        t[f"rec.adagrad.{k}"] = v.clone()


# ---- TransE: translations, margin ranking, max_norm (test_newuser4_transe.dsl) --------------
class TransE(nn.Module):
    def __init__(self, n_ent=8, n_rel=3, d=4):
        super().__init__()
        self.ent = nn.Embedding(n_ent, d, max_norm=1.0)
        self.rel = nn.Embedding(n_rel, d)

    def forward(self, h, r, tl, neg_t):
        # one lookup of every entity: max_norm renormalizes the table in place at each
        # lookup, so a second lookup would modify what the first one's backward needs
        e = self.ent(torch.stack([h, tl, neg_t]))
        translated = e[0] + self.rel(r)
        return (translated - e[1]).norm(p=1, dim=1), (translated - e[2]).norm(p=1, dim=1)


def transe_case(t):
    m = TransE()
    put(t, "transe", m)
    h = torch.tensor([0, 1, 2, 3, 4])
    r = torch.tensor([0, 1, 2, 0, 1])
    tl = torch.tensor([1, 2, 3, 4, 5])
    neg_t = torch.tensor([6, 7, 0, 2, 6])
    pos, neg = m(h, r, tl, neg_t)
    loss = F.margin_ranking_loss(neg, pos, torch.ones(5), margin=1.0)
    loss.backward()
    put(t, "transe", h=h, r=r, tail=tl, neg_t=neg_t, pos=pos, neg=neg, loss=loss, renormed=m.ent.weight)
    put_grads(t, "transe", m)
    torch.optim.SGD(m.parameters(), lr=0.1).step()
    with torch.no_grad():
        m.rel.weight.renorm_(2, 0, 1.0)
    put(t, "transe", after_ent=m.ent.weight, after_rel=m.rel.weight)


# ---- CPU autocast: which dtype each op gives (test_newuser4_amp.dsl) ------------------------
AMP_OPS = ["linear", "relu", "matmul", "addmm", "bmm", "conv2d", "softmax", "log_softmax", "sum", "mean",
           "layer_norm", "batch_norm", "cross_entropy", "mse_loss", "nll_loss", "bce_with_logits", "add_f32",
           "exp", "gelu", "cat_f32", "norm"]


def amp_case(t):
    torch.set_default_dtype(torch.float32)
    x = torch.randn(5, 4)
    lin = nn.Linear(4, 2)
    conv = nn.Conv2d(2, 3, 3)
    bn = nn.BatchNorm1d(2)
    tgt = torch.tensor([0, 1, 0, 1, 1])
    with torch.autocast("cpu", dtype=torch.bfloat16):
        y = lin(x)
        got = {
            "linear": y, "relu": torch.relu(y), "matmul": y @ y.t(), "addmm": torch.addmm(torch.zeros(5, 5), y, y.t()),
            "bmm": torch.bmm(y[None], y.t()[None]), "conv2d": conv(torch.randn(1, 2, 5, 5)),
            "softmax": torch.softmax(y, -1), "log_softmax": F.log_softmax(y, -1), "sum": y.sum(), "mean": y.mean(),
            "layer_norm": F.layer_norm(y, [2]), "batch_norm": bn(y), "cross_entropy": F.cross_entropy(y, tgt),
            "mse_loss": F.mse_loss(y, torch.zeros(5, 2)), "nll_loss": F.nll_loss(F.log_softmax(y, -1), tgt),
            "bce_with_logits": F.binary_cross_entropy_with_logits(y, torch.zeros(5, 2)), "add_f32": y + x[:, :2],
            "exp": y.exp(), "gelu": F.gelu(y), "cat_f32": torch.cat([y, x[:, :2]]), "norm": y.norm(),
        }
    codes = {torch.bfloat16: 16, torch.float32: 32}
    t["amp.dtypes"] = torch.tensor([codes[got[k].dtype] for k in AMP_OPS])
    # values: an MLP's bf16 forward, its f32 loss and f32 gradients under CPU autocast
    mlp = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    xs = torch.randn(8, 4)
    ys = torch.randint(0, 3, (8,))
    with torch.autocast("cpu", dtype=torch.bfloat16):
        out = mlp(xs)
        probs = torch.softmax(out, -1)
        loss = F.cross_entropy(out, ys)
    loss.backward()
    put(t, "amp", mlp, x=xs, y=ys, out=out.float(), probs=probs.float(), loss=loss)
    put_grads(t, "amp", mlp)
    torch.set_default_dtype(torch.float64)


def cases():
    torch.manual_seed(0)
    t = {}
    for case in (ddpm_case, clip_case, mobilenet_case, densenet_case, lstm_case, bahdanau_case, recommender_case,
                 transe_case, amp_case):
        case(t)
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
