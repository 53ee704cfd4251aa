# CLIP-style contrastive learning as a PyTorch user writes it: an image encoder and a
# text encoder (mean of token embeddings), L2-normalized embeddings, a learnable
# temperature kept as log(1 / 0.07) and used as logit_scale.exp().clamp(max=100), and
# the symmetric cross entropy over the similarity matrix. One step is checked against
# PyTorch 1.13 at f64 (tests/stdlib/reference/make_newuser4.py); then training pairs
# noisy views of the same latent and retrieval gets right.
import math
import nn
import optim

let ref = load("tests/stdlib/reference/newuser4.safetensors")

model CLIP(d_img=6, vocab=20, d=8, d_emb=4) {
  image_encoder = nn.Sequential(nn.Linear(d_img, d), nn.ReLU(), nn.Linear(d, d_emb))
  token_embedding = nn.Embedding(vocab, d)
  text_proj = nn.Linear(d, d_emb)
  logit_scale = nn.Parameter(ones([]) * math.log(1 / 0.07))

  encode_image(images) = nn.functional.normalize(self.image_encoder(images), dim=-1)
  encode_text(tokens) = nn.functional.normalize(self.text_proj(self.token_embedding(tokens).mean(1)), dim=-1)
  forward(images, tokens) {
    let scale = self.logit_scale.exp().clamp(max=100)
    return scale * self.encode_image(images) @ self.encode_text(tokens).t()
  }
}

fn clip_loss(logits) {
  let labels = arange(logits.shape[0])
  return (nn.functional.cross_entropy(logits, labels) + nn.functional.cross_entropy(logits.t(), labels)) / 2
}

test "one CLIP step matches PyTorch: logits, symmetric loss, gradients with the temperature's" {
  let m = CLIP().double()
  m.load_state_dict({k: ref["clip." + k] for k in m.state_dict().keys()})
  expect(m.logit_scale.dim() == 0 and m.logit_scale.dtype == f64)
  let logits = m(ref["clip.images"], ref["clip.tokens"])
  expect_close(logits, ref["clip.logits"], rtol=1e-12, atol=1e-13)
  let loss = clip_loss(logits)
  expect_close(loss, ref["clip.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() { expect_close(p.grad, ref["clip.grad." + name], rtol=1e-9, atol=1e-12) }
}

test "the clamp stops the temperature's gradient once exp(logit_scale) passes 100" {
  let m = CLIP()
  no_grad { m.logit_scale.fill_(math.log(200.0)) }
  let (images, tokens) = (randn(4, 6), randint(0, 20, (4, 5)))
  let logits = m(images, tokens)
  expect_close(logits, 100 * m.encode_image(images) @ m.encode_text(tokens).t(), rtol=1e-5, atol=1e-5)
  clip_loss(logits).backward()
  expect(m.logit_scale.grad.item() == 0.0, f"{m.logit_scale.grad}")
  expect(m.image_encoder[0].weight.grad.abs().sum().item() > 0)
}

test "CLIP training aligns two views of the same latent, and the temperature learns" {
  manual_seed(0)
  let n = 64
  let latent = randint(0, 20, (n, 5))                                   # a "caption" per item
  let mixing = randn(20, 6)
  let images = nn.functional.one_hot(latent, 20).float().mean(1) @ mixing + 0.05 * randn(n, 6)
  let m = CLIP()
  let opt = optim.AdamW(m.parameters(), lr=1e-2, weight_decay=0.0)
  let scale0 = m.logit_scale.item()
  for epoch in range(60) {
    for idx in randperm(n).split(16) {
      let loss = clip_loss(m(images[idx], latent[idx]))
      opt.zero_grad()
      loss.backward()
      opt.step()
    }
  }
  no_grad {
    let sim = m.encode_image(images) @ m.encode_text(latent).t()
    let top1 = (sim.argmax(1) == arange(n)).float().mean().item()
    expect(top1 > 0.6, f"image -> text retrieval top-1 {top1}")
    let back = (sim.argmax(0) == arange(n)).float().mean().item()
    expect(back > 0.6, f"text -> image retrieval top-1 {back}")
  }
  expect(m.logit_scale.item() != scale0, "the temperature is trained")
}
