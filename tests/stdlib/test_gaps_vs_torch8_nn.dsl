# Round 8 against PyTorch 1.13: nn.utils.spectral_norm and remove_spectral_norm
# (stdlib/_nn_spectral.dsl, Note [Spectral normalization]). The reference
# (tests/stdlib/reference/make_vs_torch8.py's spectral_norm_cases) holds the layer's weights,
# PyTorch's random initial u and v (set here in place of nabla's own draw), the outputs
# and buffers after two training forwards, the gradients and an eval forward.
import nn

let ref = load("tests/stdlib/reference/vs_torch8.safetensors")

fn spectral_case(name, m) {
  m.double()
  no_grad {
    m.weight.copy_(ref[name + ".weight"])
    m.bias.copy_(ref[name + ".bias"])
  }
  nn.utils.spectral_norm(m, n_power_iterations=2)
  no_grad {
    m.weight_u.copy_(ref[name + ".u0"])
    m.weight_v.copy_(ref[name + ".v0"])
  }
  let x = ref[name + ".x"]
  let y1 = m(x)
  expect_close(m.weight_u, ref[name + ".u1"], rtol=1e-10)
  expect_close(m.weight_v, ref[name + ".v1"], rtol=1e-10)
  let y2 = m(x * 2)
  expect_close(y1, ref[name + ".y1"], rtol=1e-10, atol=1e-12)
  expect_close(y2, ref[name + ".y2"], rtol=1e-10, atol=1e-12)
  (y2 * ref[name + ".g"]).sum().backward()
  expect_close(m.weight_orig.grad, ref[name + ".grad_orig"], rtol=1e-9, atol=1e-12)
  expect_close(m.bias.grad, ref[name + ".grad_bias"], rtol=1e-10, atol=1e-12)
  m.eval()
  expect_close(m(x), ref[name + ".y3"], rtol=1e-10, atol=1e-12)
  nn.utils.remove_spectral_norm(m)
  expect_close(m.weight, ref[name + ".removed"], rtol=1e-10, atol=1e-12)
  expect(sorted(list(m.state_dict().keys())) == ["bias", "weight"], "remove_spectral_norm: one parameter again")
}

test "spectral_norm of a Linear and a ConvTranspose2d (dim 1) equals PyTorch's, step by step" {
  spectral_case("spectral_linear", nn.Linear(4, 3))
  spectral_case("spectral_convt", nn.ConvTranspose2d(2, 3, 2))
}

test "spectral_norm: its parameters and buffers, eval uses u and v as they are, bad arguments" {
  let m = nn.utils.spectral_norm(nn.Linear(4, 3))
  expect(sorted(list(m.state_dict().keys())) == ["bias", "weight_orig", "weight_u", "weight_v"], f"{list(m.state_dict().keys())}")
  expect(len(list(m.parameters())) == 2, "weight_orig and bias are the parameters")
  # one power iteration per training forward: from a random u, two left sigma's
  # estimate up to 1.5x off on some draws; thirty converge
  for i in range(30) { m(randn(2, 4)) }
  let u = m.weight_u.clone()
  m.eval()
  m(randn(2, 4))
  expect(bool((m.weight_u == u).all()), "no power iteration in eval")
  let s = linalg_sigma(m)
  expect(abs(s - 1.0) < 0.2, f"the normalized weight's largest singular value is near 1, got {s}")
  expect_error(fn() = nn.utils.spectral_norm(m), "already has spectral_norm")
  expect_error(fn() = nn.utils.spectral_norm(nn.Linear(2, 2), name="nope"), "has no tensor field 'nope'")
  expect_error(fn() = nn.utils.spectral_norm(nn.Linear(2, 2), n_power_iterations=-1), "n_power_iterations must be an int of at least 0")
  expect_error(fn() = nn.utils.remove_spectral_norm(nn.Linear(2, 2)), "spectral_norm of 'weight' not found")
  expect_error(fn() = nn.utils.spectral_norm(ones(2)), "module must be a model")
}

fn linalg_sigma(m) = svd(m.weight.detach())[1][0].item()
