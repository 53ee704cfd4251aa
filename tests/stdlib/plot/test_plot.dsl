# import plot from the language: figures from lists and tensors of any float dtype,
# the one-call helpers, inline display's _repr_svg_ / _repr_png_, and the errors that
# bad data and bad paths give (docs/tools.md, "Plots"). The drawings themselves are
# read back by tests/viz/plot (test_plot).
import plot

let dir = "/tmp/nabla_plot_dsl_test"

test "a figure prints as a short text form naming its series and axes" {
  let fig = plot.Figure(title="loss", xlabel="step", ylabel="loss", logy=true, width=320, height=240)
  fig.line([1.0, 0.5, 0.25], label="train")
  fig.line(tensor([1.1, 0.7, 0.6]), xs=[0, 1, 2], label="test")
  expect(str(fig) == "<figure 'loss' 320x240: 2 lines (train, test), log y>", str(fig))
  fig.hist(randn(100))
  expect(str(fig) == "<figure 'loss' 320x240: 2 lines, 1 histogram (train, test), log y>", str(fig))
}

test "_repr_svg_ is the SVG text and _repr_png_ the PNG file's bytes, for Jupyter" {
  let fig = plot.lines({"train": [3, 2, 1]}, title="t")
  let svg = fig._repr_svg_()
  expect(svg.startswith("<?xml"), svg[:40])
  expect("<svg" in svg)
  let png = fig._repr_png_()
  expect(png[1:4] == "PNG", repr(png[:8]))
  let grid = plot.image_grid(rand(4, 1, 8, 8), nrow=2)
  expect(grid._repr_png_()[1:4] == "PNG")
  expect("data:image/png;base64," in grid._repr_svg_())
}

test "values may be lists of numbers or tensors of any dtype, and several dims for a histogram" {
  for dt in [f32, f64, f16, bf16, i64] {
    let fig = plot.lines(arange(5).to(dt))
    expect(len(fig._repr_svg_()) > 1000, f"{dt}")
  }
  expect(str(plot.hist(randn(4, 5), bins=5)) == "<figure 640x480: 0 lines, 1 histogram>")
}

test "save writes the format its extension names, and nothing on an error" {
  let fig = plot.lines({"a": [1, 2, 3], "b": [3, 2, 1]}, path=dir + "_lines.svg")
  expect(read_text(dir + "_lines.svg").startswith("<?xml"))
  fig.save(dir + "_lines.png")
  expect(read_text(dir + "_lines.png")[1:4] == "PNG")
  expect_error(fn() = fig.save(dir + "_lines.jpg"), "the extension must be .svg or .png, got .jpg")
  expect_error(fn() = read_text(dir + "_lines.jpg"), "cannot open")
  expect_error(fn() = fig.save("/nonexistent_folder_for_nabla/x.svg"), "cannot write '/nonexistent_folder_for_nabla/x.svg'")
  expect_error(fn() = fig.save(3), "path: expected a str, got int")
}

test "bad series are errors that say what was expected and what was found" {
  let fig = plot.Figure()
  expect_error(fn() = fig.line([]), "series 1 is empty")
  expect_error(fn() = fig.line([1, 2], xs=[0, 1, 2], label="train"), "xs and ys differ in length for series 'train': 3 xs, 2 ys")
  expect_error(fn() = fig.line([float("nan"), float("inf")]), "has no point to draw: 2 NaN or inf")
  expect_error(fn() = fig.line(ones(2, 2)), "expected a 1-D tensor or a list of numbers, got a tensor of shape [2, 2]")
  expect_error(fn() = fig.line([1, "x"]), "line(): ys[1]: expected a number, got str")
  expect_error(fn() = fig.hist([]), "is empty: nothing to count")
  expect_error(fn() = fig.hist([float("nan")]), "no finite value")
  expect_error(fn() = fig.hist([1, 2], bins=0), "bins must be at least 1")
  expect_error(fn() = plot.Figure(logy=true).line([-1, 0]), "0 NaN or inf, 2 not positive on a log axis")
  expect_error(fn() = plot.lines({}), "the dict of series is empty")
  expect_error(fn() = plot.Figure(width=10), "width must be between 64 and 8192 pixels, got 10")
  expect_error(fn() = plot.Figure(colour="red"), "unexpected keyword argument 'colour' (valid keywords: title, xlabel")
  expect_error(fn() = plot.lines([1, 2], titel="x"), "did you mean 'title'?")
  expect_error(fn() = plot.image_grid(rand(2, 2, 8, 8)), "expected images [N, H, W] or [N, C, H, W] with C 1 or 3, got shape [2, 2, 8, 8]")
  expect_error(fn() = plot.image_grid(rand(2, 8, 8)).line([1, 2]), "this figure is an image grid")
}

test "image_grid lays the images out as make_grid: nrow a row, 2 pixels of padding" {
  let g = plot.image_grid(rand(10, 3, 28, 28), nrow=4, path=dir + "_grid.png")
  expect(str(g) == "<figure 122x92: image grid 122x92>", str(g))
  let gray = plot.image_grid(rand(3, 5, 6), nrow=8, padding=0)
  expect(str(gray) == "<figure 18x5: image grid 18x5>", str(gray))
}
