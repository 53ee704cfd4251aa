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
