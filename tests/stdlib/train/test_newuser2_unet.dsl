# A small U-Net as a PyTorch user writes one: Conv2d + GroupNorm + SiLU blocks, MaxPool2d
# down, ConvTranspose2d up, skip connections joined with cat on the channels, on
# random 1x32x32 images; it learns to denoise them (the target is the clean image).
import nn
import optim

model Block(c_in, c_out, groups) {
  conv1 = nn.Conv2d(c_in, c_out, 3, padding=1)
  norm1 = nn.GroupNorm(groups, c_out)
  conv2 = nn.Conv2d(c_out, c_out, 3, padding=1)
  norm2 = nn.GroupNorm(groups, c_out)
  forward(x) {
    let h = nn.functional.silu(self.norm1(self.conv1(x)))
    return nn.functional.silu(self.norm2(self.conv2(h)))
  }
}

model UNet(c=8) {
  down1 = Block(1, c, 2)
  down2 = Block(c, 2 * c, 4)
  pool = nn.MaxPool2d(2)
  mid = Block(2 * c, 4 * c, 4)
  up2 = nn.ConvTranspose2d(4 * c, 2 * c, kernel_size=2, stride=2)
  dec2 = Block(4 * c, 2 * c, 4)
  up1 = nn.ConvTranspose2d(2 * c, c, kernel_size=2, stride=2)
  dec1 = Block(2 * c, c, 2)
  head = nn.Conv2d(c, 1, kernel_size=1)
  forward(x) {
    let s1 = self.down1(x)                    # [B, c, 32, 32]
    let s2 = self.down2(self.pool(s1))        # [B, 2c, 16, 16]
    let m = self.mid(self.pool(s2))           # [B, 4c, 8, 8]
    let d2 = self.dec2(cat([self.up2(m), s2], dim=1))
    let d1 = self.dec1(cat((self.up1(d2), s1), 1))
    return self.head(d1)
  }
}

let ref = load("tests/stdlib/reference/newuser2.safetensors")

test "one step of the U-Net matches PyTorch's output, loss and gradients at f64" {
  # tests/stdlib/reference/make_newuser2.py: the same model (c=4), GroupNorm's affine moved off 1 and 0
  let m = UNet(4).double()
  m.load_state_dict({k: ref["unet." + k] for k in m.state_dict().keys()})
  let out = m(ref["unet.x"])
  expect_close(out, ref["unet.out"], rtol=1e-10, atol=1e-12)
  let loss = nn.functional.mse_loss(out, ref["unet.target"])
  expect_close(loss, ref["unet.loss"], rtol=1e-12, atol=1e-14)
  loss.backward()
  for (name, p) in m.named_parameters() {
    expect_close(p.grad, ref["unet.grad." + name], rtol=1e-8, atol=1e-12)
  }
}

# smooth random images: low-resolution noise upsampled bilinearly
fn smooth_images(n) = nn.functional.interpolate(randn(n, 1, 4, 4), size=(32, 32), mode="bilinear", align_corners=false)

test "a U-Net with ConvTranspose2d skips and GroupNorm learns to denoise 1x32x32 images" {
  manual_seed(0)
  let m = UNet()
  let out = m(zeros(2, 1, 32, 32))
  expect(out.shape == (2, 1, 32, 32), f"{out.shape}")
  let opt = optim.Adam(m.parameters(), lr=3e-3)
  let clean = smooth_images(16)
  let noisy = clean + 0.3 * randn_like(clean)
  let before = nn.functional.mse_loss(noisy, clean).item()
  let losses = []
  for step in range(40) {
    let loss = nn.functional.mse_loss(m(noisy), clean)
    opt.zero_grad()
    loss.backward()
    opt.step()
    losses.append(loss.item())
  }
  expect(losses[-1] < 0.5 * losses[0], f"the loss should halve: {losses[0]} -> {losses[-1]}")
  expect(losses[-1] < before, f"denoised error {losses[-1]} below the noise's {before}")
}
