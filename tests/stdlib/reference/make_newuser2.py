"""Writes newuser2.safetensors: PyTorch 1.13's values at f64 for the second round of
new-user training programs (tests/stdlib/train/test_newuser2_*.dsl): for each family a
small model's state_dict under PyTorch's keys prefixed by the case name, its inputs, and
the loss and gradients of one forward/backward step from that init.

    /usr/bin/python3 tests/stdlib/reference/make_newuser2.py

Models mirror the tests' models field for field, so their state_dict keys match.
"""
import math
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("newuser2.safetensors")
torch.set_default_dtype(torch.float64)


def put(t, name, module=None, **tensors):
    if module is not None:
        for k, v in module.state_dict().items():
            t[f"{name}.{k}"] = v
    for k, v in tensors.items():
        t[f"{name}.{k}"] = v


def put_grads(t, name, module):
    for k, p in module.named_parameters():
        t[f"{name}.grad.{k}"] = p.grad


# ---- U-Net (test_newuser2_unet.dsl) ----------------------------------------------------
class Block(nn.Module):
    def __init__(self, c_in, c_out, groups):
        super().__init__()
        self.conv1 = nn.Conv2d(c_in, c_out, 3, padding=1)
        self.norm1 = nn.GroupNorm(groups, c_out)
        self.conv2 = nn.Conv2d(c_out, c_out, 3, padding=1)
        self.norm2 = nn.GroupNorm(groups, c_out)

    def forward(self, x):
        return F.silu(self.norm2(self.conv2(F.silu(self.norm1(self.conv1(x))))))


class UNet(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.down1 = Block(1, c, 2)
        self.down2 = Block(c, 2 * c, 4)
        self.pool = nn.MaxPool2d(2)
        self.mid = Block(2 * c, 4 * c, 4)
        self.up2 = nn.ConvTranspose2d(4 * c, 2 * c, kernel_size=2, stride=2)
        self.dec2 = Block(4 * c, 2 * c, 4)
        self.up1 = nn.ConvTranspose2d(2 * c, c, kernel_size=2, stride=2)
        self.dec1 = Block(2 * c, c, 2)
        self.head = nn.Conv2d(c, 1, kernel_size=1)

    def forward(self, x):
        s1 = self.down1(x)
        s2 = self.down2(self.pool(s1))
        m = self.mid(self.pool(s2))
        d2 = self.dec2(torch.cat([self.up2(m), s2], dim=1))
        d1 = self.dec1(torch.cat((self.up1(d2), s1), 1))
        return self.head(d1)


def randomize_norms(m):
    """GroupNorm starts at weight 1, bias 0: move them so their gradients are tested."""
    with torch.no_grad():
        for mod in m.modules():
            if isinstance(mod, nn.GroupNorm):
                mod.weight.copy_(1 + 0.2 * torch.randn_like(mod.weight))
                mod.bias.copy_(0.2 * torch.randn_like(mod.bias))


def unet_case(t):
    m = UNet(4)
    randomize_norms(m)
    x = torch.randn(2, 1, 32, 32)
    target = torch.randn(2, 1, 32, 32)
    out = m(x)
    loss = F.mse_loss(out, target)
    loss.backward()
    put(t, "unet", m, x=x, target=target, out=out, loss=loss)
    put_grads(t, "unet", m)


# ---- TCN with weight_norm (test_newuser2_tcn.dsl) ---------------------------------------
class Chomp1d(nn.Module):
    def __init__(self, chomp):
        super().__init__()
        self.chomp = chomp

    def forward(self, x):
        return x[:, :, :-self.chomp].contiguous()


class TemporalBlock(nn.Module):
    def __init__(self, c_in, c_out, k, dilation):
        super().__init__()
        pad = (k - 1) * dilation
        self.conv1 = nn.utils.weight_norm(nn.Conv1d(c_in, c_out, k, padding=pad, dilation=dilation))
        self.chomp1 = Chomp1d(pad)
        self.conv2 = nn.utils.weight_norm(nn.Conv1d(c_out, c_out, k, padding=pad, dilation=dilation))
        self.chomp2 = Chomp1d(pad)
        self.net = nn.Sequential(self.conv1, self.chomp1, nn.ReLU(), self.conv2, self.chomp2, nn.ReLU())
        self.downsample = nn.Conv1d(c_in, c_out, 1) if c_in != c_out else None

    def forward(self, x):
        res = x if self.downsample is None else self.downsample(x)
        return torch.relu(self.net(x) + res)


class TCN(nn.Module):
    def __init__(self, c_in, channels, k=3):
        super().__init__()
        self.blocks = nn.Sequential(*[TemporalBlock(c_in if i == 0 else channels[i - 1], channels[i], k, 2 ** i)
                                      for i in range(len(channels))])
        self.head = nn.Conv1d(channels[-1], 1, 1)

    def forward(self, x):
        return self.head(self.blocks(x))


def tcn_case(t):
    m = TCN(1, [4, 4], k=2)
    with torch.no_grad():  # g away from ||v||, so the reparameterization shows
        for name, p in m.named_parameters():
            if name.endswith("weight_g"):
                p.mul_(1 + 0.5 * torch.rand_like(p))
    x = torch.randn(3, 1, 10)
    y = torch.randn(3, 1, 10)
    out = m(x)
    loss = F.mse_loss(out, y)
    loss.backward()
    put(t, "tcn", m, x=x, y=y, out=out, loss=loss)
    put_grads(t, "tcn", m)


# ---- nn.Transformer with masks (test_newuser2_transformer.dsl) --------------------------
def transformer_case(t):
    m = nn.Transformer(d_model=8, nhead=2, num_encoder_layers=1, num_decoder_layers=1, dim_feedforward=16,
                       dropout=0.0, batch_first=True)
    src = torch.randn(3, 5, 8)
    tgt = torch.randn(3, 4, 8)
    src_pad = torch.tensor([[False] * 5, [False] * 4 + [True], [False] * 3 + [True] * 2])
    tgt_pad = torch.tensor([[False] * 4, [False] * 4, [False] * 3 + [True]])
    tgt_mask = nn.Transformer.generate_square_subsequent_mask(4)
    out = m(src, tgt, tgt_mask=tgt_mask, src_key_padding_mask=src_pad, tgt_key_padding_mask=tgt_pad,
            memory_key_padding_mask=src_pad)
    w = torch.randn(3, 4, 8)
    loss = (out * w).sum()
    loss.backward()
    put(t, "transformer", m, src=src, tgt=tgt, src_pad=src_pad, tgt_pad=tgt_pad, out=out, w=w, loss=loss)
    put_grads(t, "transformer", m)


# ---- BERT-style MLM with a tied decoder (test_newuser2_bert.dsl) ------------------------
class TinyBert(nn.Module):
    def __init__(self, vocab, d=32, heads=4, layers=2, max_len=16):
        super().__init__()
        self.tok = nn.Embedding(vocab, d, padding_idx=0)
        self.pos = nn.Embedding(max_len, d)
        self.emb_norm = nn.LayerNorm(d)
        self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(d, heads, dim_feedforward=64, dropout=0.0,
                                                                        activation="gelu", batch_first=True), layers)
        self.transform = nn.Sequential(nn.Linear(d, d), nn.GELU(), nn.LayerNorm(d))
        self.decoder = nn.Linear(d, vocab)
        self.decoder.weight = self.tok.weight

    def forward(self, input_ids, attention_mask):
        positions = torch.arange(input_ids.size(1)).unsqueeze(0)
        h = self.emb_norm(self.tok(input_ids) + self.pos(positions))
        h = self.encoder(h, src_key_padding_mask=attention_mask.logical_not())
        return self.decoder(self.transform(h))


def bert_case(t):
    m = TinyBert(12, d=8, heads=2, layers=1, max_len=8)
    ids = torch.tensor([[2, 1, 4, 5, 6, 0, 0], [7, 8, 1, 10, 11, 2, 3]])
    am = ids != 0
    labels = torch.full_like(ids, -100)
    labels[0, 1] = 3
    labels[1, 2] = 9
    logits = m(ids, am)
    loss = F.cross_entropy(logits.reshape(-1, 12), labels.reshape(-1), ignore_index=-100)
    loss.backward()
    put(t, "bert", m, ids=ids, attention_mask=am, labels=labels, logits=logits, loss=loss)
    put_grads(t, "bert", m)


# ---- MAML: second-order meta-gradients (test_newuser2_maml.dsl) -------------------------
def mlp(params, x):
    w1, b1, w2, b2 = params
    return torch.tanh(x @ w1.t() + b1) @ w2.t() + b2


def maml_case(t):
    params = [torch.randn(8, 1) * 0.8, torch.randn(8) * 0.3, torch.randn(1, 8) * 0.5, torch.randn(1) * 0.1]
    for p in params:
        p.requires_grad_()
    xs, xq = torch.linspace(-3, 3, 5).unsqueeze(1), torch.linspace(-2.5, 2.5, 7).unsqueeze(1)
    ys, yq = 1.3 * torch.sin(xs + 0.4), 1.3 * torch.sin(xq + 0.4)
    inner_lr, steps = 0.1, 2

    def meta_loss(create_graph):
        fast = params
        for _ in range(steps):
            loss = F.mse_loss(mlp(fast, xs), ys)
            grads = torch.autograd.grad(loss, fast, create_graph=create_graph)
            fast = [p - inner_lr * g for p, g in zip(fast, grads)]
        return F.mse_loss(mlp(fast, xq), yq)

    second = meta_loss(True)
    grads2 = torch.autograd.grad(second, params)
    first = meta_loss(False)
    grads1 = torch.autograd.grad(first, params)
    put(t, "maml", xs=xs, ys=ys, xq=xq, yq=yq, loss=second.detach())
    for k, (p, g2, g1) in enumerate(zip(params, grads2, grads1)):
        t[f"maml.param{k}"] = p.detach()
        t[f"maml.grad{k}"] = g2
        t[f"maml.grad_first_order{k}"] = g1


# ---- PixelCNN masked convolutions (test_newuser2_pixelcnn.dsl) --------------------------
class MaskedConv2d(nn.Conv2d):
    def __init__(self, mask_type, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.register_buffer("mask", self.weight.data.clone())
        _, _, kh, kw = self.weight.size()
        self.mask.fill_(1)
        self.mask[:, :, kh // 2, kw // 2 + (mask_type == "B"):] = 0
        self.mask[:, :, kh // 2 + 1:] = 0

    def forward(self, x):
        return F.conv2d(x, self.weight * self.mask, self.bias, self.stride, self.padding)


class PixelCNN(nn.Module):
    def __init__(self, c=8):
        super().__init__()
        self.net = nn.Sequential(MaskedConv2d("A", 1, c, 5, padding=2), nn.ReLU(),
                                 MaskedConv2d("B", c, c, 3, padding=1), nn.ReLU(),
                                 MaskedConv2d("B", c, c, 3, padding=1), nn.ReLU(),
                                 nn.Conv2d(c, 1, 1))

    def forward(self, x):
        return self.net(x)


def pixelcnn_case(t):
    m = PixelCNN(4)
    x = (torch.rand(2, 1, 6, 6) > 0.5).double()
    logits = m(x)
    loss = F.binary_cross_entropy_with_logits(logits, x)
    loss.backward()
    put(t, "pixelcnn", m, x=x, logits=logits, loss=loss)
    put_grads(t, "pixelcnn", m)


# ---- mixture density network loss (test_newuser2_mdn.dsl) -------------------------------
def mdn_nll(pi_logits, mu, log_sigma, y):
    log_pi = F.log_softmax(pi_logits, dim=-1)
    z = (y - mu) / log_sigma.exp()
    log_n = -0.5 * z ** 2 - log_sigma - 0.5 * math.log(2 * math.pi)
    return -torch.logsumexp(log_pi + log_n, dim=-1).mean()


def mdn_case(t):
    pi_logits, mu, log_sigma = (torch.randn(6, 3, requires_grad=True) for _ in range(3))
    y = torch.randn(6, 1)
    loss = mdn_nll(pi_logits, mu, log_sigma, y)
    loss.backward()
    mix = torch.distributions.MixtureSameFamily(torch.distributions.Categorical(logits=pi_logits),
                                                torch.distributions.Normal(mu, log_sigma.exp()))
    put(t, "mdn", pi_logits=pi_logits.detach(), mu=mu.detach(), log_sigma=log_sigma.detach(), y=y, loss=loss,
        log_prob=mix.log_prob(y.squeeze(1)).detach(), grad_pi_logits=pi_logits.grad, grad_mu=mu.grad,
        grad_log_sigma=log_sigma.grad)


# ---- SimCLR's NT-Xent / InfoNCE loss (test_newuser2_simclr.dsl) ---------------------------
def nt_xent(z1, z2, temperature):
    n = z1.shape[0]
    z = F.normalize(torch.cat([z1, z2]), dim=1)
    sim = z @ z.t() / temperature
    sim = sim.masked_fill(torch.eye(2 * n, dtype=torch.bool), float("-inf"))
    labels = (torch.arange(2 * n) + n) % (2 * n)
    return F.cross_entropy(sim, labels)


def simclr_case(t):
    z1 = torch.randn(4, 5, requires_grad=True)
    z2 = torch.randn(4, 5, requires_grad=True)
    loss = nt_xent(z1, z2, 0.5)
    loss.backward()
    put(t, "simclr", z1=z1.detach(), z2=z2.detach(), loss=loss, grad_z1=z1.grad, grad_z2=z2.grad)


# ---- REINFORCE (test_newuser2_reinforce.dsl) ---------------------------------------------
def reinforce_case(t):
    policy = nn.Sequential(nn.Linear(4, 16), nn.Tanh(), nn.Linear(16, 2))
    states = torch.randn(6, 4)
    actions = torch.tensor([0, 1, 1, 0, 1, 0])
    rewards = torch.tensor([0.0, 0.0, 1.0, 0.0, -1.0, 1.0])
    gamma = 0.9
    returns, g = [], 0.0
    for r in reversed(rewards.tolist()):
        g = r + gamma * g
        returns.insert(0, g)
    returns = torch.tensor(returns)
    returns = (returns - returns.mean()) / (returns.std() + torch.finfo(torch.float32).eps)
    log_probs = torch.distributions.Categorical(logits=policy(states)).log_prob(actions)
    loss = -(log_probs * returns).sum()
    loss.backward()
    put(t, "reinforce", policy, states=states, actions=actions, rewards=rewards, returns=returns,
        log_probs=log_probs.detach(), loss=loss)
    put_grads(t, "reinforce", policy)


# ---- torch.distributions (tests/stdlib/test_distributions.dsl) ----------------------------
def distributions_case(t):
    D = torch.distributions
    logits = torch.randn(3, 4, requires_grad=True)
    logits.data[1, 2] = float("-inf")  # a category of probability 0: entropy stays finite
    cat = D.Categorical(logits=logits)
    value = torch.tensor([0, 3, 1])
    lp = cat.log_prob(value)
    ent = cat.entropy()
    (lp.sum() + ent.sum()).backward()
    probs = torch.rand(2, 5) + 0.1
    cat_p = D.Categorical(probs=probs)
    loc = torch.randn(4, requires_grad=True)
    scale = (torch.rand(4) + 0.5).requires_grad_()
    normal = D.Normal(loc, scale)
    y = torch.randn(2, 4)
    nlp = normal.log_prob(y)
    nent = normal.entropy()
    (nlp.sum() + nent.sum()).backward()
    bern_logits = torch.randn(5)
    bern = D.Bernoulli(logits=bern_logits)
    bvalue = torch.tensor([1.0, 0.0, 1.0, 1.0, 0.0])
    put(t, "dist", cat_logits=logits.detach(), cat_value=value, cat_log_prob=lp.detach(), cat_entropy=ent.detach(),
        cat_grad_logits=logits.grad, cat_norm_logits=cat.logits.detach(), cat_probs=cat.probs.detach(),
        catp_probs=probs, catp_logits=cat_p.logits, catp_log_prob=cat_p.log_prob(torch.tensor([[4], [0]])),
        normal_loc=loc.detach(), normal_scale=scale.detach(), normal_y=y, normal_log_prob=nlp.detach(),
        normal_entropy=nent.detach(), normal_cdf=normal.cdf(y).detach(), normal_grad_loc=loc.grad,
        normal_grad_scale=scale.grad, bern_logits=bern_logits, bern_value=bvalue,
        bern_log_prob=bern.log_prob(bvalue), bern_entropy=bern.entropy(), bern_probs=bern.probs)


def cases():
    torch.manual_seed(0)
    t = {}
    for case in (unet_case, tcn_case, transformer_case, bert_case, maml_case, pixelcnn_case, mdn_case, simclr_case,
                 reinforce_case, distributions_case):
        case(t)
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
