# Fashion-MNIST denoising with a small U-Net: two 3x3 conv stages (16 and 32 channels,
# GroupNorm, ReLU) with 2x2 max pooling down to 7 x 7, then bilinear Upsample back up,
# each stage concatenating the encoder's features of its size (skip connections);
# a 1x1 conv and a sigmoid give the image. The input is the image plus Gaussian noise
# (std 0.3, clamped to [0, 1]); the target is the clean image. Adam (lr 2e-3), batches
# of 64, 3 epochs.
#   nabla scripts/fashion_mnist_autoencoder.dsl [epochs] [train_items] [device] [image] [--logdir DIR] [--plot PATH]
# Prints one line per epoch (a progress bar on a terminal), then the mean squared
# reconstruction error on the test set, and writes a PNG grid to `image` (default
# fashion_mnist_autoencoder.png): noisy inputs, reconstructions and clean images of
# 8 test items, one row each.
import nn
import optim
import data
import time
import "train_log.dsl" as train_log
import "training_plot.dsl" as training_plot

let curves = training_plot.from_args(args, "Fashion-MNIST denoising autoencoder")  # --plot PATH: see scripts/training_plot.dsl
# --logdir DIR (anywhere among the arguments): TensorBoard logs, one point per epoch.
let writer = train_log.from_args(args)
let epochs = int(args[0]) if len(args) > 0 else 3
let train_items = int(args[1]) if len(args) > 1 else 60000
let device = args[2] if len(args) > 2 else "cpu"
let image_path = args[3] if len(args) > 3 else "fashion_mnist_autoencoder.png"
manual_seed(0)

let train = data.fashion_mnist("train", flatten=false).subset(train_items).to(device)
let test = data.fashion_mnist("test", flatten=false).to(device)

# conv 3x3 -> GroupNorm -> ReLU, keeping the size.
model ConvBlock(in_channels, out_channels, groups) {
  conv = nn.Conv2d(in_channels, out_channels, 3, padding=1)
  norm = nn.GroupNorm(groups, out_channels)
  forward(x) = relu(self.norm(self.conv(x)))
}

model UNet() {
  enc1 = ConvBlock(1, 16, 4)
  enc2 = ConvBlock(16, 32, 8)
  middle = ConvBlock(32, 32, 8)
  pool = nn.MaxPool2d(2)
  up = nn.Upsample(scale_factor=2, mode="bilinear")
  dec2 = ConvBlock(64, 16, 4)
  dec1 = ConvBlock(32, 16, 4)
  out = nn.Conv2d(16, 1, 1)
  forward(x) {
    let s1 = self.enc1(x)                      # [N, 16, 28, 28]
    let s2 = self.enc2(self.pool(s1))          # [N, 32, 14, 14]
    let m = self.middle(self.pool(s2))         # [N, 32, 7, 7]
    let d2 = self.dec2(cat([self.up(m), s2], dim=1))
    let d1 = self.dec1(cat([self.up(d2), s1], dim=1))
    return sigmoid(self.out(d1))
  }
}

fn noisy(x) = clamp(x + 0.3 * randn(x.shape, device=x.device), 0.0, 1.0)

let net = UNet().to(device)
let opt = optim.Adam(net.parameters(), lr=2e-3)

# The mean squared error of the reconstructions of ds's noisy images (noise seeded, so
# every run scores the same inputs).
fn test_mse(ds) {
  net.eval()
  manual_seed(1)
  let total = 0.0
  no_grad {
    for (xb, yb) in ds.batches(500) {
      total = total + mse_loss(net(noisy(xb)), xb, reduction="sum").item()
    }
  }
  net.train()
  return total / (len(ds) * 784)
}

let epoch_seconds = []
for epoch in range(epochs) {
  let t0 = time.perf_counter()
  let batches = train.batches(64, shuffle=true)
  let bar = data.Progress(batches, desc=f"epoch {epoch + 1}/{epochs}")
  for (xb, yb) in batches {
    let loss = mse_loss(net(noisy(xb)), xb)
    opt.zero_grad()
    loss.backward()
    opt.step()
    bar.update(loss=loss)
    training_plot.record_step(curves, loss)
  }
  bar.close()
  epoch_seconds.append(time.perf_counter() - t0)
  train_log.log_epoch(writer, epoch + 1, net, opt, bar.mean_loss(), fn() = test_mse(test), "test/reconstruction_mse")
}
print(f"epoch_seconds={min(epoch_seconds):.3f} reconstruction_mse={test_mse(test):.4f}")
training_plot.save(curves)

# The grid: 3 rows (noisy, reconstructed, clean) of 8 images, 2-pixel gaps.
manual_seed(2)
let clean = test.x[0:8]
let inputs = noisy(clean)
net.eval()
let outputs = none
no_grad { outputs = net(inputs) }
fn strip(images) = pad(images, [1, 1, 1, 1], value=1.0).permute([1, 2, 0, 3]).reshape([30, 8 * 30])
data.save_image(cat([strip(inputs), strip(outputs), strip(clean)], dim=0).to("cpu"), image_path)
print(f"wrote {image_path}")
