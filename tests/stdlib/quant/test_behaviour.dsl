# The quant module's behaviour beyond PyTorch parity (test_reference.dsl): quantized
# tensors, copies that leave the original alone, sizes, QAT training, conversion,
# deepcopy and named_children, and the errors (run by `nabla test tests/stdlib`).
import nn
import optim
import quant

fn mlp() = nn.Sequential([nn.Linear(12, 16), nn.ReLU(), nn.Linear(16, 4)])

test "QuantizedTensor: integers, scale and zero point round-trip within half a step" {
  manual_seed(1)
  let x = randn([5, 6])
  let q = quant.quantize(x, 0.05, 3, dtype=i8)
  expect(q.int_repr.dtype == i8 and q.dtype == i8 and q.qscheme() == "per_tensor_affine")
  expect(q.shape == x.shape)
  let inside = (x >= (-128 - 3) * 0.05) * (x <= (127 - 3) * 0.05)
  expect(((q.dequantize() - x).abs() * inside).max().item() <= 0.025 + 1e-6)
  let scales = tensor([0.1, 0.02, 0.05, 0.3, 0.01, 0.2])
  let qc = quant.quantize(x, scales, zeros([6], dtype=i64), dtype=i8, axis=1)
  expect(qc.qscheme() == "per_channel_affine")
  let err = (qc.dequantize() - x).abs() / scales
  expect((err * ((x / scales).abs() < 127)).max().item() <= 0.5 + 1e-5)
  expect(qc.dequantize(dtype=f64).dtype == f64)
}

test "i8 and u8 are dtypes of the language" {
  let t = tensor([1.7, -2.2, 300.0])
  expect(t.to(i8).tolist() == [1, -2, 44])
  expect(t.to(u8).tolist() == [1, 254, 44])
  expect(tensor([1, 2], dtype=u8).byte().dtype == u8 and tensor([1], dtype=i8).char().dtype == i8)
  expect(int8 == i8 and uint8 == u8 and i8.itemsize == 1)
  expect(str(tensor([3, 4], dtype=u8)) == "tensor([3, 4], dtype=u8)")
}

test "quantize_dynamic returns an int8 copy: the original is untouched" {
  manual_seed(2)
  let m = mlp()
  let x = randn([8, 12])
  let before = m(x).detach()
  let qm = quant.quantize_dynamic(m)
  expect(isinstance(m[0], nn.Linear) and isinstance(m[2], nn.Linear))
  expect(isinstance(qm[0], quant.DynamicQuantizedLinear) and isinstance(qm[1], nn.ReLU))
  expect(qm[0].weight.dtype == i8 and list(qm[0].weight.shape) == [16, 12])
  expect_close(m(x), before, rtol=0.0, atol=0.0)
  # 8-bit weights and activations: within a few percent of the outputs' spread.
  expect((qm(x) - before).abs().max().item() < 0.05 * before.std().item())
  # Weights dequantize to within half a step of the float ones.
  let step = qm[0].weight_scale.reshape([16, 1])
  expect(((qm[0].dequantized_weight() - m[0].weight.detach()).abs() / step).max().item() <= 0.5 + 1e-4)
  # i8 weights (1 byte) and f32 scales and biases against f32 weights and biases.
  expect(quant.model_size_bytes(m) == (16 * 12 + 16 + 4 * 16 + 4) * 4)
  expect(quant.model_size_bytes(qm) == 16 * 12 + 4 * 16 + (16 + 16 + 4 + 4) * 4)
  expect(list(qm.state_dict().keys()) == ["0.weight", "0.weight_scale", "0.bias", "2.weight", "2.weight_scale", "2.bias"])
  let inplace = quant.quantize_dynamic(m, inplace=true)
  expect(isinstance(m[0], quant.DynamicQuantizedLinear))
}

test "a lone Linear, a Linear without bias, and a nested model" {
  manual_seed(3)
  let l = nn.Linear(6, 3, bias=false)
  let ql = quant.quantize_dynamic(l)
  expect(isinstance(ql, quant.DynamicQuantizedLinear) and not ql.has_bias)
  let x = randn([2, 6])
  expect_close(ql(x), l(x), rtol=0.0, atol=0.05)
  model Net() {
    body = nn.Sequential([nn.Linear(6, 5), nn.ReLU()])
    head = nn.Linear(5, 2)
    forward(x) = self.head(self.body(x))
  }
  let n = Net()
  let qn = quant.quantize_dynamic(n)
  expect(isinstance(qn.body[0], quant.DynamicQuantizedLinear) and isinstance(qn.head, quant.DynamicQuantizedLinear))
  expect(isinstance(n.head, nn.Linear))
  expect_close(qn(x), n(x), rtol=0.0, atol=0.05)
}

test "prepare_qat trains with fake quantization; convert gives the int8 model" {
  manual_seed(4)
  let m = mlp()
  let x = randn([64, 12])
  let y = argmax(x[:, 0:4], dim=1)
  let qat = quant.prepare_qat(m)
  expect(isinstance(qat[0], quant.QATLinear) and isinstance(m[0], nn.Linear))
  expect(qat.training)
  let opt = optim.Adam(qat.parameters(), lr=1e-2)
  let first = none
  let last = none
  for step in range(60) {
    let loss = cross_entropy(qat(x), y)
    opt.zero_grad()
    loss.backward()
    opt.step()
    if first == none { first = loss.item() }
    last = loss.item()
  }
  expect(last < 0.5 * first, f"QAT loss went from {first} to {last}")
  # The original model did not train: QAT works on a copy.
  expect(m[0].weight.grad == none)
  let q = quant.convert(qat)
  expect(isinstance(q[0], quant.DynamicQuantizedLinear) and isinstance(q[2], quant.DynamicQuantizedLinear))
  expect(not q.training)
  # The int8 model computes what QAT trained: the fake-quantized forward.
  no_grad { expect((q(x) - qat(x)).abs().max().item() < 0.05) }
  expect(quant.model_size_bytes(q) == quant.model_size_bytes(quant.quantize_dynamic(m)))
}

test "an int8 model saves and loads as safetensors (I8 weights)" {
  manual_seed(5)
  let qm = quant.quantize_dynamic(mlp())
  let path = "/tmp/nabla_quant_test.safetensors"
  save(qm, path)
  expect(load(path)["0.weight"].dtype == i8)
  let other = quant.quantize_dynamic(mlp())
  let x = randn([3, 12])
  expect((other(x) - qm(x)).abs().max().item() > 0)
  load(path, into=other)
  expect_close(other(x), qm(x), rtol=0.0, atol=0.0)
}

test "FakeQuantize can stop observing or stop quantizing" {
  let fq = quant.FakeQuantize(quant.MinMaxObserver())
  let x = tensor([0.0, 0.3, 1.0])
  fq(x)
  let s = fq.scale.item()
  fq.disable_observer()
  fq(x * 10.0)
  expect(fq.scale.item() == s)
  fq.disable_fake_quant()
  let x2 = tensor([0.123456])
  expect(fq(x2).tolist() == x2.tolist())
}

test "deepcopy copies tensors and models and keeps shared ones shared" {
  let w = randn([3, 3], requires_grad=true)
  let d = deepcopy({"a": w, "b": [w, 1, "s"]})
  expect(d["a"].requires_grad and d["a"].is_leaf)
  d["a"].detach().zero_()
  expect(w.abs().sum().item() > 0)
  no_grad { d["a"].add_(1.0) }
  expect(d["b"][0].tolist() == d["a"].tolist())
  let m = mlp()
  let c = deepcopy(m)
  expect(isinstance(c, nn.Sequential) and c[0].weight.tolist() == m[0].weight.tolist())
  no_grad { c[0].weight.zero_() }
  expect(m[0].weight.abs().sum().item() > 0)
  let names = []
  for (name, child) in m.named_children() { names.append(name) }
  expect(names == ["0", "1", "2"])
}

test "errors say what was expected and what was found" {
  expect_error("quant.qrange(f32)", "quant: expected a quantized dtype (u8, i8 or i32), got f32")
  expect_error("quant.MinMaxObserver(qscheme=\"per_channel_affine\")", "qscheme must be one of")
  expect_error("quant.quantize(randn([2]), -1.0, 0)", "quantize_per_tensor: argument 'scale' must be positive and finite, got -1")
  expect_error("quant.quantize_dynamic(nn.Linear(4, 2), weight_observer=fn() = quant.PerChannelMinMaxObserver(qscheme=\"per_channel_affine\", dtype=u8))",
               "the int8 GEMM takes symmetric weights")
  expect_error("quant.DynamicQuantizedLinear(4, 2, zeros([2, 4]), ones([2]))", "expected an i8 weight of shape [2, 4]")
  expect_error("dynamic_quantized_linear(randn([3, 4]), zeros([2, 5], dtype=i8), ones([2]))",
               "argument 'input' of shape [3, 4] has 4 features but argument 'weight' of shape [2, 5] expects 5")
}
