"""Writes newuser3.safetensors: PyTorch 1.13's values at f64 for the third round of
new-user training programs (tests/stdlib/train/test_newuser3_*.dsl): for each family a
small model's state_dict under PyTorch's keys prefixed by the case name, its inputs, and
the loss and gradients of one forward/backward step from that init.

    /usr/bin/python3 tests/stdlib/reference/make_newuser3.py

Models mirror the tests' models field for field, so their state_dict keys match.
"""
import math
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from reference_store import put, put_grads  # noqa: E402
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("newuser3.safetensors")
torch.set_default_dtype(torch.float64)


# ---- WGAN-GP: the critic's gradient penalty (test_newuser3_wgan_gp.dsl) --------------------
def wgan_case(t):
    D = nn.Sequential(nn.Linear(2, 16), nn.Tanh(), nn.Linear(16, 16), nn.LeakyReLU(0.2), nn.Linear(16, 1))
    real = torch.randn(8, 2) + torch.tensor([2.0, -1.0])
    fake = torch.randn(8, 2)
    alpha = torch.rand(8, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = D(interp)
    g, = torch.autograd.grad(outputs=out, inputs=interp, grad_outputs=torch.ones_like(out), create_graph=True,
                             retain_graph=True)
    gp = ((g.norm(2, dim=1) - 1) ** 2).mean()
    loss = D(fake).mean() - D(real).mean() + 10 * gp
    loss.backward()
    put(t, "wgan", D, real=real, fake=fake, alpha=alpha, grad_interp=g, gp=gp, loss=loss)
    put_grads(t, "wgan", D)


def conv_critic():
    return nn.Sequential(nn.Conv2d(1, 4, 4, stride=2, padding=1), nn.LeakyReLU(0.2),
                         nn.Conv2d(4, 8, 4, stride=2, padding=1), nn.InstanceNorm2d(8, affine=True), nn.LeakyReLU(0.2),
                         nn.Flatten(), nn.Linear(8 * 2 * 2, 1))


def wgan_conv_case(t):
    """The penalty through a convolutional critic with InstanceNorm2d: double backward through conv2d."""
    D = conv_critic()
    with torch.no_grad():  # InstanceNorm's affine starts at 1 and 0: move it so its gradients are tested
        D[3].weight.copy_(1 + 0.2 * torch.randn(8))
        D[3].bias.copy_(0.2 * torch.randn(8))
    real, fake, alpha = torch.randn(4, 1, 8, 8), torch.randn(4, 1, 8, 8), torch.rand(4, 1, 1, 1)
    interp = (alpha * real + (1 - alpha) * fake).requires_grad_(True)
    out = D(interp)
    g = torch.autograd.grad(out, interp, grad_outputs=torch.ones_like(out), create_graph=True)[0]
    gp = ((g.view(g.size(0), -1).norm(2, dim=1) - 1) ** 2).mean()
    loss = D(fake).mean() - D(real).mean() + 10 * gp
    loss.backward()
    put(t, "wgan_conv", D, real=real, fake=fake, alpha=alpha, gp=gp, loss=loss)
    put_grads(t, "wgan_conv", D)


# ---- VQ-VAE: straight-through codes, commitment loss, EMA codebook (test_newuser3_vqvae.dsl)
class VQVAE(nn.Module):
    def __init__(self, d_in=6, d=4, k=8):
        super().__init__()
        self.encoder = nn.Linear(d_in, d)
        self.codebook = nn.Embedding(k, d)
        self.decoder = nn.Linear(d, d_in)

    def quantize(self, z):
        e = self.codebook.weight
        dist = (z ** 2).sum(1, keepdim=True) - 2 * z @ e.t() + (e ** 2).sum(1)
        idx = dist.argmin(1)
        return self.codebook(idx), idx

    def forward(self, x):
        z = self.encoder(x)
        q, idx = self.quantize(z)
        codebook_loss = F.mse_loss(q, z.detach())
        commitment = F.mse_loss(z, q.detach())
        zq = z + (q - z).detach()
        return self.decoder(zq), idx, codebook_loss, commitment


def vqvae_case(t):
    m = VQVAE()
    x = torch.randn(10, 6)
    recon, idx, cb, commit = m(x)
    loss = F.mse_loss(recon, x) + cb + 0.25 * commit
    loss.backward()
    put(t, "vqvae", m, x=x, idx=idx, loss=loss, codebook_loss=cb, commitment=commit)
    put_grads(t, "vqvae", m)
    # one EMA codebook update (decay 0.9, Laplace smoothing eps 1e-5) from zero statistics + the codebook
    with torch.no_grad():
        z = m.encoder(x)
        k = m.codebook.weight.shape[0]
        onehot = F.one_hot(idx, k).to(z.dtype)
        cluster_size = torch.ones(k)
        embed_avg = m.codebook.weight.clone()
        cluster_size.mul_(0.9).add_(onehot.sum(0), alpha=0.1)
        embed_avg.mul_(0.9).add_(onehot.t() @ z, alpha=0.1)
        n = cluster_size.sum()
        smoothed = (cluster_size + 1e-5) / (n + k * 1e-5) * n
        put(t, "vqvae", ema_cluster_size=cluster_size, ema_codebook=embed_avg / smoothed.unsqueeze(1))


# ---- LoRA adapters on a frozen MLP (test_newuser3_lora.dsl) --------------------------------
class LoRALinear(nn.Module):
    def __init__(self, base, r=2, alpha=4.0):
        super().__init__()
        self.base = base
        self.lora_A = nn.Parameter(torch.randn(r, base.in_features) * 0.1)
        self.lora_B = nn.Parameter(torch.randn(base.out_features, r) * 0.1)  # nonzero so A's grad shows
        self.scaling = alpha / r

    def forward(self, x):
        return self.base(x) + (x @ self.lora_A.t() @ self.lora_B.t()) * self.scaling


class LoRANet(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = LoRALinear(nn.Linear(6, 16))
        self.fc2 = LoRALinear(nn.Linear(16, 3))

    def forward(self, x):
        return self.fc2(torch.relu(self.fc1(x)))


def lora_case(t):
    m = LoRANet()
    for name, p in m.named_parameters():
        if "lora" not in name:
            p.requires_grad_(False)
    x = torch.randn(7, 6)
    y = torch.tensor([0, 2, 1, 1, 0, 2, 2])
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    put(t, "lora", m, x=x, y=y, loss=loss)
    put_grads(t, "lora", m)
    opt = torch.optim.AdamW([p for p in m.parameters() if p.requires_grad], lr=1e-2)
    opt.step()
    with torch.no_grad():
        put(t, "lora", after_A=m.fc1.lora_A, after_B=m.fc1.lora_B, out_after=m(x))


# ---- mixture of experts with top-2 gating (test_newuser3_moe.dsl) --------------------------
class MoE(nn.Module):
    def __init__(self, d=4, n_experts=4, hidden=8, k=2):
        super().__init__()
        self.k = k
        self.gate = nn.Linear(d, n_experts)
        self.experts = nn.ModuleList([nn.Sequential(nn.Linear(d, hidden), nn.ReLU(), nn.Linear(hidden, d))
                                      for _ in range(n_experts)])

    def forward(self, x):
        logits = self.gate(x)
        top_v, top_i = logits.topk(self.k, dim=-1)
        w = F.softmax(top_v, dim=-1)
        out = torch.zeros_like(x)
        for e, expert in enumerate(self.experts):
            rows, slot = (top_i == e).nonzero(as_tuple=True)
            if rows.numel() == 0:
                continue
            out = out.index_add(0, rows, expert(x[rows]) * w[rows, slot].unsqueeze(1))
        n = len(self.experts)
        probs = F.softmax(logits, dim=-1)
        frac = F.one_hot(top_i[:, 0], n).to(x.dtype).mean(0)
        aux = n * (frac * probs.mean(0)).sum()
        return out, aux, top_i


def moe_case(t):
    m = MoE()
    x = torch.randn(12, 4)
    y = torch.randn(12, 4)
    out, aux, top_i = m(x)
    loss = F.mse_loss(out, y) + 0.01 * aux
    loss.backward()
    put(t, "moe", m, x=x, y=y, out=out, aux=aux, top_i=top_i, loss=loss)
    put_grads(t, "moe", m)


# ---- GRU sentiment classifier over packed variable-length batches (test_newuser3_gru_packed.dsl)
class Sentiment(nn.Module):
    def __init__(self, vocab=20, d=6, hidden=8):
        super().__init__()
        self.embedding = nn.Embedding(vocab, d, padding_idx=0)
        self.gru = nn.GRU(d, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, 2)

    def forward(self, tokens, lengths):
        packed = pack_padded_sequence(self.embedding(tokens), lengths, batch_first=True, enforce_sorted=False)
        out, h = self.gru(packed)
        padded, lens = pad_packed_sequence(out, batch_first=True)
        return self.fc(torch.cat([h[-2], h[-1]], dim=1)), padded, lens


def gru_case(t):
    m = Sentiment()
    lengths = torch.tensor([5, 3, 6, 2])
    tokens = torch.randint(1, 20, (4, 6))
    tokens[torch.arange(6).unsqueeze(0) >= lengths.unsqueeze(1)] = 0
    labels = torch.tensor([1, 0, 1, 0])
    logits, padded, lens = m(tokens, lengths)
    loss = F.cross_entropy(logits, labels)
    loss.backward()
    put(t, "gru", m, tokens=tokens, lengths=lengths, labels=labels, logits=logits, padded=padded, loss=loss)
    put_grads(t, "gru", m)


# ---- CRNN + CTC (test_newuser3_crnn_ctc.dsl) ---------------------------------------------
class CRNN(nn.Module):
    def __init__(self, n_classes=5, hidden=8):
        super().__init__()
        self.conv = nn.Conv2d(1, 4, 3, padding=1)
        self.pool = nn.MaxPool2d((2, 1))
        self.rnn = nn.LSTM(4 * 4, hidden, batch_first=True, bidirectional=True)
        self.fc = nn.Linear(2 * hidden, n_classes)

    def forward(self, img):  # [B, 1, 8, W] -> [W, B, classes] log-probabilities
        f = self.pool(torch.relu(self.conv(img)))          # [B, 4, 4, W]
        b, c, h, w = f.shape
        seq = f.permute(0, 3, 1, 2).reshape(b, w, c * h)   # [B, W, 16]
        out, _ = self.rnn(seq)
        return F.log_softmax(self.fc(out), dim=2).permute(1, 0, 2)


def ctc_case(t):
    m = CRNN()
    img = torch.randn(2, 1, 8, 6)
    targets = torch.tensor([[1, 2, 3], [2, 2, 0]])
    input_lengths = torch.tensor([6, 5])
    target_lengths = torch.tensor([3, 2])
    log_probs = m(img)
    loss = F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                      zero_infinity=True)
    loss.backward()
    sum_loss = F.ctc_loss(log_probs.detach(), targets, input_lengths, target_lengths, reduction="none")
    put(t, "ctc", m, img=img, targets=targets, input_lengths=input_lengths, target_lengths=target_lengths,
        log_probs=log_probs, loss=loss, per_sample=sum_loss)
    put_grads(t, "ctc", m)


# ---- neural style transfer: Gram matrices, the input image optimized (test_newuser3_style.dsl)
def gram(f):
    b, c, h, w = f.shape
    f = f.view(b, c, h * w)
    return f @ f.transpose(1, 2) / (c * h * w)


class Features(nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = nn.Sequential(nn.Conv2d(3, 4, 3, padding=1), nn.ReLU(), nn.Conv2d(4, 6, 3, padding=1), nn.ReLU())

    def forward(self, x):
        outs = []
        for layer in self.layers:
            x = layer(x)
            if isinstance(layer, nn.ReLU):
                outs.append(x)
        return outs


def style_loss(net, img, content_feats, style_grams):
    feats = net(img)
    content = F.mse_loss(feats[1], content_feats[1])
    style = sum(F.mse_loss(gram(f), g) for f, g in zip(feats, style_grams))
    return content + 1e3 * style


def style_case(t):
    net = Features().requires_grad_(False)
    content = torch.rand(1, 3, 8, 8)
    style = torch.rand(1, 3, 8, 8)
    content_feats = net(content)
    style_grams = [gram(f) for f in net(style)]
    img = content.clone().requires_grad_(True)
    loss = style_loss(net, img, content_feats, style_grams)
    loss.backward()
    put(t, "style", net, content=content, style=style, loss=loss, grad_img=img.grad)
    img2 = content.clone().requires_grad_(True)
    opt = torch.optim.LBFGS([img2], lr=1, max_iter=5)

    def closure():
        opt.zero_grad()
        loss = style_loss(net, img2, content_feats, style_grams)
        loss.backward()
        return loss
    first = opt.step(closure)
    put(t, "style", lbfgs_first_loss=first, lbfgs_img=img2, lbfgs_loss=style_loss(net, img2, content_feats,
                                                                                        style_grams))


# ---- GAT: attention over each node's neighbours (test_newuser3_gat.dsl) --------------------
class GATLayer(nn.Module):
    def __init__(self, d_in, d_out, heads):
        super().__init__()
        self.heads, self.d_out = heads, d_out
        self.lin = nn.Linear(d_in, heads * d_out, bias=False)
        self.att_src = nn.Parameter(torch.randn(1, heads, d_out) * 0.5)
        self.att_dst = nn.Parameter(torch.randn(1, heads, d_out) * 0.5)
        self.bias = nn.Parameter(torch.randn(heads * d_out) * 0.1)

    def forward(self, x, edge_index):
        n = x.shape[0]
        h = self.lin(x).view(n, self.heads, self.d_out)
        src, dst = edge_index
        a_src = (h * self.att_src).sum(-1)
        a_dst = (h * self.att_dst).sum(-1)
        e = F.leaky_relu(a_src[src] + a_dst[dst], 0.2)
        e_max = torch.full((n, self.heads), float("-inf")).scatter_reduce(
            0, dst.unsqueeze(1).expand(-1, self.heads), e, reduce="amax", include_self=True)
        ex = (e - e_max[dst]).exp()
        denom = torch.zeros(n, self.heads).index_add(0, dst, ex)
        alpha = ex / denom[dst]
        out = torch.zeros(n, self.heads, self.d_out).index_add(0, dst, h[src] * alpha.unsqueeze(-1))
        return out.reshape(n, -1) + self.bias, alpha


class GAT(nn.Module):
    def __init__(self):
        super().__init__()
        self.gat1 = GATLayer(3, 4, 2)
        self.gat2 = GATLayer(8, 2, 1)

    def forward(self, x, edge_index):
        h, alpha = self.gat1(x, edge_index)
        out, _ = self.gat2(F.elu(h), edge_index)
        return out, alpha


def gat_case(t):
    m = GAT()
    x = torch.randn(6, 3)
    edges = torch.tensor([[0, 1, 1, 2, 3, 4, 5, 0], [1, 0, 2, 1, 4, 3, 0, 5]])
    loops = torch.arange(6).repeat(2, 1)
    edge_index = torch.cat([edges, loops], dim=1)
    y = torch.tensor([0, 0, 1, 1, 0, 1])
    out, alpha = m(x, edge_index)
    loss = F.cross_entropy(out, y)
    loss.backward()
    put(t, "gat", m, x=x, edge_index=edge_index, y=y, out=out, alpha=alpha, loss=loss)
    put_grads(t, "gat", m)


# ---- time-series Transformer forecaster (test_newuser3_ts_transformer.dsl) -----------------
def sinusoidal(max_len, d):
    pos = torch.arange(max_len).unsqueeze(1)
    div = torch.exp(torch.arange(0, d, 2) * (-math.log(10000.0) / d))
    pe = torch.zeros(max_len, d)
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


class Forecaster(nn.Module):
    def __init__(self, d=16, heads=2, horizon=3, max_len=32):
        super().__init__()
        self.d = d
        self.inp = nn.Linear(1, d)
        self.register_buffer("pe", sinusoidal(max_len, d), persistent=False)
        layer = nn.TransformerEncoderLayer(d, heads, dim_feedforward=32, dropout=0.0, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=2)
        self.head = nn.Linear(d, horizon)

    def forward(self, x):  # [B, T, 1] -> [B, horizon]
        t = x.shape[1]
        h = self.inp(x) * math.sqrt(self.d) + self.pe[:t]
        mask = nn.Transformer.generate_square_subsequent_mask(t)
        h = self.encoder(h, mask=mask)
        return self.head(h[:, -1])


def ts_case(t):
    m = Forecaster()
    x = torch.randn(3, 10, 1)
    y = torch.randn(3, 3)
    out = m(x)
    loss = F.mse_loss(out, y)
    loss.backward()
    put(t, "ts", m, x=x, y=y, out=out, loss=loss, pe=m.pe)
    put_grads(t, "ts", m)


def cases():
    torch.manual_seed(0)
    t = {}
    for case in (wgan_case, wgan_conv_case, vqvae_case, lora_case, moe_case, gru_case, ctc_case, style_case, gat_case, ts_case):
        case(t)
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
