# Round 5 of the differential tests against PyTorch (tests/stdlib/test_*_vs_torch5.dsl):
# nn.init's arguments that silently did something else, now errors at the user's line
# naming the function, the argument, what was expected and what was found, as
# PyTorch's ValueErrors do.

# case: kaiming_uniform_'s mode neither fan_in nor fan_out (it silently meant fan_out)
# expect error: tests/lang/errors_vs_torch5.dsl:11:1: error: kaiming_uniform_(): argument 'mode' must be "fan_in" or "fan_out", got 'fan_avg'
# expect error line:   nn.init.kaiming_uniform_(zeros([4, 3]), mode="fan_avg")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.kaiming_uniform_(zeros([4, 3]), mode="fan_avg")
# ---

# case: kaiming_normal_'s mode in capitals (PyTorch's is case-sensitive too)
# expect error: tests/lang/errors_vs_torch5.dsl:19:1: error: kaiming_normal_(): argument 'mode' must be "fan_in" or "fan_out", got 'FAN_IN'
# expect error line:   nn.init.kaiming_normal_(zeros([4, 3]), mode="FAN_IN")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
nn.init.kaiming_normal_(zeros([4, 3]), mode="FAN_IN")
# ---

# case: calculate_gain of a name PyTorch has no gain for (it was "assertion failed")
# expect error: tests/lang/errors_vs_torch5.dsl:27:9: error: calculate_gain(): unsupported nonlinearity 'softmax'
# expect error line:   let g = nn.init.calculate_gain("softmax")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let g = nn.init.calculate_gain("softmax")
# ---

# case: leaky_relu's slope given as a bool (PyTorch refuses it; true squared was 1)
# expect error: tests/lang/errors_vs_torch5.dsl:35:9: error: calculate_gain(): negative_slope true is not a valid number
# expect error line:   let g = nn.init.calculate_gain("leaky_relu", true)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let g = nn.init.calculate_gain("leaky_relu", true)
# ---
