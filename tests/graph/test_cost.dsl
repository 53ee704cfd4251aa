# The cost of a graph without running it (gm.cost(); docs/cost.md): FLOPs and bytes
# from the op table's cost rules, checked against their formulas, and where each op
# sits on this machine's measured roofline.
import nn

fn mm(a, b) = matmul(a, b)
fn plus(a, b) = a + b
let small = compile(mm, randn([64, 128]), randn([128, 32]))

test "a compiled matmul costs 2*M*N*K FLOPs and moves its operands once" {
  let gm = compile(mm, randn([64, 128]), randn([128, 32]))
  let c = gm.cost(table=false)
  expect(len(c["nodes"]) == 1, f"{c}")
  let n = c["nodes"][0]
  expect(n["op"] == "matmul" and n["type"] == "f32[64, 32]", f"{n}")
  expect(n["flops"] == 2 * 64 * 128 * 32, f"{n}")
  expect(n["bytes"] == (64 * 128 + 128 * 32 + 64 * 32) * 4, f"{n}")
  expect(c["flops"] == n["flops"] and c["bytes"] == n["bytes"], f"{c}")
  expect(n["intensity"] == n["flops"] / n["bytes"], f"{n}")
}

test "an MLP's total FLOPs are the formula's, before and after fusion" {
  manual_seed(1)
  let net = nn.Sequential([nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10)])
  let gm = compile(net, randn([64, 784]))
  gm.optimize("")
  let before = gm.cost(table=false)
  # 2*M*N*K per linear plus M*N for its bias, and one per element for relu
  let want = 2 * 64 * 784 * 256 + 64 * 256 + 64 * 256 + 2 * 64 * 256 * 10 + 64 * 10
  expect(before["flops"] == want, f"{before['flops']} != {want}")
  gm.optimize()
  let after = gm.cost(table=false)
  expect(after["flops"] == want, f"{after['flops']} != {want}")
  # linear_relu never writes its pre-activation: 2 * 64 * 256 * 4 bytes less
  expect(before["bytes"] - after["bytes"] == 2 * 64 * 256 * 4, f"{before['bytes']} -> {after['bytes']}")
  let fused = []
  for n in after["nodes"] {
    if n["fused"] { fused.append(n["op"]) }
  }
  expect(fused == ["linear_relu"], f"{after['nodes']}")
}

test "a conv's FLOPs are 2 * N * C_out * H_out * W_out * C_in/groups * kH * kW, plus the bias" {
  manual_seed(2)
  let conv = nn.Conv2d(4, 6, 3, stride=2, padding=1)
  let gm = compile(conv, randn([3, 4, 15, 15]))
  let n = gm.cost(table=false)["nodes"][0]
  # H_out = W_out = (15 + 2 - 3) / 2 + 1 = 8
  expect(n["op"] == "conv2d" and n["type"] == "f32[3, 6, 8, 8]", f"{n}")
  expect(n["flops"] == 2 * 3 * 6 * 8 * 8 * 4 * 3 * 3 + 3 * 6 * 8 * 8, f"{n}")
  expect(n["bytes"] == (3 * 4 * 15 * 15 + 6 * 4 * 3 * 3 + 6 + 3 * 6 * 8 * 8) * 4, f"{n}")
}

test "a large matmul is compute-bound, an add memory-bound" {
  let big = compile(mm, randn([512, 512]), randn([512, 512])).cost(table=false)
  expect(big["nodes"][0]["bound"] == "compute", f"{big}")
  expect(big["nodes"][0]["intensity"] > big["ridge"], f"{big}")
  let add = compile(plus, randn([512, 512]), randn([512, 512])).cost(table=false)
  expect(add["nodes"][0]["bound"] == "memory", f"{add}")
  expect(add["nodes"][0]["flops"] == 512 * 512 and add["nodes"][0]["bytes"] == 3 * 512 * 512 * 4, f"{add}")
  expect(add["peak_flops"] > 0 and add["peak_bandwidth"] > 0 and add["device"] == "cpu", f"{add}")
  expect(add["time_s"] > 0, f"{add}")
}

test "the cost table names each node, the total and the roofline" {
  let t = small.cost()
  expect("matmul" in t and "f32[64, 32]" in t and "524 KFLOP" in t, t)
  expect("total" in t and "ridge point" in t and "FLOP/s" in t, t)
  expect_error("small.cost(device=\"tpu\")", "device must be \"cpu\", \"cuda\" or \"cuda:N\", got 'tpu'")
}
