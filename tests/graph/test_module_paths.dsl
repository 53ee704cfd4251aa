# Ops that the standard library runs inside a layer carry the layer's module path (as
# named_modules names it) and the user's call site, "fc1 (file:line:col)", not the
# library's line: the IR text, the drawing, the passes' notes and gm.explain() tell
# fc1 from fc2. Run by `nabla test tests/graph` (ctest graph_tests).
import nn

model Net() {
  fc1 = nn.Linear(4, 8)
  fc2 = nn.Linear(8, 2)
  forward(x) = fc2(relu(fc1(x)))
}

let fc1_site = "fc1 (tests/graph/test_module_paths.dsl:10:25)"
let fc2_site = "fc2 (tests/graph/test_module_paths.dsl:10:16)"

test "two Linear layers are fc1 and fc2 at the user's calls in the IR text" {
  let gm = compile(Net(), randn(3, 4))
  let ir = gm.ir()
  expect(f"linear(%x, %fc1.weight, %fc1.bias) : f32[3, 8]  # {fc1_site}\n" in ir, ir)
  expect(f"linear(%6, %fc2.weight, %fc2.bias) : f32[3, 2]  # {fc2_site}\n" in ir, ir)
  # relu is the user's own expression: its own line, no module path.
  expect("relu(%5) : f32[3, 8]  # tests/graph/test_module_paths.dsl:10:20\n" in ir, ir)
  expect(not ("<stdlib>" in ir), ir)
}

test "the DOT drawing labels the two layers' nodes apart" {
  let gm = compile(Net(), randn(3, 4))
  let path = "/tmp/nabla_module_paths_test.dot"
  gm.render(path)
  let dot = read_text(path)
  expect(dot.count(fc1_site) == 1 and dot.count(fc2_site) == 1, dot)
  expect(not ("stdlib" in dot), dot)
}

test "paths follow containers and nested library layers" {
  model Stack() {
    layers = [nn.Linear(8, 8), nn.Linear(8, 8)]
    encoder = nn.TransformerEncoderLayer(8, 2, dim_feedforward=16, dropout=0.0)
    forward(x) = encoder(layers[1](layers[0](x)))
  }
  let m = Stack()
  m.eval()
  let ir = compile(m, randn(3, 2, 8)).ir()
  expect("# layers.0 (tests/graph/test_module_paths.dsl:39:36)\n" in ir, ir)
  expect("# layers.1 (tests/graph/test_module_paths.dsl:39:26)\n" in ir, ir)
  expect("%encoder.self_attn.out_proj.bias) : f32[2, 3, 8]  # encoder.self_attn.out_proj (tests/graph/test_module_paths.dsl:39:18)\n" in ir, ir)
  expect("# encoder.linear2 (tests/graph/test_module_paths.dsl:39:18)\n" in ir, ir)
}

test "a layer compiled on its own is named by its class, at the compile() call" {
  let lin = nn.Linear(4, 2)
  let ir = compile(lin, randn(3, 4)).ir()
  expect("# Linear (tests/graph/test_module_paths.dsl:52:12)\n" in ir, ir)
}

test "the passes' notes in gm.explain() name the module" {
  model ConvBn() {
    conv = nn.Conv2d(1, 2, 3)
    bn = nn.BatchNorm2d(2)
    forward(x) = bn(conv(x))
  }
  let gm = compile(ConvBn(), randn([2, 1, 6, 6]))
  gm.optimize("fold_bn", explain=true)
  let report = gm.explain()
  expect("batch_norm at bn (tests/graph/test_module_paths.dsl:60:18): not folded into a conv: training mode" in report, report)
}

test "a layer held twice is named by its first path, as named_modules names it" {
  model Tied() {
    enc = nn.Linear(4, 4)
    forward(x) = self.again(enc(x))
  }
  let m = Tied()
  m.again = m.enc
  let ir = compile(m, randn(2, 4)).ir()
  expect("# enc (tests/graph/test_module_paths.dsl:71:29)\n" in ir and "# enc (tests/graph/test_module_paths.dsl:71:18)\n" in ir, ir)
  expect(m.named_modules()[1][0] == "enc", f"{m.named_modules()}")
}
