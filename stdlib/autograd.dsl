# autograd: torch.autograd's paths (`import autograd`): autograd.grad is
# torch.autograd.grad (Note [autograd.grad returns a tuple]), autograd.functional holds
# jacobian, hessian, vjp, jvp, hvp and vhp with torch.autograd.functional's conventions
# (stdlib/_autograd_functional.dsl).
import _autograd_functional

let functional = _autograd_functional
let _grad = grad

# Note [autograd.grad returns a tuple]
# The builtin grad(outputs, x) with one tensor x returns that tensor's gradient, and
# a list for a list of inputs. torch.autograd.grad returns a tuple either way, and
# PyTorch code indexes it: `autograd.grad(u.sum(), x, create_graph=true)[0]`, the first
# line of every physics-informed network. With the builtin's convention that [0] took
# the gradient's first row, silently, and the second derivative built on it was wrong.
# autograd.grad, the path a PyTorch user types, keeps PyTorch's convention (and its
# argument order: retain_graph before create_graph); the builtin keeps its own.
fn grad(outputs, inputs, grad_outputs=none, retain_graph=none, create_graph=false, only_inputs=true,
        allow_unused=false, is_grads_batched=false) {
  """The gradients of outputs with respect to inputs, as a tuple with one per input even for one tensor, as
  torch.autograd.grad (the builtin grad(outputs, x) returns x's gradient itself); create_graph=true makes them
  differentiable again. Example: let x = randn(3, requires_grad=true); let (gx,) = autograd.grad((x * x).sum(), x)
  """
  if is_grads_batched { fail("autograd.grad(): is_grads_batched=true is not supported; vmap(vjp_fn) batches vector-Jacobian products") }
  let wrt = [inputs] if type(inputs) == "tensor" else inputs
  return tuple(_grad(outputs, wrt, grad_outputs=grad_outputs, retain_graph=retain_graph, create_graph=create_graph,
                     allow_unused=allow_unused))
}
