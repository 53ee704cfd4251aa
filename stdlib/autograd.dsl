# autograd: torch.autograd's paths (`import autograd`): autograd.grad is the builtin
# grad, autograd.functional holds jacobian, hessian, vjp, jvp, hvp and vhp with
# torch.autograd.functional's conventions (stdlib/_autograd_functional.dsl).
import _autograd_functional

let functional = _autograd_functional
let grad = grad
