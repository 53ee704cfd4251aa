"""Reference cases of the elementwise rows (elementwise.cpp). Inputs stay away from
points where an op has a kink, so central differences are meaningful."""
import torch
from lib import case, randn, rand, randint, away_from

UNARY = [
    ("neg", torch.neg, randn(3, 4)),
    ("exp", torch.exp, randn(3, 4)),
    ("log", torch.log, rand(3, 4, low=0.5, high=2.0)),
    ("sqrt", torch.sqrt, rand(3, 4, low=0.5, high=2.0)),
    ("rsqrt", torch.rsqrt, rand(3, 4, low=0.5, high=2.0)),
    ("abs", torch.abs, away_from(randn(3, 4), [0.0])),
    ("sign", torch.sign, away_from(randn(3, 4), [0.0])),
    ("sin", torch.sin, randn(3, 4)),
    ("cos", torch.cos, randn(3, 4)),
    ("tanh", torch.tanh, randn(3, 4)),
    ("sigmoid", torch.sigmoid, randn(3, 4)),
    ("relu", torch.relu, away_from(randn(3, 4), [0.0])),
    ("gelu", torch.nn.functional.gelu, randn(3, 4)),
    ("silu", torch.nn.functional.silu, randn(3, 4)),
    ("erf", torch.erf, randn(3, 4)),
    ("log1p", torch.log1p, rand(3, 4, low=-0.5, high=2.0)),
    ("expm1", torch.expm1, randn(3, 4)),
    ("lgamma", torch.lgamma, rand(3, 4, low=0.2, high=12.0)),
    ("digamma", torch.digamma, rand(3, 4, low=0.2, high=12.0)),
]

CASES = [case(op, [x], {}, fn) for op, fn, x in UNARY]
CASES += [
    case("neg", [randint(-5, 5, 4)], {}, torch.neg, name="neg_int"),
    case("exp", [randn([])], {}, torch.exp, name="exp_scalar"),
    case("exp", [randn(0, 3)], {}, torch.exp, name="exp_empty"),
    case("add", [randn(2, 3), randn(3)], {}, torch.add, name="add_broadcast"),
    case("add", [randn(4, 1, 3), randn(2, 1)], {}, torch.add, name="add_broadcast_both"),
    case("add", [randint(0, 9, 3), randint(0, 9, 3)], {}, torch.add, name="add_int"),
    case("add", [randint(0, 9, 3), randn(3)], {}, torch.add, name="add_int_float_promotes"),
    case("sub", [randn(2, 3), randn(2, 1)], {}, torch.sub),
    case("mul", [randn(2, 3), randn([])], {}, torch.mul, name="mul_scalar_tensor"),
    case("mul", [randn(2, 3), randn(2, 3)], {}, torch.mul),
    case("div", [randn(2, 3), rand(3, low=0.5, high=2.0)], {}, torch.div),
    case("div", [randint(1, 9, 3), randint(1, 9, 3)], {}, torch.div, name="div_int_true_division"),
    case("pow", [rand(2, 3, low=0.5, high=2.0), randn(2, 3)], {}, torch.pow),
    case("pow", [rand(2, 3, low=0.5, high=2.0), randn(3)], {}, torch.pow, name="pow_broadcast"),
    case("maximum", [randn(2, 3), randn(3)], {}, torch.maximum),
    case("minimum", [randn(2, 3), randn(2, 3)], {}, torch.minimum),
    case("where", [randn(2, 3) > 0, randn(2, 3), randn(3)], {}, torch.where),
    case("clamp", [away_from(randn(3, 4), [-0.5, 0.5])], {"min": -0.5, "max": 0.5},
         lambda x: x.clamp(-0.5, 0.5)),
    case("clamp", [away_from(randn(3, 4), [0.0])], {"min": 0.0, "max": None}, lambda x: x.clamp(min=0.0),
         name="clamp_min_only"),
]
for op in ["eq", "ne", "lt", "le", "gt", "ge"]:
    a = randint(0, 3, 3, 4).double()
    b = randint(0, 3, 4).double()
    CASES.append(case(op, [a, b], {}, getattr(torch, op), grad=[]))

# Rounding, the binary ops remainder, atan2 and logaddexp, and the activations, the
# parametric ones (attributes: Note [Scalar attributes of unary ops]) with their
# defaults and with others. Rounding's gradient is zero: inputs stay away from the
# jumps (integers; round's halves), so central differences see no step.
F = torch.nn.functional
NEAR_INTEGERS = [float(k) for k in range(-8, 9)]
NEAR_HALVES = [k + 0.5 for k in range(-8, 8)]
for op in ["floor", "ceil", "trunc"]:
    CASES.append(case(op, [away_from(randn(3, 4) * 3, NEAR_INTEGERS)], {}, getattr(torch, op)))
    CASES.append(case(op, [randint(-5, 5, 4)], {}, getattr(torch, op), name=f"{op}_int"))
CASES += [
    case("round", [away_from(randn(3, 4) * 3, NEAR_HALVES)], {}, torch.round),
    case("round", [torch.tensor([0.5, 1.5, 2.5, -0.5, -1.5, -2.5, 3.49, -3.51], dtype=torch.float64)], {},
         torch.round, name="round_half_to_even", grad=[]),
    case("round", [randint(-5, 5, 4, dtype=torch.int32)], {}, torch.round, name="round_int"),
]


def remainder_operands(shape_a, shape_b):
    """a and b of both signs with a / b never near an integer, where remainder jumps."""
    b = rand(*shape_b, low=0.5, high=2.0) * torch.where(randn(*shape_b) > 0, 1.0, -1.0).double()
    q = randint(-3, 3, *shape_a).double() + rand(*shape_a, low=0.1, high=0.9)
    return q * b, b


a, b = remainder_operands((3, 4), (3, 4))
CASES.append(case("remainder", [a, b], {}, torch.remainder))
a, b = remainder_operands((2, 3), (3,))
CASES.append(case("remainder", [a, b], {}, torch.remainder, name="remainder_broadcast"))
CASES += [
    case("remainder", [randint(-9, 9, 6), torch.tensor([3, -3, 4, -4, 5, -2])], {}, torch.remainder,
         name="remainder_int_divisor_sign"),
    case("atan2", [randn(3, 4), randn(3, 4)], {}, torch.atan2),
    case("atan2", [randn(2, 3), randn(3)], {}, torch.atan2, name="atan2_broadcast"),
    case("atan2", [randint(-3, 3, 4), randint(1, 3, 4)], {}, torch.atan2, name="atan2_int_as_float", grad=[]),
    case("logaddexp", [randn(3, 4), randn(3, 4)], {}, torch.logaddexp),
    case("logaddexp", [randn(2, 3) * 30, randn(3) * 30], {}, torch.logaddexp, name="logaddexp_broadcast_wide"),
    case("hardswish", [away_from(randn(3, 4) * 3, [-3.0, 3.0])], {}, F.hardswish),
    case("mish", [randn(3, 4) * 2], {}, F.mish),
    case("softplus", [randn(3, 4) * 2], {}, F.softplus),
    case("softplus", [away_from(randn(3, 4), [0.5])], {"beta": 2.0, "threshold": 1.0},
         lambda x: F.softplus(x, beta=2.0, threshold=1.0), name="softplus_beta_threshold"),
    case("elu", [away_from(randn(3, 4), [0.0])], {}, F.elu),
    case("elu", [away_from(randn(3, 4), [0.0])], {"alpha": 0.5}, lambda x: F.elu(x, alpha=0.5), name="elu_alpha"),
    case("leaky_relu", [away_from(randn(3, 4), [0.0])], {}, F.leaky_relu),
    case("leaky_relu", [away_from(randn(3, 4), [0.0])], {"negative_slope": 0.2},
         lambda x: F.leaky_relu(x, negative_slope=0.2), name="leaky_relu_slope"),
    case("hardtanh", [away_from(randn(3, 4) * 2, [-1.0, 1.0])], {}, F.hardtanh),
    case("hardtanh", [away_from(randn(3, 4) * 2, [-0.5, 2.0])], {"min_val": -0.5, "max_val": 2.0},
         lambda x: F.hardtanh(x, min_val=-0.5, max_val=2.0), name="hardtanh_bounds"),
    case("logit", [rand(3, 4, low=0.05, high=0.95)], {}, torch.logit),
    case("logit", [away_from(rand(3, 4, low=0.05, high=0.95), [0.2, 0.8])], {"eps": 0.2},
         lambda x: torch.logit(x, eps=0.2), name="logit_eps"),
    # the gamma family: negative inputs (the reflection formulas) kept off the poles
    case("lgamma", [away_from(rand(3, 4, low=-3.0, high=-0.1), [-3.0, -2.0, -1.0])], {}, torch.lgamma,
         name="lgamma_negative"),
    case("digamma", [away_from(rand(3, 4, low=-3.0, high=-0.1), [-3.0, -2.0, -1.0])], {}, torch.digamma,
         name="digamma_negative"),
    case("polygamma", [rand(3, 4, low=0.2, high=12.0)], {"n": 1}, lambda x: torch.polygamma(1, x),
         name="polygamma_1"),
    case("polygamma", [rand(3, 4, low=0.2, high=12.0)], {"n": 2}, lambda x: torch.polygamma(2, x),
         name="polygamma_2"),
    case("polygamma", [away_from(rand(3, 4, low=-2.9, high=-0.1), [-2.0, -1.0])], {"n": 1},
         lambda x: torch.polygamma(1, x), name="polygamma_1_negative"),
    case("polygamma", [rand(2, 3, low=0.5, high=6.0)], {"n": 3}, lambda x: torch.polygamma(3, x),
         name="polygamma_3"),
    case("polygamma", [rand(2, 3, low=0.5, high=6.0)], {}, lambda x: torch.polygamma(0, x),
         name="polygamma_default_0"),
]

# threshold_backward: relu's gradient (grad where input > threshold), its input away
# from the threshold; the input's own gradient is zero, which gradcheck confirms.
CASES += [
    case("threshold_backward", [randn(3, 4), away_from(randn(3, 4), [0.0])], {"threshold": 0.0},
         lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.0)),
    case("threshold_backward", [randn(2, 3), away_from(randn(3), [0.5])], {"threshold": 0.5},
         lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.5), name="threshold_backward_broadcast"),
    case("threshold_backward", [randn(4), torch.tensor([-1.0, 0.0, 1e-9, 1.0], dtype=torch.float64)],
         {"threshold": 0.0}, lambda g, x: torch.ops.aten.threshold_backward(g, x, 0.0),
         name="threshold_backward_at_threshold", grad=[]),
]
