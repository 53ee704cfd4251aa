"""Reference cases of the losses (loss.cpp). The reduction attribute is an int:
0 none, 1 mean, 2 sum. Targets of the class losses are i64 indices and are not
gradchecked (grad=[0])."""
import torch
import torch.nn.functional as F
from lib import case, randn, rand, randint

REDUCTIONS = {"none": 0, "mean": 1, "sum": 2}


def class_case(op, x, target, reduction, name, ignore_index=-100, label_smoothing=None):
    attrs = {"reduction": REDUCTIONS[reduction], "ignore_index": ignore_index}
    if op == "cross_entropy":
        attrs["label_smoothing"] = 0.0 if label_smoothing is None else label_smoothing
        fn = lambda x, t: F.cross_entropy(x, t, reduction=reduction, ignore_index=ignore_index,
                                          label_smoothing=attrs["label_smoothing"])
    else:
        fn = lambda x, t: F.nll_loss(x, t, reduction=reduction, ignore_index=ignore_index)
    return case(op, [x, target], attrs, fn, name=name, grad=[0])


def pointwise_case(op, fn, x, t, reduction):
    return case(op, [x, t], {"reduction": REDUCTIONS[reduction]},
                lambda x, t: fn(x, t, reduction=reduction), name=f"{op}_{reduction}")


CASES = []
for r in REDUCTIONS:
    CASES.append(class_case("cross_entropy", randn(4, 5), randint(0, 5, 4), r, f"cross_entropy_{r}"))
    CASES.append(class_case("nll_loss", F.log_softmax(randn(4, 5), 1), randint(0, 5, 4), r, f"nll_loss_{r}"))
    CASES.append(pointwise_case("mse_loss", F.mse_loss, randn(3, 4), randn(3, 4), r))
    CASES.append(pointwise_case("binary_cross_entropy", F.binary_cross_entropy,
                                rand(3, 4, low=0.1, high=0.9), rand(3, 4), r))
    CASES.append(pointwise_case("binary_cross_entropy_with_logits", F.binary_cross_entropy_with_logits,
                                randn(3, 4) * 2, rand(3, 4), r))

IGNORED = torch.tensor([0, -100, 3, 1, -100, 2])
CASES += [
    class_case("cross_entropy", randn(6, 4), IGNORED, "mean", "cross_entropy_ignore_default"),
    class_case("cross_entropy", randn(6, 4), torch.tensor([0, 2, 3, 2, 1, 2]), "sum", "cross_entropy_ignore_2",
               ignore_index=2),
    class_case("cross_entropy", randn(4, 5), randint(0, 5, 4), "mean", "cross_entropy_smoothing",
               label_smoothing=0.1),
    class_case("cross_entropy", randn(6, 4), IGNORED, "none", "cross_entropy_smoothing_ignore_none",
               label_smoothing=0.25),
    class_case("cross_entropy", randn(6, 4), IGNORED, "mean", "cross_entropy_smoothing_ignore_mean",
               label_smoothing=0.25),
    class_case("cross_entropy", randn(2, 3, 2, 2), randint(0, 3, 2, 2, 2), "mean", "cross_entropy_spatial"),
    class_case("cross_entropy", randn(2, 3, 2, 2), randint(0, 3, 2, 2, 2), "none", "cross_entropy_spatial_none",
               label_smoothing=0.2),
    class_case("cross_entropy", randn(5), torch.tensor(3), "mean", "cross_entropy_unbatched"),
    class_case("nll_loss", F.log_softmax(randn(6, 4), 1), IGNORED, "mean", "nll_loss_ignore_default"),
    class_case("nll_loss", F.log_softmax(randn(2, 3, 4), 1), randint(0, 3, 2, 4), "none", "nll_loss_spatial",
               ignore_index=1),
]
