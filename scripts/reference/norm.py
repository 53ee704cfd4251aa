"""Reference cases of batch_norm, layer_norm and dropout (norm.cpp).

batch_norm's inputs are (x, weight, bias, running_mean, running_var); only x, weight
and bias are gradchecked (running stats get no gradient). In training mode the kernel
updates the running stats in place at every evaluation, which the output does not
depend on; in eval mode it leaves them alone. Dropout is random: its training cases
are gradchecked only (the sweep reseeds nabla's RNG, so the mask is fixed there);
its statistics are checked in tests/ops/dropout.cpp.
"""
import torch
import torch.nn.functional as F
from lib import case, randn, rand


def batch_norm(training, momentum=0.1, eps=1e-5):
    def fn(x, w, b, rm, rv):
        return F.batch_norm(x, rm, rv, w, b, training=training, momentum=momentum, eps=eps)
    return fn


def bn_inputs(shape, affine=True, stats=True):
    c = shape[1]
    return [randn(*shape), randn(c) if affine else None, randn(c) if affine else None,
            randn(c) if stats else None, rand(c, low=0.5, high=2.0) if stats else None]


def bn_case(name, shape, training, affine=True, stats=True, momentum=0.1, eps=1e-5):
    grad = [0, 1, 2] if affine else [0]
    return case("batch_norm", bn_inputs(shape, affine, stats),
                {"training": training, "momentum": momentum, "eps": eps},
                batch_norm(training, momentum, eps), name=name, grad=grad)


def batch_norm_backward(training, eps=1e-5):
    """(grad_input, grad_weight, grad_bias) of batch_norm by torch.autograd; without a
    weight, grad_weight is still sum(g * xhat) (a weight of ones)."""
    def fn(g, x, w, rm, rv):
        c = x.shape[1]
        x = x.detach().requires_grad_()
        w = (w if w is not None else torch.ones(c, dtype=x.dtype)).detach().requires_grad_()
        b = torch.zeros(c, dtype=x.dtype, requires_grad=True)
        stats = (rm.clone(), rv.clone()) if rm is not None else (None, None)
        y = F.batch_norm(x, stats[0], stats[1], w, b, training=training, eps=eps)
        return torch.autograd.grad(y, [x, w, b], g)
    return fn


def bn_backward_case(name, shape, training, affine=True, eps=1e-5):
    c = shape[1]
    inputs = [randn(*shape), randn(*shape), randn(c) if affine else None,
              None if training else randn(c), None if training else rand(c, low=0.5, high=2.0)]
    return case("batch_norm_backward", inputs, {"training": training, "eps": eps},
                batch_norm_backward(training, eps), name=name, grad=[0, 1, 2] if affine else [0, 1])


def layer_norm(shape, eps=1e-5):
    return lambda x, w, b: F.layer_norm(x, shape, w, b, eps)


def dropout_mask(p, training):
    def fn(x):
        y = F.dropout(x, p, training)
        return y, (y != 0).to(x.dtype) if training else torch.ones_like(x)
    return fn


CASES = [
    bn_case("batch_norm_train_2d", (6, 3), True),
    bn_case("batch_norm_train_4d", (3, 2, 3, 2), True, momentum=0.3),
    bn_case("batch_norm_train_3d_plain", (4, 3, 2), True, affine=False, stats=False),
    bn_case("batch_norm_train_2d_no_affine", (5, 4), True, affine=False),
    bn_case("batch_norm_eval_2d", (4, 3), False),
    bn_case("batch_norm_eval_4d", (2, 3, 2, 2), False, eps=1e-3),
    bn_case("batch_norm_eval_4d_no_affine", (2, 2, 3, 2), False, affine=False),

    case("layer_norm", [randn(4, 5), randn(5), randn(5)], {"normalized_shape": [5], "eps": 1e-5},
         layer_norm([5])),
    case("layer_norm", [randn(2, 3, 4), randn(3, 4), randn(3, 4)], {"normalized_shape": [3, 4], "eps": 1e-5},
         layer_norm([3, 4]), name="layer_norm_two_dims"),
    case("layer_norm", [randn(3, 6), None, None], {"normalized_shape": [6], "eps": 1e-5},
         layer_norm([6]), name="layer_norm_no_affine"),
    case("layer_norm", [randn(2, 2, 5), randn(2, 5), None], {"normalized_shape": [2, 5], "eps": 1e-3},
         layer_norm([2, 5], 1e-3), name="layer_norm_weight_only"),

    case("dropout", [randn(4, 5)], {"p": 0.3, "training": True}, dropout_mask(0.3, True), forward=False),
    case("dropout", [randn(3, 4)], {"p": 0.5, "training": False}, dropout_mask(0.5, False),
         name="dropout_eval_identity"),
    case("dropout", [randn(3, 4)], {"p": 0.0, "training": True}, dropout_mask(0.0, True),
         name="dropout_p0_identity"),

    bn_backward_case("batch_norm_backward_train_2d", (5, 3), True),
    bn_backward_case("batch_norm_backward_train_4d", (3, 2, 2, 3), True),
    bn_backward_case("batch_norm_backward_train_3d_no_affine", (4, 2, 3), True, affine=False),
    bn_backward_case("batch_norm_backward_eval_4d", (2, 3, 2, 2), False, eps=1e-3),
    bn_backward_case("batch_norm_backward_eval_2d_no_affine", (4, 3), False, affine=False),
]


# group_norm and rms_norm (appended: the family's stream keeps the cases above as they were).
def group_norm(groups, eps=1e-5):
    return lambda x, w, b: F.group_norm(x, groups, w, b, eps)


def rms_norm(shape, eps=None):
    """torch.nn.functional.rms_norm of recent PyTorch (1.13 lacks it): eps defaults to
    the dtype's machine epsilon."""
    def fn(x, w):
        e = torch.finfo(x.dtype).eps if eps is None else eps
        dims = tuple(range(x.dim() - len(shape), x.dim()))
        y = x * torch.rsqrt((x * x).mean(dims, keepdim=True) + e)
        return y * w if w is not None else y
    return fn


CASES += [
    case("group_norm", [randn(2, 6, 3, 2), randn(6), randn(6)], {"num_groups": 3, "eps": 1e-5}, group_norm(3)),
    case("group_norm", [randn(3, 4, 5), None, None], {"num_groups": 2, "eps": 1e-5}, group_norm(2),
         name="group_norm_3d_no_affine"),
    case("group_norm", [randn(2, 4, 2, 3), randn(4), None], {"num_groups": 4, "eps": 1e-3}, group_norm(4, 1e-3),
         name="group_norm_instance"),
    case("group_norm", [randn(4, 6), randn(6), randn(6)], {"num_groups": 1, "eps": 1e-5}, group_norm(1),
         name="group_norm_2d_one_group"),
    case("rms_norm", [randn(4, 5), randn(5)], {"normalized_shape": [5], "eps": 1e-5}, rms_norm([5], 1e-5)),
    case("rms_norm", [randn(2, 3, 4), randn(3, 4)], {"normalized_shape": [3, 4]}, rms_norm([3, 4]),
         name="rms_norm_default_eps"),
    case("rms_norm", [randn(3, 6), None], {"normalized_shape": [6], "eps": 1e-3}, rms_norm([6], 1e-3),
         name="rms_norm_no_weight"),
]
