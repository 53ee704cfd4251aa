# Fashion-MNIST from the Debian package dataset-fashion-mnist (scripts/setup.sh
# installs it). Without the files the test says so and passes.
import data

test "fashion_mnist test split: 10000 items, [784] in [0, 1], labels 0..9" {
  if not data.fashion_mnist_available() {
    print("skipped: /usr/share/datasets/fashion-mnist is missing (install the Debian package dataset-fashion-mnist)")
  } else {
    let ds = data.fashion_mnist("test")
    expect(len(ds) == 10000)
    expect(ds.x.shape == (10000, 784))
    expect(ds.x.dtype == f32)
    expect(ds.y.dtype == i64)
    expect(ds.x.min().item() >= 0.0 and ds.x.max().item() <= 1.0)
    expect(ds.x.max().item() == 1.0)
    expect(ds.y.min().item() == 0 and ds.y.max().item() == 9)
    # 1000 images of each class.
    expect(eq(ds.y, 3).sum().item() == 1000)
    let (x0, y0) = ds.item(0)
    expect(x0.shape == (784,))
    let img = data.fashion_mnist("test", flatten=false)
    expect(img.x.shape == (10000, 1, 28, 28))
    expect(len(data.fashion_mnist_classes) == 10)
    expect_error("data.fashion_mnist(\"valid\")", "split must be \"train\" or \"test\"")
  }
}

test "fashion_mnist: a missing folder names the Debian package" {
  expect_error("data.fashion_mnist(\"test\", dir=\"/nonexistent\")", "cannot open /nonexistent/t10k-images-idx3-ubyte.gz: No such file or directory")
}

test "fashion_mnist: a softmax regression learns from shuffled batches" {
  expect(not data.fashion_mnist_available(dir="/nonexistent"))
  if not data.fashion_mnist_available() {
    print("skipped: /usr/share/datasets/fashion-mnist is missing (install the Debian package dataset-fashion-mnist)")
  } else {
    manual_seed(0)
    let ds = data.fashion_mnist("test").subset(2000)
    let w = zeros([784, 10], requires_grad=true)
    let b = zeros([10], requires_grad=true)
    let losses = []
    for epoch in range(2) {
      let batches = ds.batches(100, shuffle=true, seed=epoch)
      let bar = data.Progress(len(batches), desc=f"epoch {epoch}", tty=false)
      for (xb, yb) in batches {
        let loss = cross_entropy(xb @ w + b, yb)
        loss.backward()
        no_grad {
          w.sub_(w.grad * 0.1)
          b.sub_(b.grad * 0.1)
        }
        w.grad.zero_()
        b.grad.zero_()
        bar.update(loss=loss)
      }
      bar.close()
      losses.append(bar.mean_loss())
    }
    expect(losses[1] < losses[0])
    expect(losses[1] < 1.2)
  }
}
