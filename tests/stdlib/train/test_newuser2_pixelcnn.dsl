# PixelCNN-style masked convolutions as a PyTorch user writes them: a Conv2d whose
# weight is multiplied by a mask buffer in forward (type A hides the centre pixel,
# type B keeps it), so each output sees only the pixels above and to the left. The
# forward and gradients are checked against PyTorch, causality by the gradient of one
# output, and training lowers the bits per pixel of structured binary images. The
# classic in-place form (self.weight.data *= self.mask) is checked too.
import nn
import optim
import math

let ref = load("tests/stdlib/reference/newuser2.safetensors")

fn causal_mask(c_out, c_in, k, mask_type) {
  let mask = ones(c_out, c_in, k, k)
  mask[:, :, k // 2, k // 2 + (1 if mask_type == "B" else 0):] = 0
  mask[:, :, k // 2 + 1:] = 0
  return mask
}

model MaskedConv2d(mask_type, c_in, c_out, kernel_size, padding=0, dtype=none) {
  conv = nn.Conv2d(c_in, c_out, kernel_size, padding=padding, dtype=dtype)
  buffer mask = causal_mask(c_out, c_in, kernel_size, mask_type).to(self.conv.weight.dtype)
  forward(x) = conv2d(x, self.conv.weight * self.mask, self.conv.bias, padding=self.conv.padding)
}

# the 2016 code's form: zero the masked weights in place before each convolution
model MaskedConv2dInPlace(mask_type, c_in, c_out, kernel_size, padding=0) {
  conv = nn.Conv2d(c_in, c_out, kernel_size, padding=padding)
  buffer mask = causal_mask(c_out, c_in, kernel_size, mask_type)
  forward(x) {
    self.conv.weight.data *= self.mask
    return self.conv(x)
  }
}

model PixelCNN(c=8, dtype=none) {
  net = nn.Sequential(MaskedConv2d("A", 1, c, 5, padding=2, dtype=dtype), nn.ReLU(),
                      MaskedConv2d("B", c, c, 3, padding=1, dtype=dtype), nn.ReLU(),
                      MaskedConv2d("B", c, c, 3, padding=1, dtype=dtype), nn.ReLU(),
                      nn.Conv2d(c, 1, 1, dtype=dtype))
  forward(x) = self.net(x)
}

# PyTorch's MaskedConv2d subclasses Conv2d: its keys are net.0.weight, net.0.mask, ...
# ours hold the Conv2d as `conv`: net.0.conv.weight
fn torch_key(k) = k.replace(".conv.", ".")

test "masked convolutions match PyTorch's forward and gradients" {
  let m = PixelCNN(4, dtype=f64)
  m.load_state_dict({k: ref["pixelcnn." + torch_key(k)] for k in m.state_dict().keys()})
  let x = ref["pixelcnn.x"]
  let logits = m(x)
  expect_close(logits, ref["pixelcnn.logits"], rtol=1e-10, atol=1e-12)
  let loss = binary_cross_entropy_with_logits(logits, x)
  expect_close(loss, ref["pixelcnn.loss"], rtol=1e-12, atol=1e-12)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["pixelcnn.grad." + torch_key(name)], rtol=1e-9, atol=1e-12)
  }
  # masked weights get zero gradient
  expect(m.net[0].conv.weight.grad[:, :, 2, 2:].abs().sum().item() == 0.0)
}

test "each output depends only on the pixels before it in raster order" {
  manual_seed(0)
  let m = PixelCNN(4)
  let x = rand(1, 1, 6, 6).requires_grad_()
  let (i, j) = (3, 2)
  m(x)[0, 0, i, j].backward()
  let g = x.grad[0, 0].abs()
  let order = arange(36).reshape(6, 6)
  let later = order >= i * 6 + j         # the pixel itself and every one after it
  expect(g[later].sum().item() == 0.0, f"{g}")
  expect(g[order < i * 6 + j].sum().item() > 0.0)
}

test "the in-place form (weight.data *= mask) gives the same outputs" {
  manual_seed(0)
  let a = MaskedConv2d("B", 2, 3, 3, padding=1)
  let b = MaskedConv2dInPlace("B", 2, 3, 3, padding=1)
  b.load_state_dict(a.state_dict())
  let w = b.conv.weight
  let x = randn(1, 2, 5, 5)
  expect_close(a(x), b(x), atol=1e-6)
  expect(b.conv.weight is w and w.is_leaf and w.requires_grad, "the parameter is the same tensor")
  expect(w[:, :, 2].abs().sum().item() == 0.0)
}

# binary 8x8 images of vertical and horizontal stripes
fn stripes(n) {
  let phase = randint(0, 2, [n, 1, 1, 1])
  let vertical = randint(0, 2, [n, 1, 1, 1]).bool()
  let cols = (arange(8).reshape(1, 1, 1, 8) + phase) % 2
  let rows = (arange(8).reshape(1, 1, 8, 1) + phase) % 2
  return where(vertical, cols.expand(n, 1, 8, 8), rows.expand(n, 1, 8, 8)).float()
}

test "a PixelCNN learns the stripes: far below one bit per pixel" {
  manual_seed(0)
  let m = PixelCNN(16)
  let opt = optim.Adam(m.parameters(), lr=1e-2)
  let losses = []
  for step in range(60) {
    let x = stripes(32)
    let loss = binary_cross_entropy_with_logits(m(x), x)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item() / math.log(2.0))
  }
  expect(losses[0] > 0.9, f"{losses[0]}")
  expect(losses[-1] < 0.15, f"bits per pixel should fall below 0.15, got {losses[-1]}")
}
