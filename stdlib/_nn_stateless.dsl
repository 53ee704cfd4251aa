# _nn_stateless: PyTorch 1.13's torch.nn.utils.stateless, whose functional_call is the
# builtin functional_call (torch.func's, LANGUAGE.md "Function transforms"); nn.utils
# re-exports it as nn.utils.stateless. Import nn, not this module.
let __name__ = "nn.utils.stateless"  # the name messages show (Module::shown_name)
let _functional_call = functional_call

fn functional_call(module, parameters_and_buffers, args, kwargs=none) {
  "Calls module(*args, **kwargs) with the dict's tensors in place of its parameters and buffers (torch.nn.utils.stateless.functional_call). Example: nn.utils.stateless.functional_call(m, {\"weight\": w}, (x,))"
  return _functional_call(module, parameters_and_buffers, args, kwargs)
}
