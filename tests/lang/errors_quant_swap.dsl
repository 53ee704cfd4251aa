# quant.swap_modules given a convert function that returns something other than a module
# or none: a number set in place of a layer dropped the layer from the model without a
# word (and from the root, came back as the "model"); now each is an error at the calling
# line naming what convert returned and for which module.

# case: convert returns a number for a child layer (the Linear vanished from the Sequential)
# expect error: tests/lang/errors_quant_swap.dsl:13:9: error: quant.swap_modules(): convert returned 5 for a Linear; it must return a module (the replacement) or none (keep the module)
# expect error line:   let r = quant.swap_modules(m, fn(l) = 5 if isinstance(l, nn.Linear) else none)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import quant
let m = nn.Sequential([nn.Linear(2, 2), nn.ReLU()])
let r = quant.swap_modules(m, fn(l) = 5 if isinstance(l, nn.Linear) else none)
# ---
# case: convert returns a model class, not an instance
# expect error: tests/lang/errors_quant_swap.dsl:22:9: error: quant.swap_modules(): convert returned the model class Identity (not an instance) for a ReLU; it must return a module (the replacement) or none (keep the module)
# expect error line:   let r = quant.swap_modules(m, fn(l) = nn.Identity if isinstance(l, nn.ReLU) else none)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import quant
let m = nn.Sequential([nn.Linear(2, 2), nn.ReLU()])
let r = quant.swap_modules(m, fn(l) = nn.Identity if isinstance(l, nn.ReLU) else none)
# ---
# case: convert returns a tensor for the model itself (it came back as the result)
# expect error: tests/lang/errors_quant_swap.dsl:31:9: error: quant.swap_modules(): convert returned tensor for a Sequential; it must return a module (the replacement) or none (keep the module)
# expect error line:   let r = quant.swap_modules(m, fn(l) = zeros([2]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
import quant
let m = nn.Sequential([nn.Linear(2, 2)])
let r = quant.swap_modules(m, fn(l) = zeros([2]))
# ---
# case: fuse_conv_bn over a Conv2d and a BatchNorm2d of other channel counts
# expect error: tests/lang/errors_quant_swap.dsl:41:1: error: quant.fuse_conv_bn: the Conv2d before '1' has 5 output channels (weight [5, 3, 3, 3]) but the BatchNorm2d '1' has 4 features (running_mean [4])
# expect error line:   quant.fuse_conv_bn(m)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~
import nn
import quant
let m = nn.Sequential([nn.Conv2d(3, 5, 3), nn.BatchNorm2d(4)])
m.eval()
quant.fuse_conv_bn(m)
