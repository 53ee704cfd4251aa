# ONNX export's interface and errors (docs/onnx.md); tests/onnx/check_models.sh runs the
# exported models in ONNX Runtime.
import nn
import data

let dir = "/tmp/nabla_onnx_export_test"

# A model written whole: the file, and no temporary file beside it.
fn written(path) = data.file_exists(path) and not data.file_exists(path + ".tmp")

test "gm.export_onnx and export_onnx write a model" {
  let net = nn.Sequential([nn.Linear(4, 3), nn.ReLU()])
  net.eval()
  let gm = compile(net, randn([2, 4]))
  gm.optimize()
  gm.export_onnx(f"{dir}_gm.onnx")
  expect(written(f"{dir}_gm.onnx"))
  export_onnx(net, randn([2, 4]), f"{dir}_builtin.onnx")
  expect(written(f"{dir}_builtin.onnx"))
  export_onnx(fn(x, y) = (x * 2.0 + y).sigmoid(), [randn([3]), randn([3])], f"{dir}_fn.onnx")
  expect(written(f"{dir}_fn.onnx"))
}

test "export_onnx exports a model in eval mode and leaves it in training mode" {
  let net = nn.Sequential([nn.Linear(4, 3), nn.Dropout(0.5)])
  net.train()
  export_onnx(net, [randn([2, 4])], f"{dir}_dropout.onnx")
  expect(net.training and net[1].training)
}

test "a training step is refused" {
  let net = nn.Linear(4, 3)
  let step = compile(fn(x) = net(x).sum(), randn([2, 4]), train=true)
  expect_error(fn() = step.export_onnx(f"{dir}_train.onnx"), "is a training step (compile(..., train=true))")
}

test "a graph in training mode is refused at its node, with its line" {
  let net = nn.Sequential([nn.Linear(4, 3), nn.Dropout(0.5)])
  let gm = compile(net, randn([2, 4]))
  expect_error(fn() = gm.export_onnx(f"{dir}_dropout_train.onnx"), "dropout at 1 (")
  expect_error(fn() = gm.export_onnx(f"{dir}_dropout_train.onnx"), "training mode")
}

test "an op ONNX cannot express is an error naming it and its DSL line" {
  fn running_product(x) = x.cumprod(0)
  expect_error(fn() = export_onnx(running_product, randn([4]), f"{dir}_cumprod.onnx"),
               "export_onnx: cumprod at tests/graph/test_onnx_export.dsl:45:27: cannot be written as ONNX: ONNX has no cumulative product")
}

test "a graph module captured for several shapes is a dynamic-shape error" {
  let net = nn.Linear(4, 3)
  net.eval()
  let gm = compile(net, randn([2, 4]))
  gm(randn([5, 4]))
  expect_error(fn() = gm.export_onnx(f"{dir}_dynamic.onnx"), "captured for several input shapes (x == f32[2, 4]; x == f32[5, 4])")
}

test "an unwritable path is a clear error" {
  let net = nn.Linear(4, 3)
  expect_error(fn() = export_onnx(net, randn([2, 4]), "/nonexistent_folder/m.onnx"), "export_onnx: cannot write '/nonexistent_folder/m.onnx'")
  expect_error(fn() = export_onnx(net, 3, f"{dir}_m.onnx"), "example_inputs must be a tensor or a list of inputs, got int")
}
