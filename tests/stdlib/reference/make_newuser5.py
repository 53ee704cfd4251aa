"""Writes newuser5.safetensors: PyTorch 1.13's values at f64 for the fifth round of
new-user training programs (tests/stdlib/train/test_newuser5_*.dsl): for each family a
small model's state_dict under PyTorch's keys prefixed by the case name, its inputs, and
the loss and gradients of one forward/backward step from that init (and, where the
family is about an optimizer, a schedule or weight averaging, the values after it).

    /usr/bin/python3 tests/stdlib/reference/make_newuser5.py

Models mirror the tests' models field for field, so their state_dict keys match.
"""
import copy
import math
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
from torch.distributions import Categorical, MultivariateNormal, Normal
from torch.nn.utils.stateless import functional_call
from torch.optim.swa_utils import SWALR, AveragedModel, update_bn

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from reference_store import put, put_grads  # noqa: E402
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("newuser5.safetensors")
torch.set_default_dtype(torch.float64)


# ---- PPO: GAE, the clipped surrogate, value clipping, entropy (test_newuser5_ppo.dsl) -------
class ActorCritic(nn.Module):
    def __init__(self, obs=4, n_act=3, hidden=16):
        super().__init__()
        self.body = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh())
        self.pi = nn.Linear(hidden, n_act)
        self.v = nn.Linear(hidden, 1)

    def forward(self, x):
        h = self.body(x)
        return Categorical(logits=self.pi(h)), self.v(h).squeeze(-1)


class GaussianPolicy(nn.Module):
    def __init__(self, obs=3, act=2, hidden=16):
        super().__init__()
        self.mu = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh(), nn.Linear(hidden, act))
        self.log_std = nn.Parameter(-0.5 * torch.ones(act))
        self.v = nn.Sequential(nn.Linear(obs, hidden), nn.Tanh(), nn.Linear(hidden, 1))

    def forward(self, x):
        return Normal(self.mu(x), self.log_std.exp()), self.v(x).squeeze(-1)


def gae(rewards, values, dones, last_value, gamma=0.99, lam=0.95):
    adv = torch.zeros_like(rewards)
    last = 0.0
    for t in reversed(range(len(rewards))):
        next_v = last_value if t == len(rewards) - 1 else values[t + 1]
        nonterminal = 1.0 - dones[t]
        delta = rewards[t] + gamma * next_v * nonterminal - values[t]
        last = delta + gamma * lam * nonterminal * last
        adv[t] = last
    return adv, adv + values


def ppo_loss(dist, value, actions, old_logp, adv, returns, old_values, clip=0.2):
    logp = dist.log_prob(actions)
    ent = dist.entropy()
    if logp.dim() > 1:
        logp, ent = logp.sum(-1), ent.sum(-1)
    ratio = (logp - old_logp).exp()
    pg = -torch.min(ratio * adv, ratio.clamp(1 - clip, 1 + clip) * adv).mean()
    v_clipped = old_values + (value - old_values).clamp(-clip, clip)
    v_loss = 0.5 * torch.max((value - returns) ** 2, (v_clipped - returns) ** 2).mean()
    return pg + 0.5 * v_loss - 0.01 * ent.mean()


def ppo_case(t):
    m = ActorCritic()
    put(t, "ppo", m)
    obs = torch.randn(8, 4)
    with torch.no_grad():
        dist, values = m(obs)
        actions = dist.sample()
        old_logp = dist.log_prob(actions) + 0.3 * torch.randn(8)   # a policy some steps old: some ratios clip
    rewards = torch.randn(8)
    dones = torch.tensor([0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
    adv, returns = gae(rewards, values, dones, torch.tensor(0.5))
    old_values = values + 0.3 * torch.randn(8)
    norm_adv = (adv - adv.mean()) / (adv.std() + 1e-8)
    dist, value = m(obs)
    loss = ppo_loss(dist, value, actions, old_logp, norm_adv, returns, old_values)
    loss.backward()
    put(t, "ppo", obs=obs, actions=actions, old_logp=old_logp, rewards=rewards, dones=dones, values=values, adv=adv,
        returns=returns, old_values=old_values, logp=dist.log_prob(actions), entropy=dist.entropy(), loss=loss)
    put_grads(t, "ppo", m)

    g = GaussianPolicy()
    put(t, "gauss", g)
    obs = torch.randn(6, 3)
    with torch.no_grad():
        dist, values = g(obs)
        actions = dist.sample()
        old_logp = dist.log_prob(actions).sum(-1) + 0.2 * torch.randn(6)
    adv, returns, old_values = torch.randn(6), torch.randn(6), values + 0.3 * torch.randn(6)
    dist, value = g(obs)
    loss = ppo_loss(dist, value, actions, old_logp, adv, returns, old_values)
    loss.backward()
    put(t, "gauss", obs=obs, actions=actions, old_logp=old_logp, adv=adv, returns=returns, old_values=old_values,
        logp=dist.log_prob(actions).sum(-1), entropy=dist.entropy().sum(-1), loss=loss)
    put_grads(t, "gauss", g)


# ---- ConvNeXt blocks, AdamW groups, warmup + cosine (test_newuser5_convnext.dsl) ------------
def drop_path(x, p, training):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    mask = x.new_empty((x.shape[0],) + (1,) * (x.dim() - 1)).bernoulli_(keep)
    return x * mask / keep


class DropPath(nn.Module):
    def __init__(self, p=0.0):
        super().__init__()
        self.p = p

    def forward(self, x):
        return drop_path(x, self.p, self.training)


class LayerNorm2d(nn.Module):
    def __init__(self, dim, eps=1e-6):   # ConvNeXt's channels_first LayerNorm
        super().__init__()
        self.weight = nn.Parameter(torch.ones(dim))
        self.bias = nn.Parameter(torch.zeros(dim))
        self.eps = eps

    def forward(self, x):
        return F.layer_norm(x.permute(0, 2, 3, 1), self.weight.shape, self.weight, self.bias, self.eps).permute(0, 3, 1, 2)


class Block(nn.Module):
    def __init__(self, dim, drop_path=0.0, layer_scale_init=1e-6):
        super().__init__()
        self.dwconv = nn.Conv2d(dim, dim, kernel_size=7, padding=3, groups=dim)
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.pwconv1 = nn.Linear(dim, 4 * dim)
        self.act = nn.GELU()
        self.pwconv2 = nn.Linear(4 * dim, dim)
        self.gamma = nn.Parameter(layer_scale_init * torch.ones(dim))
        self.drop_path = DropPath(drop_path)

    def forward(self, x):
        inp = x
        x = self.dwconv(x).permute(0, 2, 3, 1)
        x = self.gamma * self.pwconv2(self.act(self.pwconv1(self.norm(x))))
        return inp + self.drop_path(x.permute(0, 3, 1, 2))


class ConvNeXt(nn.Module):
    def __init__(self, in_chans=3, num_classes=4, dim=8, depth=2, drop_path_rate=0.1, layer_scale_init=0.5):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(in_chans, dim, kernel_size=2, stride=2), LayerNorm2d(dim, eps=1e-6))
        rates = torch.linspace(0, drop_path_rate, depth).tolist()
        self.blocks = nn.Sequential(*[Block(dim, rates[i], layer_scale_init) for i in range(depth)])
        self.norm = nn.LayerNorm(dim, eps=1e-6)
        self.head = nn.Linear(dim, num_classes)

    def forward(self, x):
        return self.head(self.norm(self.blocks(self.stem(x)).mean([-2, -1])))


def warmup_cosine(warmup, total):
    def f(step):
        if step < warmup:
            return (step + 1) / warmup
        progress = (step - warmup) / max(1, total - warmup)
        return 0.5 * (1.0 + math.cos(math.pi * progress))
    return f


def convnext_case(t):
    m = ConvNeXt()
    put(t, "convnext", m)
    x = torch.randn(4, 3, 8, 8)
    y = torch.tensor([0, 3, 1, 2])
    m.eval()   # DropPath draws in training; eval is the same model without it
    loss = F.cross_entropy(m(x), y)
    loss.backward()
    put(t, "convnext", x=x, y=y, loss=loss)
    put_grads(t, "convnext", m)
    decay, no_decay = [], []
    for name, p in m.named_parameters():
        (no_decay if p.ndim <= 1 or name.endswith(".bias") else decay).append(p)
    opt = torch.optim.AdamW([{"params": decay, "weight_decay": 0.05}, {"params": no_decay, "weight_decay": 0.0}],
                            lr=1e-2)
    sched = torch.optim.lr_scheduler.LambdaLR(opt, warmup_cosine(2, 6))
    lrs = []
    for step in range(4):
        if step > 0:
            opt.zero_grad()
            F.cross_entropy(m(x), y).backward()
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr()[0])
    t["convnext.lrs"] = torch.tensor(lrs)
    for k, v in m.state_dict().items():
        t[f"convnext.after.{k}"] = v.clone()
    # SequentialLR: a linear warmup, then cosine
    opt = torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1)
    seq = torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.LinearLR(opt, 0.1, total_iters=3),
                                                      torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)],
                                                milestones=[3])
    seq_lrs = []
    for _ in range(9):
        seq_lrs.append(opt.param_groups[0]["lr"])
        opt.step()
        seq.step()
    t["convnext.seq_lrs"] = torch.tensor(seq_lrs)


# ---- GPT with rotary embeddings, KV cache, tied weights, top-p (test_newuser5_gpt.dsl) ------
def rope_tables(seq_len, head_dim, base=10000.0):
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).double() / head_dim))
    freqs = torch.outer(torch.arange(seq_len).double(), inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


class Attention(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.n_head = n_head
        self.qkv = nn.Linear(d, 3 * d, bias=False)
        self.proj = nn.Linear(d, d, bias=False)

    def forward(self, x, cos, sin, cache=None):
        B, T, C = x.shape
        q, k, v = self.qkv(x).split(C, dim=2)
        q, k, v = (z.view(B, T, self.n_head, C // self.n_head).transpose(1, 2) for z in (q, k, v))
        past = 0 if cache is None else cache[0].shape[2]
        cos, sin = cos[past:past + T], sin[past:past + T]
        q, k = q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin
        if cache is not None:
            k, v = torch.cat([cache[0], k], dim=2), torch.cat([cache[1], v], dim=2)
        att = (q @ k.transpose(-2, -1)) * (1.0 / math.sqrt(k.shape[-1]))
        S = k.shape[2]
        mask = torch.tril(torch.ones(S, S, dtype=torch.bool))[S - T:]
        att = F.softmax(att.masked_fill(~mask, float("-inf")), dim=-1)
        return self.proj((att @ v).transpose(1, 2).contiguous().view(B, T, C)), (k, v)


class GPTBlock(nn.Module):
    def __init__(self, d, n_head):
        super().__init__()
        self.ln1 = nn.LayerNorm(d)
        self.attn = Attention(d, n_head)
        self.ln2 = nn.LayerNorm(d)
        self.mlp = nn.Sequential(nn.Linear(d, 4 * d), nn.GELU(approximate="tanh"), nn.Linear(4 * d, d))

    def forward(self, x, cos, sin, cache=None):
        a, cache = self.attn(self.ln1(x), cos, sin, cache)
        x = x + a
        return x + self.mlp(self.ln2(x)), cache


class GPT(nn.Module):
    def __init__(self, vocab=16, d=16, n_head=2, n_layer=2, block_size=16):
        super().__init__()
        self.tok_emb = nn.Embedding(vocab, d)
        self.blocks = nn.ModuleList([GPTBlock(d, n_head) for _ in range(n_layer)])
        self.ln_f = nn.LayerNorm(d)
        self.lm_head = nn.Linear(d, vocab, bias=False)
        self.lm_head.weight = self.tok_emb.weight
        nn.init.normal_(self.tok_emb.weight, std=0.3)
        cos, sin = rope_tables(block_size, d // n_head)
        self.register_buffer("cos", cos, persistent=False)
        self.register_buffer("sin", sin, persistent=False)

    def forward(self, idx, caches=None):
        x = self.tok_emb(idx)
        new = []
        for i, blk in enumerate(self.blocks):
            x, c = blk(x, self.cos, self.sin, None if caches is None else caches[i])
            new.append(c)
        return self.lm_head(self.ln_f(x)), new


def top_p_filter(logits, top_p):
    sorted_logits, sorted_idx = torch.sort(logits, descending=True, dim=-1)
    cum = torch.cumsum(F.softmax(sorted_logits, dim=-1), dim=-1)
    remove = cum > top_p
    remove[..., 1:] = remove[..., :-1].clone()
    remove[..., 0] = False
    return logits.masked_fill(remove.scatter(-1, sorted_idx, remove), float("-inf"))


def gpt_case(t):
    m = GPT()
    put(t, "gpt", m)
    idx = torch.randint(0, 16, (2, 9))
    logits, _ = m(idx[:, :-1])
    loss = F.cross_entropy(logits.reshape(-1, 16), idx[:, 1:].reshape(-1))
    loss.backward()
    put(t, "gpt", idx=idx, logits=logits, loss=loss, cos=m.cos, sin=m.sin)
    put_grads(t, "gpt", m)
    scores = torch.randn(3, 16) * 2
    put(t, "gpt", scores=scores, top_p=F.softmax(top_p_filter(scores / 0.8, 0.9), dim=-1))


# ---- Perceiver: cross-attention from latents over a padded set (test_newuser5_perceiver.dsl) -
class Perceiver(nn.Module):
    def __init__(self, d_in=3, d_latent=8, n_latents=4, heads=2, n_classes=2):
        super().__init__()
        self.latents = nn.Parameter(torch.randn(n_latents, d_latent) * 0.2)
        self.cross = nn.MultiheadAttention(d_latent, heads, batch_first=True, kdim=d_in, vdim=d_in)
        self.self_attn = nn.MultiheadAttention(d_latent, heads, batch_first=True)
        self.ln1 = nn.LayerNorm(d_latent)
        self.ln2 = nn.LayerNorm(d_latent)
        self.mlp = nn.Sequential(nn.Linear(d_latent, 16), nn.GELU(), nn.Linear(16, d_latent))
        self.head = nn.Linear(d_latent, n_classes)

    def forward(self, x, key_padding_mask=None):
        q = self.latents.unsqueeze(0).expand(x.shape[0], -1, -1)
        h, w = self.cross(q, x, x, key_padding_mask=key_padding_mask)
        h = h + q
        hn = self.ln1(h)
        s, _ = self.self_attn(hn, hn, hn, need_weights=False)
        h = h + s
        h = h + self.mlp(self.ln2(h))
        return self.head(h.mean(dim=1)), w


def perceiver_case(t):
    m = Perceiver()
    with torch.no_grad():   # nonzero biases, so their gradients show
        m.cross.in_proj_bias.normal_(0, 0.1)
        m.self_attn.in_proj_bias.normal_(0, 0.1)
    put(t, "perceiver", m)
    x = torch.randn(3, 5, 3)
    lengths = torch.tensor([5, 3, 2])
    mask = torch.arange(5).unsqueeze(0) >= lengths.unsqueeze(1)
    y = torch.tensor([1, 0, 1])
    out, w = m(x, key_padding_mask=mask)
    loss = F.cross_entropy(out, y)
    loss.backward()
    put(t, "perceiver", x=x, lengths=lengths, y=y, out=out, weights=w, loss=loss)
    put_grads(t, "perceiver", m)


# ---- RealNVP: affine coupling layers with masks (test_newuser5_realnvp.dsl) -----------------
class Coupling(nn.Module):
    def __init__(self, dim, mask, hidden=16):
        super().__init__()
        self.register_buffer("mask", mask)
        self.s = nn.Sequential(nn.Linear(dim, hidden), nn.Tanh(), nn.Linear(hidden, dim), nn.Tanh())
        self.t = nn.Sequential(nn.Linear(dim, hidden), nn.ReLU(), nn.Linear(hidden, dim))

    def forward(self, x):
        xm = x * self.mask
        s = self.s(xm) * (1 - self.mask)
        t = self.t(xm) * (1 - self.mask)
        return xm + (1 - self.mask) * (x * torch.exp(s) + t), s.sum(dim=1)


class RealNVP(nn.Module):
    def __init__(self, dim=4, n=4):
        super().__init__()
        self.layers = nn.ModuleList([Coupling(dim, torch.tensor([float((i + j) % 2) for j in range(dim)]))
                                     for i in range(n)])

    def forward(self, x):
        log_det = torch.zeros(x.shape[0])
        for layer in self.layers:
            x, ld = layer(x)
            log_det = log_det + ld
        return x, log_det

    def log_prob(self, x):
        z, ld = self(x)
        return MultivariateNormal(torch.zeros(z.shape[1]), torch.eye(z.shape[1])).log_prob(z) + ld


def realnvp_case(t):
    m = RealNVP()
    put(t, "realnvp", m)
    x = torch.randn(6, 4)
    lp = m.log_prob(x)
    z, ld = m(x)
    loss = -lp.mean()
    loss.backward()
    put(t, "realnvp", x=x, z=z, log_det=ld, log_prob=lp, loss=loss)
    put_grads(t, "realnvp", m)


# ---- hypernetwork: generated weights through functional_call (test_newuser5_hypernet.dsl) ---
class Target(nn.Module):
    def __init__(self, d_in=4, hidden=8, d_out=2):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.fc2 = nn.Linear(hidden, d_out)

    def forward(self, x):
        return self.fc2(F.relu(self.fc1(x)))


class HyperNet(nn.Module):
    def __init__(self, target, z_dim=3):
        super().__init__()
        self.shapes = [(n, p.shape) for n, p in target.named_parameters()]
        self.numels = [p.numel() for p in target.parameters()]
        self.net = nn.Sequential(nn.Linear(z_dim, 32), nn.ReLU(), nn.Linear(32, sum(self.numels)))

    def forward(self, z):
        chunks = self.net(z).split(self.numels, dim=-1)
        return {name: c.view(shape) for (name, shape), c in zip(self.shapes, chunks)}


class ConvHyper(nn.Module):
    def __init__(self, z_dim=4, c_in=2, c_out=3, k=3):
        super().__init__()
        self.shape = (c_out, c_in, k, k)
        self.w = nn.Linear(z_dim, c_out * c_in * k * k)
        self.b = nn.Linear(z_dim, c_out)

    def forward(self, x, z):
        return F.conv2d(x, self.w(z).view(self.shape), self.b(z), padding=1)


def hypernet_case(t):
    target = Target()
    h = HyperNet(target)
    put(t, "hyper", h)
    z = torch.randn(3)
    x = torch.randn(5, 4)
    y = torch.randn(5, 2)
    out = functional_call(target, h(z), (x,))
    loss = F.mse_loss(out, y)
    loss.backward()
    put(t, "hyper", z=z, x=x, y=y, out=out, loss=loss)
    put_grads(t, "hyper", h)
    ch = ConvHyper()
    put(t, "convhyper", ch)
    x = torch.randn(2, 2, 5, 5)
    z = torch.randn(4)
    out = ch(x, z)
    out.pow(2).mean().backward()
    put(t, "convhyper", x=x, z=z, out=out)
    put_grads(t, "convhyper", ch)


# ---- triplet loss with hard mining (test_newuser5_triplet.dsl) ------------------------------
def mine_hard(e, labels):
    d = torch.cdist(e, e)
    same = labels.unsqueeze(0) == labels.unsqueeze(1)
    pos_mask = same & ~torch.eye(len(labels), dtype=torch.bool)
    hardest_pos = (d * pos_mask).argmax(dim=1)
    _, neg = d.masked_fill(same, float("inf")).topk(1, dim=1, largest=False)
    return d, hardest_pos, neg.squeeze(1)


def triplet_case(t):
    emb = nn.Sequential(nn.Linear(4, 16), nn.ReLU(), nn.Linear(16, 3))
    put(t, "triplet", emb)
    x = torch.randn(12, 4)
    labels = torch.tensor([0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3])
    e = F.normalize(emb(x), dim=1)
    d, pos, neg = mine_hard(e, labels)
    loss = nn.TripletMarginLoss(margin=0.5, p=2)(e, e[pos], e[neg])
    loss.backward()
    put(t, "triplet", x=x, labels=labels, dist=d, pos=pos, neg=neg, loss=loss,
        swap=F.triplet_margin_loss(e, e[pos], e[neg], margin=0.5, swap=True, reduction="none"),
        cosine=nn.TripletMarginWithDistanceLoss(distance_function=lambda a, b: 1 - F.cosine_similarity(a, b),
                                                margin=0.3)(e, e[pos], e[neg]))
    put_grads(t, "triplet", emb)


# ---- WaveNet: causal dilated convolutions, gated units, skips (test_newuser5_wavenet.dsl) ---
class CausalConv1d(nn.Module):
    def __init__(self, c_in, c_out, kernel_size, dilation=1):
        super().__init__()
        self.pad = (kernel_size - 1) * dilation
        self.conv = nn.Conv1d(c_in, c_out, kernel_size, dilation=dilation)

    def forward(self, x):
        return self.conv(F.pad(x, (self.pad, 0)))


class ResidualBlock(nn.Module):
    def __init__(self, res_ch, skip_ch, dilation):
        super().__init__()
        self.filter = CausalConv1d(res_ch, res_ch, 2, dilation)
        self.gate = CausalConv1d(res_ch, res_ch, 2, dilation)
        self.res = nn.Conv1d(res_ch, res_ch, 1)
        self.skip = nn.Conv1d(res_ch, skip_ch, 1)

    def forward(self, x):
        z = torch.tanh(self.filter(x)) * torch.sigmoid(self.gate(x))
        return x + self.res(z), self.skip(z)


class WaveNet(nn.Module):
    def __init__(self, in_ch=1, res_ch=8, skip_ch=8, dilations=(1, 2, 4, 8), out_ch=1):
        super().__init__()
        self.inp = CausalConv1d(in_ch, res_ch, 2)
        self.blocks = nn.ModuleList([ResidualBlock(res_ch, skip_ch, d) for d in dilations])
        self.out = nn.Sequential(nn.ReLU(), nn.Conv1d(skip_ch, skip_ch, 1), nn.ReLU(), nn.Conv1d(skip_ch, out_ch, 1))

    def forward(self, x):
        x = self.inp(x)
        skips = 0
        for b in self.blocks:
            x, s = b(x)
            skips = skips + s
        return self.out(skips)


def wavenet_case(t):
    m = WaveNet()
    put(t, "wavenet", m)
    x = torch.randn(2, 1, 24)
    y = m(x)
    loss = F.mse_loss(y[:, :, :-1], x[:, :, 1:])
    loss.backward()
    put(t, "wavenet", x=x, y=y, loss=loss)
    put_grads(t, "wavenet", m)


# ---- FixMatch: pseudo-labels, SGD, an EMA by AveragedModel, SWALR (test_newuser5_fixmatch.dsl)
def fixmatch_net():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.BatchNorm2d(4), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                         nn.Flatten(), nn.Linear(4, 3))


def fixmatch_loss(m, xl, yl, xu_weak, xu_strong, threshold):
    logits = m(torch.cat([xl, xu_weak, xu_strong]))
    logits_x = logits[:len(xl)]
    lw, ls = logits[len(xl):].chunk(2)
    max_probs, targets = torch.softmax(lw.detach(), dim=-1).max(dim=-1)
    mask = max_probs.ge(threshold).double()
    lu = (F.cross_entropy(ls, targets, reduction="none") * mask).mean()
    return F.cross_entropy(logits_x, yl) + lu, mask, targets


def fixmatch_case(t):
    m = fixmatch_net()
    with torch.no_grad():
        m[5].weight.mul_(8)   # confident enough that the threshold keeps some pseudo-labels
    put(t, "fixmatch", m)
    xl, yl = torch.randn(4, 1, 6, 6), torch.tensor([0, 1, 2, 1])
    xu_weak = torch.randn(6, 1, 6, 6)
    xu_strong = xu_weak.flip(-1) + 0.3 * torch.randn(6, 1, 6, 6)
    put(t, "fixmatch", xl=xl, yl=yl, xu_weak=xu_weak, xu_strong=xu_strong)
    ema = AveragedModel(m, avg_fn=lambda avg, p, n: 0.9 * avg + 0.1 * p)
    opt = torch.optim.SGD(m.parameters(), lr=0.03, momentum=0.9, nesterov=True, weight_decay=5e-4)
    for step in range(3):
        loss, mask, targets = fixmatch_loss(m, xl, yl, xu_weak, xu_strong, 0.6)
        opt.zero_grad()
        loss.backward()
        if step == 0:
            put(t, "fixmatch", loss=loss, mask=mask, targets=targets)
            put_grads(t, "fixmatch", m)
        opt.step()
        ema.update_parameters(m)
    for k, v in m.state_dict().items():
        t[f"fixmatch.after.{k}"] = v.clone()
    for k, v in ema.state_dict().items():
        t[f"fixmatch.ema.{k}"] = v.clone()
    update_bn([xl, (xu_weak, None)], ema)
    for k, v in ema.state_dict().items():
        t[f"fixmatch.bn.{k}"] = v.clone()
    # SWALR from lr 0.1 to 0.01 over 3 steps, cos and linear, two groups
    for strategy in ("cos", "linear"):
        opt = torch.optim.SGD([{"params": [torch.zeros(1, requires_grad=True)]},
                               {"params": [torch.zeros(1, requires_grad=True)], "lr": 0.2}], lr=0.1)
        sched = SWALR(opt, swa_lr=[0.01, 0.05], anneal_epochs=3, anneal_strategy=strategy)
        lrs = []
        for _ in range(6):
            lrs.append([g["lr"] for g in opt.param_groups])
            opt.step()
            sched.step()
        t[f"fixmatch.swalr_{strategy}"] = torch.tensor(lrs)


# ---- MAML over two inner steps with create_graph, and Reptile (test_newuser5_maml.dsl) ------
def maml_net():
    return nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))


def maml_case(t):
    net = maml_net()
    put(t, "maml", net)
    xs, xq = torch.randn(2, 5, 1), torch.randn(2, 5, 1)
    amp, phase = torch.tensor([1.0, 2.0]), torch.tensor([0.0, 1.0])
    ys = amp[:, None, None] * torch.sin(xs + phase[:, None, None])
    yq = amp[:, None, None] * torch.sin(xq + phase[:, None, None])
    meta_opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    meta_opt.zero_grad()
    total = 0
    for k in range(2):
        params = dict(net.named_parameters())
        for _ in range(2):
            loss = F.mse_loss(functional_call(net, params, (xs[k],)), ys[k])
            grads = torch.autograd.grad(loss, list(params.values()), create_graph=True)
            params = {n: p - 0.1 * g for (n, p), g in zip(params.items(), grads)}
        total = total + F.mse_loss(functional_call(net, params, (xq[k],)), yq[k])
    meta_loss = total / 2
    meta_loss.backward()
    put(t, "maml", xs=xs, ys=ys, xq=xq, yq=yq, meta_loss=meta_loss)
    put_grads(t, "maml", net)
    meta_opt.step()
    for k, v in net.state_dict().items():
        t[f"maml.after.{k}"] = v.clone()
    # Reptile: three SGD steps on a copy, then move the weights halfway to it
    fast = copy.deepcopy(net)
    inner = torch.optim.SGD(fast.parameters(), lr=0.05)
    for _ in range(3):
        inner.zero_grad()
        F.mse_loss(fast(xs[0]), ys[0]).backward()
        inner.step()
    with torch.no_grad():
        for p, fp in zip(net.parameters(), fast.parameters()):
            p.add_(0.5 * (fp - p))
    for k, v in net.state_dict().items():
        t[f"maml.reptile.{k}"] = v.clone()


def cases():
    torch.manual_seed(0)
    t = {}
    for case in (ppo_case, convnext_case, gpt_case, perceiver_case, realnvp_case, hypernet_case, triplet_case,
                 wavenet_case, fixmatch_case, maml_case):
        case(t)
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
