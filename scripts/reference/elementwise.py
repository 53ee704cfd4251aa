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
