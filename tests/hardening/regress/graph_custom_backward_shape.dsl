# A custom function's backward returning a gradient that cannot be summed to its
# input's shape is an error naming the node and both shapes.
# status: 1
# expect stderr: error: BadBackward returned a gradient of shape [4] for input 0, whose shape is [2] (a gradient must have the input's shape, or one the input broadcasts to)
function Bad {
  forward(ctx, x) = x * 2
  backward(ctx, g) = ones([4])
}
let c = tensor([1.0, 1.0], requires_grad=true)
Bad(c).sum().backward()
