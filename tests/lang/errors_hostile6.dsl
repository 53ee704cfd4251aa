# Hostile inputs, round 6: str.format's fields (an index too long for an int threw
# std::stoul's bare "stoul", "{0.x}" and a lone '}' were read as something else), an
# index tensor's element read as a double (2^63 - 1 shown as 9.2e18), and model methods'
# arguments (zero_grad's set_to_none). Each is an error at the user's line naming what
# was expected and what was found.

# case: a format field's index too long for an int (std::stoul threw; the message was "stoul")
# expect error: tests/lang/errors_hostile6.dsl:11:7: error: format(): index 99999999999999999999 out of range (1 positional arguments)
# expect error line:   print("{99999999999999999999}".format(1))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print("{99999999999999999999}".format(1))
# ---

# case: a format field with an attribute lookup ("{0.x}" printed argument 0)
# expect error: tests/lang/errors_hostile6.dsl:18:7: error: format(): field '0.x': attribute and item lookups in a field are not supported (format the value first)
# expect error line:   print("{0.x}".format(1))
# expect error line:         ^~~~~~~~~~~~~~~~~
print("{0.x}".format(1))
# ---

# case: a lone '}' in a format string (it was copied as it was)
# expect error: tests/lang/errors_hostile6.dsl:25:7: error: format(): single '}' encountered (a brace is written '}}')
# expect error line:   print("a}b".format(2))
# expect error line:         ^~~~~~~~~~~~~~~
print("a}b".format(2))
# ---

# case: a format conversion other than !s and !r
# expect error: tests/lang/errors_hostile6.dsl:32:7: error: format(): unknown conversion '!x' (expected !s or !r)
# expect error line:   print("{0!x}".format(2))
# expect error line:         ^~~~~~~~~~~~~~~~~
print("{0!x}".format(2))
# ---

# case: an index tensor's element past 2^53 named exactly (it was 9.223372036854776e+18)
# expect error: tests/lang/errors_hostile6.dsl:40:1: error: index 9223372036854775807 is out of range for dim 0 of size 2
# expect error line:   x[tensor([9223372036854775807])] = 1
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = zeros([2, 3])
x[tensor([9223372036854775807])] = 1
# ---

# case: zero_grad's set_to_none must be a bool
# expect error: tests/lang/errors_hostile6.dsl:49:1: error: zero_grad(): argument 'set_to_none' must be a bool, got int
# expect error line:   m.zero_grad(set_to_none=1)
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Linear(2, 3)
m.zero_grad(set_to_none=1)
# ---

# case: a value whose leading size-1 dims are dropped must still fit (x[0] = [[1, 2]] into one element)
# expect error: tests/lang/errors_hostile6.dsl:57:1: error: copy_: src of shape [1, 2] cannot be broadcast to the destination shape []
# expect error line:   z[0] = tensor([[3.0, 4.0]])
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~
let z = zeros([2])
z[0] = tensor([[3.0, 4.0]])
# ---

# case: a layer's size argument names the layer and the argument (it failed as zeros()'s negative size)
# expect error: tests/lang/errors_hostile6.dsl:64:9: error: Linear: argument 'in_features' must be an int >= 0, got -1
# expect error line:   let l = nn.Linear(-1, 3)
import nn
let l = nn.Linear(-1, 3)
# ---

# case: each dim of a normalized shape is checked as a size
# expect error: tests/lang/errors_hostile6.dsl:71:10: error: LayerNorm: argument 'normalized_shape' must be an int >= 0, got 2.5
# expect error line:   let ln = nn.LayerNorm([4, 2.5])
import nn
let ln = nn.LayerNorm([4, 2.5])
# ---

# case: an embedding table of a negative number of rows
# expect error: tests/lang/errors_hostile6.dsl:78:9: error: Embedding: argument 'num_embeddings' must be an int >= 0, got -2
# expect error line:   let e = nn.Embedding(-2, 3)
import nn
let e = nn.Embedding(-2, 3)
