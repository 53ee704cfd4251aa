# Models for `nabla graph` in tests/cli/cli_test.sh. `nabla graph FILE --entry mlp
# -- 32` makes the hidden layer 32 wide (script arguments go after --).
import nn

let hidden = int(args[0]) if len(args) > 0 else 16
manual_seed(0)
let mlp = nn.Sequential([nn.Linear(784, hidden), nn.ReLU(), nn.Linear(hidden, 10)])
let mlp_inputs = [randn([8, 784])]

# A training step: --train --inputs "f32[8,784],i64[8]".
fn step(x, y) = cross_entropy(mlp(x), y)

# simplify removes both multiplications by one; cse merges what is left.
fn twice(x) = x * 1.0 + x * 1.0

# A number read with item() and kept in a variable cannot be captured (an item() read
# right in an if or while condition lowers to a cond instead).
fn branchy(v) {
  let total = v.sum().item()
  if total > 0 { return v * 2 }
  return v
}

let not_a_model = 3

# Model classes: `--entry Gate` constructs one (its constructor needs no arguments);
# `--entry Scaled` is an error that says how (`--entry 'Scaled(3.0)'` constructs one).
model Gate() {
  fc = nn.Linear(4, 4)
  forward(x) = sigmoid(fc(x))
}
let Gate_inputs = [randn([2, 4])]

model Scaled(k) {
  forward(x) = x * k
}
