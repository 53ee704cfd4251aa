# nn.functional: PyTorch's torch.nn.functional path (nn.functional.relu,
# nn.functional.cross_entropy, ...). A module written in nabla holds every builtin
# under its own name, so this empty module's attributes are the global functions;
# nn re-exports it as nn.functional.
let __name__ = "nn.functional"  # the name messages show (Module::shown_name)
