# The example at the top of README.md (keep the two in step).

let x = randn([3, 4], requires_grad=true)
fn g(x) {
  let h = tanh(x) * x
  return h.sum()
}
let d1 = grad(g(x), x, create_graph=true)   # higher order
let d2 = grad(d1.sum(), x)
model MLP(d_in, d_hidden, d_out) {
  fc1 = randn([d_hidden, d_in], requires_grad=true)
  fc2 = randn([d_out, d_hidden], requires_grad=true)
  forward(x) = linear(relu(linear(x, self.fc1)), self.fc2)
}
let m = MLP(4, 16, 2)
print(f"{len(m.parameters())} parameters, out {m(x).shape}")
