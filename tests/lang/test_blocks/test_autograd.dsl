test "gradient of x*x is 2x" {
  let x = tensor([1.0, 2.0, 3.0], requires_grad=true)
  (x * x).sum().backward()
  expect(x.grad.sum().item() == 12.0)
}

test "second derivative of x^3 is 6x" {
  let z = tensor(2.0, requires_grad=true)
  let g1 = grad(z * z * z, z, create_graph=true)
  expect(grad(g1, z).item() == 12.0)
}
