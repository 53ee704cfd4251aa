"""Writes newuser6.safetensors: PyTorch 1.13's values at f64 for the sixth round of
new-user training programs (tests/stdlib/train/test_newuser6_*.dsl): for each family a
small model's state_dict under PyTorch's keys prefixed by the case name, its inputs, and
the loss and gradients of one forward/backward step from that init (and, where the
family is about an optimizer, a schedule or a solver, the values after it).

    /usr/bin/python3 tests/stdlib/reference/make_newuser6.py

Models mirror the tests' models field for field, so their state_dict keys match.
"""
import math
import pathlib
import sys

import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.utils.checkpoint

sys.path.insert(0, str(pathlib.Path(__file__).parents[3] / "scripts" / "reference"))
from reference_store import put, put_grads  # noqa: E402
from safetensors_file import write_safetensors  # noqa: E402

OUT = pathlib.Path(__file__).with_name("newuser6.safetensors")
torch.set_default_dtype(torch.float64)


# ---- a diagonal state-space (S4D / Mamba-like) block and linear attention (test_newuser6_ssm.dsl) ----
class DiagSSM(nn.Module):
    """h_t = exp(dt A) h_{t-1} + dt B u_t, y_t = C h_t + D u_t per channel, A = -exp(log_a) diagonal;
    all steps at once: h_t = exp(dt A t) cumsum_s(exp(-dt A s) dt B u_s)."""

    def __init__(self, d, n):
        super().__init__()
        self.log_a = nn.Parameter(torch.log(0.5 + torch.rand(d, n)))
        self.B = nn.Parameter(0.5 * torch.randn(d, n))
        self.C = nn.Parameter(0.5 * torch.randn(d, n))
        self.log_dt = nn.Parameter(torch.log(torch.full((d,), 0.1)))
        self.D = nn.Parameter(torch.ones(d))

    def forward(self, u):
        dt = self.log_dt.exp()
        dA = dt[:, None] * -self.log_a.exp()
        t = torch.arange(u.shape[1], dtype=u.dtype)
        decay = torch.exp(dA[None] * t[:, None, None])
        x = (dt[:, None] * self.B) * u[..., None]
        h = decay * torch.cumsum(x / decay, dim=1)
        return (h * self.C).sum(-1) + self.D * u


class MambaBlock(nn.Module):
    def __init__(self, d, n=4, expand=2, kernel=3):
        super().__init__()
        e = expand * d
        self.norm = nn.LayerNorm(d)
        self.in_proj = nn.Linear(d, 2 * e)
        self.conv = nn.Conv1d(e, e, kernel, groups=e, padding=kernel - 1)
        self.ssm = DiagSSM(e, n)
        self.out_proj = nn.Linear(e, d)

    def forward(self, x):
        T = x.shape[1]
        u, z = self.in_proj(self.norm(x)).chunk(2, dim=-1)
        u = F.silu(self.conv(u.transpose(1, 2))[..., :T].transpose(1, 2))
        return x + self.out_proj(self.ssm(u) * F.silu(z))


class LinearAttention(nn.Module):
    def __init__(self, d, heads):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(d, 3 * d)
        self.out = nn.Linear(d, d)

    def forward(self, x):
        B, T, C = x.shape
        q, k, v = self.qkv(x).chunk(3, dim=-1)
        q, k, v = (z.view(B, T, self.heads, C // self.heads).transpose(1, 2) for z in (q, k, v))
        q, k = F.elu(q) + 1, F.elu(k) + 1
        kv = torch.einsum("bhtd,bhte->bhtde", k, v).cumsum(2)
        num = torch.einsum("bhtd,bhtde->bhte", q, kv)
        den = (q * k.cumsum(2)).sum(-1, keepdim=True) + 1e-6
        return self.out((num / den).transpose(1, 2).reshape(B, T, C))


class SSMNet(nn.Module):
    def __init__(self, vocab=6, d=8, heads=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, d)
        self.mamba = MambaBlock(d)
        self.attn = LinearAttention(d, heads)
        self.head = nn.Linear(d, vocab)

    def forward(self, tokens):
        x = self.mamba(self.embed(tokens))
        return self.head(x + self.attn(x))


def ssm_case(t):
    m = SSMNet()
    put(t, "ssm", m)
    tokens = torch.randint(0, 6, (2, 7))
    target = torch.randint(0, 6, (2, 7))
    logits = m(tokens)
    loss = F.cross_entropy(logits.reshape(-1, 6), target.reshape(-1))
    loss.backward()
    put(t, "ssm", tokens=tokens, target=target, logits=logits, loss=loss)
    put_grads(t, "ssm", m)


# ---- EfficientNet MBConv blocks, mixup, OneCycleLR, clipping (test_newuser6_efficientnet.dsl) -------
class SqueezeExcite(nn.Module):
    def __init__(self, c, reduced):
        super().__init__()
        self.reduce = nn.Conv2d(c, reduced, 1)
        self.expand = nn.Conv2d(reduced, c, 1)

    def forward(self, x):
        s = F.adaptive_avg_pool2d(x, 1)
        return x * torch.sigmoid(self.expand(F.silu(self.reduce(s))))


def drop_path(x, p, training):
    if p == 0.0 or not training:
        return x
    keep = 1 - p
    mask = torch.empty(x.shape[0], 1, 1, 1, dtype=x.dtype).bernoulli_(keep)
    return x * mask / keep


class MBConv(nn.Module):
    def __init__(self, c_in, c_out, expand=4, stride=1, drop=0.0):
        super().__init__()
        mid = c_in * expand
        self.use_res = stride == 1 and c_in == c_out
        self.drop = drop
        self.expand = nn.Sequential(nn.Conv2d(c_in, mid, 1, bias=False), nn.BatchNorm2d(mid, momentum=None), nn.SiLU())
        self.dw = nn.Sequential(nn.Conv2d(mid, mid, 3, stride=stride, padding=1, groups=mid, bias=False),
                                nn.BatchNorm2d(mid, momentum=None), nn.SiLU())
        self.se = SqueezeExcite(mid, max(1, c_in // 4))
        self.project = nn.Sequential(nn.Conv2d(mid, c_out, 1, bias=False), nn.BatchNorm2d(c_out, momentum=None))

    def forward(self, x):
        y = self.project(self.se(self.dw(self.expand(x))))
        if self.use_res:
            return x + drop_path(y, self.drop, self.training)
        return y


class EfficientNet(nn.Module):
    def __init__(self, num_classes=3, drop=0.2):
        super().__init__()
        self.stem = nn.Sequential(nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8, momentum=None),
                                  nn.SiLU())
        self.blocks = nn.Sequential(MBConv(8, 8, drop=drop), MBConv(8, 12, stride=2), MBConv(12, 12, drop=drop))
        self.head = nn.Linear(12, num_classes)

    def forward(self, x):
        return self.head(F.adaptive_avg_pool2d(self.blocks(self.stem(x)), 1).flatten(1))


def efficientnet_case(t):
    m = EfficientNet()
    put(t, "effnet", m)
    x1, x2 = torch.randn(4, 3, 8, 8), torch.randn(4, 3, 8, 8)
    y1, y2 = torch.tensor([0, 2, 1, 2]), torch.tensor([1, 0, 0, 2])
    perm = torch.tensor([2, 0, 3, 1])
    lam = 0.7
    m.train()
    for blk in m.blocks:   # the stochastic depth draws are the test's own: checked with p = 0 here
        blk.drop = 0.0
    crit = nn.CrossEntropyLoss(label_smoothing=0.1)
    opt = torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9, nesterov=True, weight_decay=1e-4)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=0.2, total_steps=6, pct_start=0.3)
    lrs, moms, norms, losses = [], [], [], []
    for step, (x, y) in enumerate([(x1, y1), (x2, y2), (x1, y2)]):
        mixed = lam * x + (1 - lam) * x[perm]
        out = m(mixed)
        loss = lam * crit(out, y) + (1 - lam) * crit(out, y[perm])
        opt.zero_grad(set_to_none=True)
        loss.backward()
        if step == 0:
            put(t, "effnet", mixed=mixed, logits=out, loss=loss)
            put_grads(t, "effnet", m)
        norms.append(nn.utils.clip_grad_norm_(m.parameters(), max_norm=1.0))
        opt.step()
        sched.step()
        losses.append(loss.detach())
        lrs.append(opt.param_groups[0]["lr"])
        moms.append(opt.param_groups[0]["momentum"])
    put(t, "effnet", x1=x1, x2=x2, y1=y1, y2=y2, perm=perm, lrs=torch.tensor(lrs), moms=torch.tensor(moms),
        norms=torch.stack(norms), losses=torch.stack(losses))
    for k, v in m.state_dict().items():
        t[f"effnet.after.{k}"] = v.clone()
    m.eval()
    t["effnet.eval_logits"] = m(x1).detach()


# ---- a seq2seq nn.Transformer with masks, greedy decoding and beam search (test_newuser6_seq2seq.dsl) ----
BOS, EOS, PAD = 1, 2, 0


class Seq2Seq(nn.Module):
    def __init__(self, vocab=7, d=8, nhead=2, max_len=12):
        super().__init__()
        self.d = d
        self.src_embed = nn.Embedding(vocab, d, padding_idx=PAD)
        self.tgt_embed = nn.Embedding(vocab, d, padding_idx=PAD)
        self.pos = nn.Parameter(torch.randn(max_len, d))
        self.transformer = nn.Transformer(d_model=d, nhead=nhead, num_encoder_layers=1, num_decoder_layers=1,
                                          dim_feedforward=16, dropout=0.0, batch_first=True)
        self.generator = nn.Linear(d, vocab)

    def encode(self, src):
        x = self.src_embed(src) * math.sqrt(self.d) + self.pos[: src.shape[1]]
        return self.transformer.encoder(x, src_key_padding_mask=src == PAD)

    def decode(self, tgt, memory, src_pad):
        T = tgt.shape[1]
        y = self.tgt_embed(tgt) * math.sqrt(self.d) + self.pos[:T]
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        return self.generator(self.transformer.decoder(y, memory, tgt_mask=mask, tgt_key_padding_mask=tgt == PAD,
                                                       memory_key_padding_mask=src_pad))

    def forward(self, src, tgt):
        T = tgt.shape[1]
        mask = nn.Transformer.generate_square_subsequent_mask(T)
        out = self.transformer(self.src_embed(src) * math.sqrt(self.d) + self.pos[: src.shape[1]],
                               self.tgt_embed(tgt) * math.sqrt(self.d) + self.pos[:T], tgt_mask=mask,
                               src_key_padding_mask=src == PAD, tgt_key_padding_mask=tgt == PAD,
                               memory_key_padding_mask=src == PAD)
        return self.generator(out)


def greedy(m, src, max_len):
    memory = m.encode(src)
    ys = torch.full((src.shape[0], 1), BOS, dtype=torch.long)
    for _ in range(max_len - 1):
        nxt = m.decode(ys, memory, src == PAD)[:, -1].argmax(-1)
        ys = torch.cat([ys, nxt[:, None]], dim=1)
    return ys


def beam_search(m, src, width, max_len):
    """one source sentence [1, S]; beams end at EOS; scores are summed log-probs"""
    memory = m.encode(src)
    beams = [([BOS], 0.0)]
    done = []
    for _ in range(max_len - 1):
        cand = []
        for toks, score in beams:
            logp = F.log_softmax(m.decode(torch.tensor([toks]), memory, src == PAD)[0, -1], -1)
            top = logp.topk(width)
            for lp, k in zip(top.values.tolist(), top.indices.tolist()):
                cand.append((toks + [k], score + lp))
        cand.sort(key=lambda c: -c[1])
        beams = []
        for toks, score in cand[:width]:
            (done if toks[-1] == EOS else beams).append((toks, score))
        if not beams:
            break
    best = max(done + beams, key=lambda c: c[1])
    return best


def seq2seq_case(t):
    m = Seq2Seq()
    m.eval()
    put(t, "s2s", m)
    src = torch.tensor([[3, 4, 5, 6, 2], [5, 3, 2, 0, 0]])
    tgt_in = torch.tensor([[1, 6, 5, 4, 3], [1, 3, 5, 0, 0]])
    tgt_out = torch.tensor([[6, 5, 4, 3, 2], [3, 5, 2, 0, 0]])
    logits = m(src, tgt_in)
    loss = F.cross_entropy(logits.reshape(-1, 7), tgt_out.reshape(-1), ignore_index=PAD)
    loss.backward()
    put(t, "s2s", src=src, tgt_in=tgt_in, tgt_out=tgt_out, logits=logits, loss=loss)
    put_grads(t, "s2s", m)
    with torch.no_grad():
        t["s2s.greedy"] = greedy(m, src, 6)
        toks, score = beam_search(m, src[:1], 3, 6)
        t["s2s.beam"] = torch.tensor(toks)
        t["s2s.beam_score"] = torch.tensor(score)


# ---- PointNet with a T-Net and Deep Sets on point clouds (test_newuser6_pointnet.dsl) ---------------
class TNet(nn.Module):
    def __init__(self, k=3):
        super().__init__()
        self.k = k
        self.conv = nn.Sequential(nn.Conv1d(k, 16, 1), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1), nn.ReLU())
        self.fc = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Linear(16, k * k))

    def forward(self, x):
        f = self.conv(x).max(dim=2)[0]
        return self.fc(f).view(-1, self.k, self.k) + torch.eye(self.k).unsqueeze(0)


class PointNet(nn.Module):
    def __init__(self, num_classes=3):
        super().__init__()
        self.tnet = TNet(3)
        self.mlp = nn.Sequential(nn.Conv1d(3, 16, 1), nn.BatchNorm1d(16), nn.ReLU(), nn.Conv1d(16, 32, 1),
                                 nn.BatchNorm1d(32), nn.ReLU())
        self.head = nn.Sequential(nn.Linear(32, 16), nn.ReLU(), nn.Dropout(0.0), nn.Linear(16, num_classes))

    def forward(self, pts):          # pts [B, N, 3]
        trans = self.tnet(pts.transpose(1, 2))
        x = torch.bmm(pts, trans).transpose(1, 2)
        x = torch.max(self.mlp(x), 2, keepdim=False)[0]
        return self.head(x), trans


def orthogonality(trans):
    I = torch.eye(trans.shape[1]).expand(trans.shape[0], -1, -1)
    return torch.linalg.norm(I - torch.bmm(trans, trans.transpose(1, 2)), dim=(1, 2)).mean()


class DeepSets(nn.Module):
    def __init__(self, d_in=3, hidden=16, out=1):
        super().__init__()
        self.phi = nn.Sequential(nn.Linear(d_in, hidden), nn.ELU(), nn.Linear(hidden, hidden))
        self.rho = nn.Sequential(nn.ELU(), nn.Linear(hidden, hidden), nn.ELU(), nn.Linear(hidden, out))

    def forward(self, x, mask):      # x [B, N, d], mask [B, N] true where a point is present
        h = self.phi(x) * mask.unsqueeze(-1)
        return self.rho(h.sum(1)).squeeze(-1)


def pointnet_case(t):
    m = PointNet()
    put(t, "pointnet", m)
    pts = torch.randn(4, 10, 3)
    y = torch.tensor([0, 2, 1, 1])
    m.train()
    logits, trans = m(pts)
    reg = orthogonality(trans)
    loss = F.cross_entropy(logits, y) + 0.001 * reg
    loss.backward()
    put(t, "pointnet", pts=pts, y=y, logits=logits, trans=trans, reg=reg, loss=loss)
    put_grads(t, "pointnet", m)
    for k, v in m.state_dict().items():
        if "running" in k:
            t[f"pointnet.after.{k}"] = v.clone()
    ds = DeepSets()
    put(t, "deepsets", ds)
    x = torch.randn(3, 5, 3)
    mask = torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1], [1, 0, 0, 0, 0]]).bool()
    target = torch.randn(3)
    out = ds(x, mask)
    loss = F.mse_loss(out, target)
    loss.backward()
    put(t, "deepsets", x=x, mask=mask, target=target, out=out, loss=loss)
    put_grads(t, "deepsets", ds)


# ---- wide & deep / neural collaborative filtering with EmbeddingBag (test_newuser6_wide_deep.dsl) ----
class WideDeep(nn.Module):
    def __init__(self, n_users=10, n_items=12, n_tags=15, d=6):
        super().__init__()
        self.user = nn.Embedding(n_users, d)
        self.item = nn.Embedding(n_items, d)
        self.tags = nn.EmbeddingBag(n_tags, d, mode="sum", sparse=False)
        self.wide = nn.EmbeddingBag(n_tags, 1, mode="sum")
        self.gmf_out = nn.Linear(d, 1, bias=False)
        self.mlp = nn.Sequential(nn.Linear(3 * d, 16), nn.ReLU(), nn.Linear(16, 8), nn.ReLU(), nn.Linear(8, 1))

    def forward(self, users, items, tag_ids, offsets, tag_weights):
        u, i = self.user(users), self.item(items)
        t = self.tags(tag_ids, offsets, per_sample_weights=tag_weights)
        gmf = self.gmf_out(u * i)
        deep = self.mlp(torch.cat([u, i, t], dim=1))
        wide = self.wide(tag_ids, offsets)
        return (gmf + deep + wide).squeeze(1)


def wide_deep_case(t):
    m = WideDeep()
    put(t, "wd", m)
    users = torch.tensor([0, 3, 7, 9, 3])
    items = torch.tensor([1, 1, 11, 4, 0])
    tag_ids = torch.tensor([2, 5, 5, 9, 0, 14, 3, 7, 7, 1])
    offsets = torch.tensor([0, 3, 4, 4, 7])      # the third bag is empty
    tag_weights = torch.rand(10)
    labels = torch.tensor([1.0, 0.0, 0.0, 1.0, 0.0])
    logits = m(users, items, tag_ids, offsets, tag_weights)
    crit = nn.BCEWithLogitsLoss(pos_weight=torch.tensor([3.0]))
    loss = crit(logits, labels)
    loss.backward()
    put(t, "wd", users=users, items=items, tag_ids=tag_ids, offsets=offsets, tag_weights=tag_weights, labels=labels,
        logits=logits, loss=loss)
    put_grads(t, "wd", m)
    # the other modes and a 2-D input (fixed-size bags, no offsets)
    bag = nn.EmbeddingBag(15, 4, mode="mean")
    put(t, "bag_mean", bag)
    t["bag_mean.out"] = bag(tag_ids, offsets).detach()
    t["bag_mean.out_last"] = F.embedding_bag(tag_ids, bag.weight, torch.tensor([0, 3, 4, 4, 7, 10]), mode="mean",
                                             include_last_offset=True).detach()
    t["bag_max.out2d"] = F.embedding_bag(tag_ids.view(5, 2), bag.weight, mode="max").detach()


# ---- a Gaussian process with learned hyperparameters, LBFGS strong Wolfe (test_newuser6_gp.dsl) ------
class GP(nn.Module):
    def __init__(self):
        super().__init__()
        self.log_lengthscale = nn.Parameter(torch.tensor(0.0))
        self.log_signal = nn.Parameter(torch.tensor(0.0))
        self.log_noise = nn.Parameter(torch.tensor(-1.0))

    def kernel(self, a, b):
        d2 = (a.unsqueeze(1) - b.unsqueeze(0)).pow(2).sum(-1)
        return self.log_signal.exp() ** 2 * torch.exp(-0.5 * d2 / self.log_lengthscale.exp() ** 2)

    def nll(self, x, y):
        n = x.shape[0]
        K = self.kernel(x, x) + (self.log_noise.exp() ** 2 + 1e-6) * torch.eye(n)
        L = torch.linalg.cholesky(K)
        alpha = torch.cholesky_solve(y.unsqueeze(1), L)
        return (0.5 * (y.unsqueeze(1) * alpha).sum() + torch.log(torch.diagonal(L)).sum()
                + 0.5 * n * math.log(2 * math.pi)) / n

    def predict(self, x, y, xs):
        n = x.shape[0]
        K = self.kernel(x, x) + (self.log_noise.exp() ** 2 + 1e-6) * torch.eye(n)
        L = torch.linalg.cholesky(K)
        Ks = self.kernel(x, xs)
        mean = Ks.T @ torch.cholesky_solve(y.unsqueeze(1), L)
        v = torch.linalg.solve_triangular(L, Ks, upper=False)
        var = self.log_signal.exp() ** 2 - (v * v).sum(0)
        return mean.squeeze(1), var


def gp_case(t):
    gp = GP()
    x = torch.linspace(-3, 3, 15).unsqueeze(1)
    y = torch.sin(2 * x).squeeze(1) + 0.1 * torch.randn(15)
    loss = gp.nll(x, y)
    loss.backward()
    put(t, "gp", x=x, y=y, nll=loss)
    put_grads(t, "gp", gp)
    opt = torch.optim.LBFGS(gp.parameters(), lr=1, max_iter=20, history_size=10, line_search_fn="strong_wolfe")

    def closure():
        opt.zero_grad()
        loss = gp.nll(x, y)
        loss.backward()
        return loss

    first = [opt.step(closure)]
    state = opt.state[opt._params[0]]
    t["gp.step1"] = torch.stack([p.detach().clone() for p in gp.parameters()])
    t["gp.func_evals1"] = torch.tensor(state["func_evals"])
    t["gp.n_iter1"] = torch.tensor(state["n_iter"])
    first.append(opt.step(closure))
    t["gp.first_losses"] = torch.stack([f.detach() for f in first])
    t["gp.step2"] = torch.stack([p.detach().clone() for p in gp.parameters()])
    t["gp.final_nll"] = gp.nll(x, y).detach()
    xs = torch.tensor([[-2.5], [0.3], [4.0]])
    mean, var = gp.predict(x, y, xs)
    put(t, "gp", xs=xs, mean=mean, var=var)
    A = torch.randn(4, 4)
    S = A @ A.T + torch.eye(4)
    B = torch.randn(2, 4, 3, requires_grad=True)
    Lfac = torch.linalg.cholesky(S).requires_grad_()
    X = torch.cholesky_solve(B, Lfac)
    g = torch.randn(2, 4, 3)
    (X * g).sum().backward()
    put(t, "cs", S=S, B=B, X=X, g=g, grad_B=B.grad, inverse=torch.cholesky_inverse(Lfac))


# ---- QR-DQN: quantile regression with the quantile Huber loss (test_newuser6_qrdqn.dsl) -------------
class QRNet(nn.Module):
    def __init__(self, obs=4, n_actions=3, n_quantiles=8, hidden=16):
        super().__init__()
        self.n_actions, self.n_quantiles = n_actions, n_quantiles
        self.net = nn.Sequential(nn.Linear(obs, hidden), nn.ReLU(), nn.Linear(hidden, n_actions * n_quantiles))

    def forward(self, x):
        return self.net(x).view(-1, self.n_actions, self.n_quantiles)


def quantile_huber_loss(pred, target, kappa=1.0):
    """pred [B, N] quantiles of Q(s, a), target [B, N'] of r + gamma Q'(s', a*)"""
    n = pred.shape[1]
    taus = (torch.arange(n, dtype=pred.dtype) + 0.5) / n
    u = target.unsqueeze(1) - pred.unsqueeze(2)                     # [B, N, N']
    huber = F.smooth_l1_loss(pred.unsqueeze(2).expand_as(u), target.unsqueeze(1).expand_as(u), reduction="none",
                             beta=kappa)
    weight = (taus.view(1, -1, 1) - (u.detach() < 0).to(pred.dtype)).abs()
    return (weight * huber / kappa).sum(1).mean(1).mean()


def qrdqn_case(t):
    net = QRNet()
    target_net = QRNet()
    target_net.load_state_dict(net.state_dict())
    put(t, "qr", net)
    obs, next_obs = torch.randn(6, 4), torch.randn(6, 4)
    actions = torch.tensor([0, 2, 1, 1, 0, 2])
    rewards = torch.randn(6)
    dones = torch.tensor([0.0, 0.0, 1.0, 0.0, 0.0, 1.0])
    gamma = 0.9
    with torch.no_grad():
        next_q = target_net(next_obs)
        best = next_q.mean(2).argmax(1)
        next_quantiles = next_q[torch.arange(6), best]
        target = rewards.unsqueeze(1) + gamma * (1 - dones.unsqueeze(1)) * next_quantiles
    pred = net(obs)[torch.arange(6), actions]
    loss = quantile_huber_loss(pred, target)
    loss.backward()
    put(t, "qr", obs=obs, next_obs=next_obs, actions=actions, rewards=rewards, dones=dones, target=target, pred=pred,
        loss=loss)
    put_grads(t, "qr", net)
    opt = torch.optim.Adam(net.parameters(), lr=1e-2)
    opt.step()
    for k, v in net.state_dict().items():
        t[f"qr.after.{k}"] = v.clone()


# ---- a physics-informed network for a 1-D PDE (test_newuser6_pinn.dsl) -------------------------------
class PINN(nn.Module):
    def __init__(self, hidden=16):
        super().__init__()
        self.net = nn.Sequential(nn.Linear(2, hidden), nn.Tanh(), nn.Linear(hidden, hidden), nn.Tanh(),
                                 nn.Linear(hidden, 1))

    def forward(self, x, t):
        return self.net(torch.cat([x, t], dim=1))


def heat_residual(m, x, t, nu=0.1):
    """u_t - nu u_xx on collocation points (x, t) [N, 1] each, requires_grad"""
    u = m(x, t)
    u_x, u_t = torch.autograd.grad(u, (x, t), grad_outputs=torch.ones_like(u), create_graph=True)
    u_xx = torch.autograd.grad(u_x.sum(), x, create_graph=True)[0]
    return u_t - nu * u_xx


def pinn_loss(m, x, t, x0, xb, tb):
    r = heat_residual(m, x, t)
    ic = m(x0, torch.zeros_like(x0)) - torch.sin(math.pi * x0)
    bc = m(xb, tb)
    return r.pow(2).mean() + ic.pow(2).mean() + bc.pow(2).mean()


def pinn_case(t):
    m = PINN()
    put(t, "pinn", m)
    xs = torch.rand(12, 1, requires_grad=True)
    ts = torch.rand(12, 1, requires_grad=True)
    x0 = torch.rand(6, 1)
    xb = torch.tensor([[0.0], [1.0], [0.0], [1.0]])
    tb = torch.rand(4, 1)
    r = heat_residual(m, xs, ts)
    loss = pinn_loss(m, xs, ts, x0, xb, tb)
    loss.backward()
    put(t, "pinn", x=xs, ts=ts, x0=x0, xb=xb, tb=tb, residual=r, loss=loss)
    put_grads(t, "pinn", m)


# ---- speech: a conv frontend, log-mel by matmul, a BiGRU and CTC (test_newuser6_speech.dsl) ----------
def mel_filterbank(n_freq, n_mels):
    """triangular filters evenly spaced over the bins (a fixed matrix [n_freq, n_mels])"""
    centers = torch.linspace(0, n_freq - 1, n_mels + 2)
    f = torch.arange(n_freq, dtype=torch.float64).unsqueeze(1)
    lo, mid, hi = centers[:-2], centers[1:-1], centers[2:]
    up = (f - lo) / (mid - lo)
    down = (hi - f) / (hi - mid)
    return torch.clamp(torch.minimum(up, down), min=0.0)


def dft_basis(n_fft):
    n = torch.arange(n_fft, dtype=torch.float64).unsqueeze(1)
    k = torch.arange(n_fft // 2 + 1, dtype=torch.float64).unsqueeze(0)
    window = torch.hann_window(n_fft, periodic=True, dtype=torch.float64).unsqueeze(1)
    return window * torch.cos(2 * math.pi * n * k / n_fft), -window * torch.sin(2 * math.pi * n * k / n_fft)


class SpeechModel(nn.Module):
    def __init__(self, n_fft=16, hop=8, n_mels=6, hidden=8, vocab=5):
        super().__init__()
        self.n_fft, self.hop = n_fft, hop
        cos, sin = dft_basis(n_fft)
        self.register_buffer("cos", cos)
        self.register_buffer("sin", sin)
        self.register_buffer("mel", mel_filterbank(n_fft // 2 + 1, n_mels))
        self.frontend = nn.Sequential(nn.Conv1d(n_mels, 12, 3, padding=1), nn.GELU())
        self.gru = nn.GRU(12, hidden, batch_first=True, bidirectional=True)
        self.out = nn.Linear(2 * hidden, vocab)

    def features(self, wave):           # wave [B, samples] -> log-mel [B, frames, n_mels]
        frames = wave.unfold(1, self.n_fft, self.hop)
        power = (frames @ self.cos) ** 2 + (frames @ self.sin) ** 2
        return torch.log(power @ self.mel + 1e-6)

    def forward(self, wave, lengths):
        x = self.frontend(self.features(wave).transpose(1, 2)).transpose(1, 2)
        packed = nn.utils.rnn.pack_padded_sequence(x, lengths, batch_first=True, enforce_sorted=False)
        out, _ = self.gru(packed)
        out, _ = nn.utils.rnn.pad_packed_sequence(out, batch_first=True, total_length=x.shape[1])
        return self.out(out).log_softmax(-1)


def speech_case(t):
    m = SpeechModel()
    put(t, "speech", m)
    wave = torch.randn(3, 96)              # 11 frames of 16 with hop 8
    lengths = torch.tensor([11, 7, 9])      # frames that hold speech
    targets = torch.tensor([1, 2, 3, 2, 4, 1, 1])
    target_lengths = torch.tensor([3, 2, 2])
    logp = m(wave, lengths)
    loss = F.ctc_loss(logp.transpose(0, 1), targets, lengths, target_lengths, blank=0, zero_infinity=True)
    loss.backward()
    put(t, "speech", wave=wave, lengths=lengths, targets=targets, target_lengths=target_lengths,
        features=m.features(wave), logp=logp, loss=loss)
    put_grads(t, "speech", m)


# ---- gradient accumulation with checkpointed blocks, and resuming (test_newuser6_accumulate.dsl) ------
class ResBlock(nn.Module):
    def __init__(self, d, p=0.0):
        super().__init__()
        self.ff = nn.Sequential(nn.LayerNorm(d), nn.Linear(d, 2 * d), nn.GELU(), nn.Dropout(p), nn.Linear(2 * d, d))

    def forward(self, x):
        return x + self.ff(x)


class AccumNet(nn.Module):
    def __init__(self, d_in=5, d=8, n_blocks=2, p=0.0):
        super().__init__()
        self.inp = nn.Linear(d_in, d)
        self.blocks = nn.ModuleList([ResBlock(d, p) for _ in range(n_blocks)])
        self.out = nn.Linear(d, 1)

    def forward(self, x):
        h = self.inp(x)
        for blk in self.blocks:
            h = torch.utils.checkpoint.checkpoint(blk, h, use_reentrant=False)
        return self.out(h).squeeze(-1)


def accumulate_case(t):
    m = AccumNet()
    put(t, "acc", m)
    xs = torch.randn(3, 4, 6, 5)           # 3 optimizer steps of 4 micro-batches of 6
    ys = torch.randn(3, 4, 6)
    opt = torch.optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.1)
    sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5)
    losses = []
    for step in range(3):
        opt.zero_grad(set_to_none=True)
        total = 0.0
        for k in range(4):
            loss = F.mse_loss(m(xs[step, k]), ys[step, k]) / 4
            loss.backward()
            total += loss.item()
        if step == 0:
            put_grads(t, "acc", m)
        opt.step()
        sched.step()
        losses.append(total)
    put(t, "acc", xs=xs, ys=ys, losses=torch.tensor(losses))
    for k, v in m.state_dict().items():
        t[f"acc.after.{k}"] = v.clone()


def cases():
    torch.manual_seed(0)
    t = {}
    for case in (ssm_case, efficientnet_case, seq2seq_case, pointnet_case, wide_deep_case, gp_case, qrdqn_case, pinn_case, speech_case, accumulate_case):
        case(t)
    return t


if __name__ == "__main__":
    write_safetensors(OUT, cases())
    print(f"{OUT}: {OUT.stat().st_size} bytes")
