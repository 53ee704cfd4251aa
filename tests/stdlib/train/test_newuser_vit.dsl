# A tiny vision transformer: patches by a strided Conv2d, a learned cls token and
# positional embedding (tensors that require grad: parameters), nn.TransformerEncoder
# (pre-norm, batch_first), classification from the cls token.
import nn
import optim

model ViT(image=8, patch=4, dim=16, heads=2, depth=2, classes=2) {
  let n = (image // patch) ** 2
  cls_token = zeros([1, 1, dim], requires_grad=true)
  pos_embed = (0.02 * randn([1, n + 1, dim])).requires_grad_()
  patch_embed = nn.Conv2d(1, dim, kernel_size=patch, stride=patch)
  encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dim, heads, dim_feedforward=32, dropout=0.0,
                                                              batch_first=true, norm_first=true), depth)
  norm = nn.LayerNorm(dim)
  head = nn.Linear(dim, classes)
  forward(x) {
    let p = self.patch_embed(x).flatten(2).transpose(1, 2)     # [B, n, dim]
    let h = cat([self.cls_token.expand(x.shape[0], -1, -1), p], dim=1) + self.pos_embed
    return self.head(self.norm(self.encoder(h)[:, 0]))
  }
}

# class 1: a bright row in the top half of the image; class 0: in the bottom half
fn bars(n) {
  let y = randint(0, 2, [n])
  let x = 0.1 * randn([n, 1, 8, 8])
  let rows = randint(0, 4, [n]) + where(y == 1, 0, 4)
  x[arange(n), 0, rows] = 1.0
  return (x, y)
}

test "a small ViT learns where the bar is" {
  manual_seed(0)
  let (x, y) = bars(64)
  let m = ViT()
  let names = [n for (n, p) in m.named_parameters()]
  expect(names[:3] == ["cls_token", "pos_embed", "patch_embed.weight"], f"{names[:3]}")
  let opt = optim.AdamW(m.parameters(), lr=3e-3)
  let losses = []
  for step in range(30) {
    let loss = cross_entropy(m(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.2 * losses[0], f"the loss should fall by 5x: {losses[0]} -> {losses[-1]}")
  expect(list(m.cls_token.grad.shape) == [1, 1, 16])
  m.eval()
  no_grad {
    let (xt, yt) = bars(128)
    let acc = (m(xt).argmax(1) == yt).float().mean().item()
    expect(acc > 0.9, f"held-out accuracy {acc}")
  }
}
