# Hostile inputs, round 9: the function transforms called with no arguments or given a
# container that holds itself (SIGSEGV), or a primal that holds no tensor (the error
# blamed the function's result); linalg's functions given NaN (svd returned whatever
# its buffers held), empty matrices, dims out of range (taken modulo the rank), values
# that are not tensors, f16 or int dtypes; expand() to a negative size, uniform_()
# between infinities, in-place ops whose result a tensor's dtype cannot hold
# (truncated), named_tuple's fields, save() of text that is not UTF-8 (changed on
# load), module names with '.', float() of C's forms of a number (hex, text after a
# NUL), and f-string forms Python has and nabla does not.
# Each is now an error at the user's line naming what was expected and what was found.

# case: grad of a function called with no arguments (argnums 0 read past the arguments: SIGSEGV)
# expect error: tests/lang/errors_hostile9.dsl:17:7: error: grad(): argnums 0 is out of range: the function was called with 0 positional arguments
# expect error line:   print(g())
# expect error line:         ^~~
let g = grad(fn(x) = x.sum())
print(g())
# ---

# case: hessian called with no arguments (SIGSEGV)
# expect error: tests/lang/errors_hostile9.dsl:24:7: error: hessian(): argnums 0 is out of range: the function was called with 0 positional arguments
# expect error line:   print(hessian(fn(x) = x.sum())())
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~
print(hessian(fn(x) = x.sum())())
# ---

# case: vmap of a dict that holds itself (the walk over its leaves overflowed the stack: SIGSEGV)
# expect error: tests/lang/errors_hostile9.dsl:33:7: error: function transform (grad, vmap, jvp, ...): the dict contains itself (a reference cycle)
# expect error line:   print(vmap(fn(x) = x)(d))
# expect error line:         ^~~~~~~~~~~~~~~~~~
let d = {}
d["a"] = d
print(vmap(fn(x) = x)(d))
# ---

# case: grad of a list that holds itself (SIGSEGV)
# expect error: tests/lang/errors_hostile9.dsl:42:7: error: function transform (grad, vmap, jvp, ...): the list contains itself (a reference cycle)
# expect error line:   print(grad(fn(x) = x[0].sum())(l))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~
let l = [ones([2])]
l.append(l)
print(grad(fn(x) = x[0].sum())(l))
# ---

# case: vjp of a primal that holds no tensor (the error blamed the function's result)
# expect error: tests/lang/errors_hostile9.dsl:49:7: error: vjp: primal 0 has no tensor to differentiate: expected a tensor (or a list, tuple or dict of tensors), got int
# expect error line:   print(vjp(fn(x) = x * 2, 5))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~
print(vjp(fn(x) = x * 2, 5))
# ---

# case: jvp of a primal that holds no tensor
# expect error: tests/lang/errors_hostile9.dsl:56:7: error: jvp: primal 0 has no tensor to differentiate: expected a tensor (or a list, tuple or dict of tensors), got int
# expect error line:   print(jvp(fn(x) = x * 2, (5,), (5,)))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(jvp(fn(x) = x * 2, (5,), (5,)))
# ---

# case: jvp with no primals (a tangent of zeros for the output; functorch refuses it)
# expect error: tests/lang/errors_hostile9.dsl:63:7: error: jvp: primals must hold at least one tensor, got none
# expect error line:   print(jvp(fn() = ones([2]), (), ()))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(jvp(fn() = ones([2]), (), ()))
# ---

# case: vjp_fn given a number ("0 cotangent(s) were given")
# expect error: tests/lang/errors_hostile9.dsl:71:7: error: vjp_fn(): the cotangents must be tensors shaped like the function's output, got int
# expect error line:   print(pull(5))
# expect error line:         ^~~~~~~
let (y, pull) = vjp(fn(x) = x * 2, ones([3]))
print(pull(5))
# ---

# case: jacrev of an argument that holds no tensor
# expect error: tests/lang/errors_hostile9.dsl:78:7: error: jacrev: argument 0 (in argnums) has no tensor to differentiate: expected a tensor (or a list, tuple or dict of tensors), got str
# expect error line:   print(jacrev(fn(x) = x * 2)("a"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~
print(jacrev(fn(x) = x * 2)("a"))
# ---

# case: linalg.svd of a matrix with a NaN (gesdd wrote nothing: the factors were whatever the buffers held)
# expect error: tests/lang/errors_hostile9.dsl:86:9: error: svd: the algorithm failed to converge because the input matrix contained non-finite values (NaN), as PyTorch's linalg.svd reports
# expect error line:   let r = linalg.svd(tensor([[float("nan"), 0.0], [0.0, 1.0]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.svd(tensor([[float("nan"), 0.0], [0.0, 1.0]]))
# ---

# case: linalg.pinv of a matrix with a NaN (garbage through the same svd)
# expect error: tests/lang/errors_hostile9.dsl:94:9: error: svd: the algorithm failed to converge because the input matrix contained non-finite values (NaN), as PyTorch's linalg.svd reports
# expect error line:   let r = linalg.pinv(tensor([[1.0, float("nan")], [0.0, 1.0]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.pinv(tensor([[1.0, float("nan")], [0.0, 1.0]]))
# ---

# case: linalg.matrix_norm with a dim past the matrix's (dim=[0, 5] was taken as [0, 1])
# expect error: tests/lang/errors_hostile9.dsl:102:9: error: linalg.matrix_norm: dim 5 is out of range for A of shape [3, 3] (expected a dim in [-2, 1])
# expect error line:   let r = linalg.matrix_norm(ones([3, 3]), dim=[0, 5])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_norm(ones([3, 3]), dim=[0, 5])
# ---

# case: linalg.matrix_norm with a str as dim ("use f-strings to format strings")
# expect error: tests/lang/errors_hostile9.dsl:110:9: error: linalg.matrix_norm: dim must be 2 dims, got 'ab'
# expect error line:   let r = linalg.matrix_norm(ones([3, 3]), dim="ab")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_norm(ones([3, 3]), dim="ab")
# ---

# case: linalg.matrix_norm with an int as dim ("object of type 'int' has no len()")
# expect error: tests/lang/errors_hostile9.dsl:118:9: error: linalg.matrix_norm: dim must be 2 dims, got 1
# expect error line:   let r = linalg.matrix_norm(ones([3, 3]), dim=1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_norm(ones([3, 3]), dim=1)
# ---

# case: linalg.matrix_norm of ord 2 over an empty matrix (failed inside as max_dim of a [0])
# expect error: tests/lang/errors_hostile9.dsl:126:9: error: linalg.matrix_norm: ord 2 takes a max or min over an empty dim of A of shape [0, 3]
# expect error line:   let r = linalg.matrix_norm(zeros([0, 3]), 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_norm(zeros([0, 3]), 2)
# ---

# case: linalg.vector_norm of ord inf over no elements (max_dim of the library's [0])
# expect error: tests/lang/errors_hostile9.dsl:134:9: error: norm: cannot compute the inf norm over no elements (input of shape [0]): it has no identity, as PyTorch's linalg.vector_norm reports
# expect error line:   let r = linalg.vector_norm(zeros([0]), float("inf"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.vector_norm(zeros([0]), float("inf"))
# ---

# case: norm of a negative ord over no elements (it was 0; PyTorch refuses it)
# expect error: tests/lang/errors_hostile9.dsl:141:9: error: norm: cannot compute the -1.0 norm over no elements (input of shape [2, 0]): it has no identity, as PyTorch's linalg.vector_norm reports
# expect error line:   let r = zeros([2, 0]).norm(-1, 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
let r = zeros([2, 0]).norm(-1, 1)
# ---

# case: linalg.solve with a number as B ("int has no attribute 'ndim'")
# expect error: tests/lang/errors_hostile9.dsl:149:9: error: linalg.solve: B must be a tensor, got int
# expect error line:   let r = linalg.solve(eye(3), 5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.solve(eye(3), 5)
# ---

# case: linalg.multi_dot of a number ("object of type 'int' has no len()")
# expect error: tests/lang/errors_hostile9.dsl:157:9: error: linalg.multi_dot: tensors must be a list of tensors, got int
# expect error line:   let r = linalg.multi_dot(5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.multi_dot(5)
# ---

# case: linalg.multi_dot with a number in the list (matmul of a [] failed inside)
# expect error: tests/lang/errors_hostile9.dsl:165:9: error: linalg.multi_dot: tensors[1] must be a tensor, got int
# expect error line:   let r = linalg.multi_dot([ones([2, 3]), 5])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.multi_dot([ones([2, 3]), 5])
# ---

# case: linalg.matrix_power of a number ("int has no attribute 'ndim'")
# expect error: tests/lang/errors_hostile9.dsl:173:9: error: linalg.matrix_power: A must be a tensor, got int
# expect error line:   let r = linalg.matrix_power(5, 2)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_power(5, 2)
# ---

# case: linalg.pinv with a str as rtol ("cannot multiply str and tensor")
# expect error: tests/lang/errors_hostile9.dsl:181:9: error: linalg.pinv: rtol must be none, a number or a tensor, got str
# expect error line:   let r = linalg.pinv(eye(3), rtol="a")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.pinv(eye(3), rtol="a")
# ---

# case: linalg.lstsq with a str as rcond
# expect error: tests/lang/errors_hostile9.dsl:189:9: error: linalg.lstsq: rcond must be none, a number or a tensor, got str
# expect error line:   let r = linalg.lstsq(eye(3), ones([3]), rcond="a")
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.lstsq(eye(3), ones([3]), rcond="a")
# ---

# case: linalg.matrix_exp of an int matrix (it was computed; PyTorch refuses it)
# expect error: tests/lang/errors_hostile9.dsl:197:9: error: linalg.matrix_exp: A must be a floating tensor, got i64, as PyTorch's (convert it with .to(f32))
# expect error line:   let r = linalg.matrix_exp(tensor([[1, 2], [3, 4]]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.matrix_exp(tensor([[1, 2], [3, 4]]))
# ---

# case: linalg.svd with an int as full_matrices (taken as true)
# expect error: tests/lang/errors_hostile9.dsl:205:9: error: linalg.svd: full_matrices must be true or false, got int
# expect error line:   let r = linalg.svd(eye(2), full_matrices=5)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import linalg
let r = linalg.svd(eye(2), full_matrices=5)
# ---

# case: eye of a width past memory (std::vector's 'cannot create std::vector larger than max_size()')
# expect error: tests/lang/errors_hostile9.dsl:212:9: error: the shape [3, 4611686018427387904] has more elements than fit in 64 bits
# expect error line:   let e = eye(3, 2 ** 62)
# expect error line:           ^~~~~~~~~~~~~~~
let e = eye(3, 2 ** 62)
# ---

# case: expand to a negative size (a view of size -2, which failed later at column 1 as 'empty')
# expect error: tests/lang/errors_hostile9.dsl:219:9: error: expand: the target shape [-2, 2] has a negative size -2 at dim 0 (only -1, keep the size, is allowed)
# expect error line:   let e = ones([2]).expand([-2, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~
let e = ones([2]).expand([-2, 2])
print(e)
# ---

# case: uniform_ between infinities (it filled NaN; PyTorch refuses it)
# expect error: tests/lang/errors_hostile9.dsl:227:9: error: uniform_(): arguments 'from' (-inf) and 'to' (inf) must be finite, within f32's range, and at most its largest (3.4028234663852886e+38) apart
# expect error line:   let u = zeros([3]).uniform_(float("-inf"), float("inf"))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let u = zeros([3]).uniform_(float("-inf"), float("inf"))
# ---

# case: uniform_ over a width past f32's largest
# expect error: tests/lang/errors_hostile9.dsl:234:9: error: uniform_(): arguments 'from' (-3e+38) and 'to' (3e+38) must be finite, within f32's range, and at most its largest (3.4028234663852886e+38) apart
# expect error line:   let u = zeros([3]).uniform_(-3e38, 3e38)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let u = zeros([3]).uniform_(-3e38, 3e38)
# ---

# case: add_ of a float into an int tensor (1.5 was truncated to 1)
# expect error: tests/lang/errors_hostile9.dsl:242:1: error: add_: the result's dtype f32 cannot be written into a tensor of dtype i64 in place (it would be truncated; PyTorch refuses it too): use the out-of-place op, or convert the tensor first (.to(f32))
# expect error line:   x.add_(1.5)
# expect error line:   ^~~~~~~~~~~
let x = zeros([3], dtype=i64)
x.add_(1.5)
# ---

# case: exp_ of an int tensor (the floats were truncated)
# expect error: tests/lang/errors_hostile9.dsl:250:1: error: exp_(): the result's dtype f32 cannot be written into a tensor of dtype i64 in place (it would be truncated; PyTorch refuses it too): use exp(), or convert the tensor first (.to(f32))
# expect error line:   x.exp_()
# expect error line:   ^~~~~~~~
let x = zeros([3], dtype=i64)
x.exp_()
# ---

# case: clamp_ of an int tensor between floats
# expect error: tests/lang/errors_hostile9.dsl:258:1: error: clamp_(): the result's dtype f32 cannot be written into a tensor of dtype i64 in place (it would be truncated; PyTorch refuses it too): use clamp(), or convert the tensor first (.to(f32))
# expect error line:   x.clamp_(0.5, 1.5)
# expect error line:   ^~~~~~~~~~~~~~~~~~
let x = zeros([3], dtype=i64)
x.clamp_(0.5, 1.5)
# ---

# case: add_ of an int into a bool tensor
# expect error: tests/lang/errors_hostile9.dsl:266:1: error: add_: the result's dtype i64 cannot be written into a tensor of dtype bool in place (it would be truncated; PyTorch refuses it too): use the out-of-place op, or convert the tensor first (.to(i64))
# expect error line:   x.add_(2)
# expect error line:   ^~~~~~~~~
let x = zeros([3], dtype=bool)
x.add_(2)
# ---

# case: named_tuple with a field twice (t.a read the first)
# expect error: tests/lang/errors_hostile9.dsl:273:9: error: named_tuple(): field 'a' appears twice
# expect error line:   let t = named_tuple(["a", "a"], [1, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let t = named_tuple(["a", "a"], [1, 2])
# ---

# case: named_tuple with a field that is not a name (t.(a b) cannot be read)
# expect error: tests/lang/errors_hostile9.dsl:280:9: error: named_tuple(): field 'a b' is not a name (letters, digits and '_', not starting with a digit or '_', not a reserved word)
# expect error line:   let t = named_tuple(["a b", "c"], [1, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let t = named_tuple(["a b", "c"], [1, 2])
# ---

# case: named_tuple with a reserved word as a field
# expect error: tests/lang/errors_hostile9.dsl:287:9: error: named_tuple(): field 'if' is not a name (letters, digits and '_', not starting with a digit or '_', not a reserved word)
# expect error line:   let t = named_tuple(["if", "c"], [1, 2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let t = named_tuple(["if", "c"], [1, 2])
# ---

# case: save of a str that is not UTF-8 (written with U+FFFD, loaded back changed)
# expect error: tests/lang/errors_hostile9.dsl:294:1: error: save(): the str at 'name' is not UTF-8 text (byte 0xFF at offset 0), which a checkpoint's JSON header cannot hold; store such bytes as a u8 tensor or a list of ints
# expect error line:   save({"name": "\xff\xfe"}, "/tmp/nabla_hostile9_not_written.safetensors")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
save({"name": "\xff\xfe"}, "/tmp/nabla_hostile9_not_written.safetensors")
# ---

# case: save of a dict key that is not UTF-8 (a tensor's name changed on load)
# expect error: tests/lang/errors_hostile9.dsl:301:1: error: save(): the dict key at 'w\xff' is not UTF-8 text (byte 0xFF at offset 1), which a checkpoint's JSON header cannot hold; store such bytes as a u8 tensor or a list of ints
# expect error line:   save({"w\xff": ones([2])}, "/tmp/nabla_hostile9_not_written.safetensors")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
save({"w\xff": ones([2])}, "/tmp/nabla_hostile9_not_written.safetensors")
# ---

# case: register_buffer with a dotted name (state_dict keys join names with '.')
# expect error: tests/lang/errors_hostile9.dsl:310:1: error: register_buffer(): the name 'a.b' must not contain '.' (state_dict keys join names with it)
# expect error line:   m.register_buffer("a.b", ones([2]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
model M() { forward(x) = x }
let m = M()
m.register_buffer("a.b", ones([2]))
# ---

# case: add_module with an empty name (a state_dict key '.w')
# expect error: tests/lang/errors_hostile9.dsl:319:1: error: add_module(): the name must not be empty
# expect error line:   m.add_module("", nn.Linear(2, 2))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import nn
let m = nn.Sequential()
m.add_module("", nn.Linear(2, 2))
# ---

# case: float of a hex str (C's strtod read '0x10' as 16.0; Python refuses it)
# expect error: tests/lang/errors_hostile9.dsl:326:9: error: could not convert string to float: '0x10'
# expect error line:   let f = float("0x10")
# expect error line:           ^~~~~~~~~~~~~
let f = float("0x10")
# ---

# case: float of a str with a NUL (the text ended at the NUL, 1.0, and the message was cut there)
# expect error: tests/lang/errors_hostile9.dsl:333:9: error: could not convert string to float: '1\x002'
# expect error line:   let f = float("1\u{0}2")
# expect error line:           ^~~~~~~~~~~~~~~~
let f = float("1\u{0}2")
# ---

# case: str.format with a nested field in a spec ("unknown format code '{'")
# expect error: tests/lang/errors_hostile9.dsl:340:7: error: format spec '{': a nested field ('{' inside a spec) is not supported: write the spec out, as in '>10'
# expect error line:   print("{:{}}".format(5, 3))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~
print("{:{}}".format(5, 3))
# ---

# case: an f-string with a nested field in a spec ("expected '\"'" at the end of the line)
# expect syntax error: tests/lang/errors_hostile9.dsl:348:15: error: a format spec cannot hold a nested field ('{' inside '{x:...}'): write the spec out, as in {x:>10}
# expect error line:   print(f"{3.5:>{w}}")
# expect error line:                 ^
let w = 5
print(f"{3.5:>{w}}")
# ---

# case: an f-string with Python's !r conversion ("expected '}'")
# expect syntax error: tests/lang/errors_hostile9.dsl:355:13: error: f-string conversions (!r, !s) are not supported: write {repr(x)} or {str(x)}
# expect error line:   print(f"{'a'!r}")
# expect error line:               ^
print(f"{'a'!r}")
# ---

# case: an f-string with Python's {x=} ("expected '}'")
# expect syntax error: tests/lang/errors_hostile9.dsl:363:11: error: '=' after an f-string expression (Python's {x=}) is not supported: write x={x}
# expect error line:   print(f"{x=}")
# expect error line:             ^
let x = 1
print(f"{x=}")
# ---
