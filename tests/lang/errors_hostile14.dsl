# Hostile inputs, round 14, by hand. A message holding a NUL byte (fail's text, a key,
# a path) was printed as a C string, cut at the NUL, so the user saw "error: bad" with
# no source line and no caret (Note [NUL bytes in a message]); a path holding one was
# cut there by the system, so save, load, write_text, read_text, import, env and the
# others wrote or read another file or variable, silently (Note [A NUL byte in a
# path]); torch.* names of special's functions (x.mvlgamma(p=0), erfinv("a")) imported
# special at their first call and were then placed at a line of special.dsl, not the
# user's; autograd.functional took outputs that are not a tensor or a tuple of tensors
# (a nested tuple lost its inner Jacobians, silently; a dict was "key 0 not found" or a
# full stack); diff of a 0-dim tensor read past its shape and gave the input back;
# searchsorted's sorter was read unchecked (2**40 was a SIGSEGV); gradient took a dim
# twice; MultivariateNormal's and Dirichlet's log_prob of a value of the wrong event
# size, kl_divergence of two event shapes and Independent of a number failed inside
# the library's formulas, and masked_scatter_ of a larger mask inside expand. Each is
# now an error at the user's line naming what was expected and found;
# tests/lang/test_hostile14.dsl checks the values that still work.

# case: fail's message holding a NUL byte (the report stopped at the NUL: no source line, no caret)
# expect error: tests/lang/errors_hostile14.dsl:22:1: error: bad\0byte, and the rest of the message
# expect error line:   fail("bad\0byte, and the rest of the message")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
fail("bad\0byte, and the rest of the message")
# ---

# case: expect_error's report quoting an error that holds a NUL byte (cut at the NUL)
# expect error: tests/lang/errors_hostile14.dsl:29:1: error: expect_error: the error 'bad\0byte' does not contain 'other text'
# expect error line:   expect_error(fn() = fail("bad\0byte"), "other text")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
expect_error(fn() = fail("bad\0byte"), "other text")
# ---

# case: save to a path holding a NUL byte (it wrote a file named up to the NUL)
# expect error: tests/lang/errors_hostile14.dsl:36:1: error: save: cannot write '/nonexistent-hostile14/w\0x.safetensors': the path holds a NUL byte (\0) at byte 24, which no file name can hold
# expect error line:   save({"w": ones(2)}, "/nonexistent-hostile14/w\0x.safetensors")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
save({"w": ones(2)}, "/nonexistent-hostile14/w\0x.safetensors")
# ---

# case: load from a path holding a NUL byte (it read the file named up to the NUL)
# expect error: tests/lang/errors_hostile14.dsl:43:13: error: cannot load '/nonexistent-hostile14/w.safetensors\0junk': the path holds a NUL byte (\0) at byte 36, which no file name can hold
# expect error line:   let state = load("/nonexistent-hostile14/w.safetensors\0junk")
# expect error line:               ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let state = load("/nonexistent-hostile14/w.safetensors\0junk")
# ---

# case: write_text to a path holding a NUL byte
# expect error: tests/lang/errors_hostile14.dsl:50:1: error: write_text(): cannot write '/nonexistent-hostile14/notes\0.txt': the path holds a NUL byte (\0) at byte 28, which no file name can hold
# expect error line:   write_text("/nonexistent-hostile14/notes\0.txt", "text")
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
write_text("/nonexistent-hostile14/notes\0.txt", "text")
# ---

# case: read_text from a path holding a NUL byte
# expect error: tests/lang/errors_hostile14.dsl:57:12: error: read_text(): cannot open /nonexistent-hostile14/notes.txt\0x: the path holds a NUL byte (\0) at byte 32, which no file name can hold
# expect error line:   let text = read_text("/nonexistent-hostile14/notes.txt\0x")
# expect error line:              ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let text = read_text("/nonexistent-hostile14/notes.txt\0x")
# ---

# case: env of a name holding a NUL byte (env("HOME\0x") read HOME)
# expect error: tests/lang/errors_hostile14.dsl:64:7: error: env(): the name 'HOME\x00x' holds a NUL byte, which no variable's name can hold
# expect error line:   print(env("HOME\0x", "unset"))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~
print(env("HOME\0x", "unset"))
# ---

# case: import of a path holding a NUL byte (it ran the file named up to the NUL)
# expect error: tests/lang/errors_hostile14.dsl:71:1: error: cannot import '/nonexistent-hostile14/lib.dsl\0x': cannot open '/nonexistent-hostile14/lib.dsl\0x': the path holds a NUL byte (\0) at byte 30, which no file name can hold
# expect error line:   import "/nonexistent-hostile14/lib.dsl\0x" as lib
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import "/nonexistent-hostile14/lib.dsl\0x" as lib
# ---

# case: x.mvlgamma(p=0) at its first call (shown at a line of special.dsl)
# expect error: tests/lang/errors_hostile14.dsl:79:7: error: special.multigammaln(): p must be an int >= 1, got 0
# expect error line:   print(x.mvlgamma(p=0))
# expect error line:         ^~~~~~~~~~~~~~~
let x = tensor([2.0, 3.0])
print(x.mvlgamma(p=0))
# ---

# case: erfinv of a str at its first call (shown at a line of special.dsl)
# expect error: tests/lang/errors_hostile14.dsl:86:7: error: special.erfinv(): input must be a tensor, got str
# expect error line:   print(erfinv("0.5"))
# expect error line:         ^~~~~~~~~~~~~
print(erfinv("0.5"))
# ---

# case: mvlgamma inside a function, at its first call (the trace named special.dsl for the function)
# expect error: tests/lang/errors_hostile14.dsl:93:11: error: special.multigammaln(): p must be an int >= 1, got 0
# expect error line:   fn f(x) = mvlgamma(x, 0)
# expect error line:             ^~~~~~~~~~~~~~
fn f(x) = mvlgamma(x, 0)
print(f(tensor([2.0])))
# ---

# case: autograd.functional.jacobian of a nested tuple (it lost the inner Jacobians, silently)
# expect error: tests/lang/errors_hostile14.dsl:102:9: error: autograd.functional.jacobian(): func must return a tensor or a tuple of tensors, got a tuple whose item 1 is tuple
# expect error line:   let j = autograd.functional.jacobian(fn(x) = (x, (x, x)), tensor([1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let j = autograd.functional.jacobian(fn(x) = (x, (x, x)), tensor([1.0, 2.0]))
# ---

# case: autograd.functional.jacobian of a dict ("key 0 not found in dict")
# expect error: tests/lang/errors_hostile14.dsl:110:9: error: autograd.functional.jacobian(): func must return a tensor or a tuple of tensors, got dict
# expect error line:   let j = autograd.functional.jacobian(fn(x) = {"y": x}, tensor([1.0, 2.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let j = autograd.functional.jacobian(fn(x) = {"y": x}, tensor([1.0, 2.0]))
# ---

# case: autograd.functional.jvp of a dict (maximum recursion depth exceeded)
# expect error: tests/lang/errors_hostile14.dsl:118:9: error: autograd.functional.jvp(): func must return a tensor or a tuple of tensors, got dict
# expect error line:   let r = autograd.functional.jvp(fn(x) = {"y": x}, tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let r = autograd.functional.jvp(fn(x) = {"y": x}, tensor([1.0]))
# ---

# case: autograd.functional.jvp of a list holding a number ("'int' object is not iterable")
# expect error: tests/lang/errors_hostile14.dsl:126:9: error: autograd.functional.jvp(): func must return a tensor or a tuple of tensors, got a list whose item 1 is int
# expect error line:   let r = autograd.functional.jvp(fn(x) = [x, 7], tensor([1.0]))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let r = autograd.functional.jvp(fn(x) = [x, 7], tensor([1.0]))
# ---

# case: autograd.functional.vjp of a tuple holding a number ("int has no attribute 'shape'")
# expect error: tests/lang/errors_hostile14.dsl:134:9: error: autograd.functional.vjp(): func must return a tensor or a tuple of tensors, got a tuple whose item 1 is int
# expect error line:   let r = autograd.functional.vjp(fn(x) = (x, 3), tensor([1.0, 2.0]), (tensor([1.0, 1.0]), tensor(1.0)))
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import autograd
let r = autograd.functional.vjp(fn(x) = (x, 3), tensor([1.0, 2.0]), (tensor([1.0, 1.0]), tensor(1.0)))
# ---

# case: diff of a 0-dim tensor (it read past the shape and gave the input back)
# expect error: tests/lang/errors_hostile14.dsl:141:7: error: diff(): argument 'input' must be at least 1-D, got a 0-dim tensor
# expect error line:   print(diff(tensor(3.0)))
# expect error line:         ^~~~~~~~~~~~~~~~~
print(diff(tensor(3.0)))
# ---

# case: diff with prepend of fewer dims ("cat: dim 1 is out of range")
# expect error: tests/lang/errors_hostile14.dsl:148:7: error: diff(): argument 'prepend' must have as many dims as input (2), got shape [1]
# expect error line:   print(diff(tensor([[1.0, 2.0]]), prepend=tensor([1.0])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(diff(tensor([[1.0, 2.0]]), prepend=tensor([1.0])))
# ---

# case: diff with a 0-dim append ("cat: zero-dimensional tensor 0 cannot be concatenated")
# expect error: tests/lang/errors_hostile14.dsl:155:7: error: diff(): argument 'append' must have as many dims as input (1), got shape []
# expect error line:   print(diff(tensor([1.0, 2.0]), append=tensor(0.0)))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(diff(tensor([1.0, 2.0]), append=tensor(0.0)))
# ---

# case: searchsorted with a sorter index past the row (a SIGSEGV)
# expect error: tests/lang/errors_hostile14.dsl:162:7: error: searchsorted(): argument 'sorter' holds the index 1099511627776, out of range for rows of 3 elements
# expect error line:   print(searchsorted(tensor([1.0, 2.0, 3.0]), tensor([2.0]), sorter=tensor([2**40, 0, 1])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(searchsorted(tensor([1.0, 2.0, 3.0]), tensor([2.0]), sorter=tensor([2**40, 0, 1])))
# ---

# case: searchsorted with a negative sorter index (read before the row)
# expect error: tests/lang/errors_hostile14.dsl:169:7: error: searchsorted(): argument 'sorter' holds the index -1, out of range for rows of 3 elements
# expect error line:   print(searchsorted(tensor([1.0, 2.0, 3.0]), tensor([2.0]), sorter=tensor([-1, 0, 1])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print(searchsorted(tensor([1.0, 2.0, 3.0]), tensor([2.0]), sorter=tensor([-1, 0, 1])))
# ---

# case: gradient with a dim given twice (two answers for one dim)
# expect error: tests/lang/errors_hostile14.dsl:176:9: error: gradient(): argument 'dim': dim 0 appears more than once
# expect error line:   let g = gradient(tensor([[1.0, 4.0], [2.0, 3.0]]), dim=[0, -2])
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let g = gradient(tensor([[1.0, 4.0], [2.0, 3.0]]), dim=[0, -2])
# ---

# case: MultivariateNormal.log_prob of a value of the wrong event size (a broadcast error inside the library)
# expect error: tests/lang/errors_hostile14.dsl:185:7: error: distributions.MultivariateNormal.log_prob(): the rightmost size of value must match event_shape [2], got shape [3]
# expect error line:   print(m.log_prob(zeros(3)))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~
import distributions
let m = distributions.MultivariateNormal(zeros(2), eye(2))
print(m.log_prob(zeros(3)))
# ---

# case: Dirichlet.log_prob of a value of the wrong event size (a where() error inside the library)
# expect error: tests/lang/errors_hostile14.dsl:194:7: error: distributions.Dirichlet.log_prob(): the rightmost size of value must match event_shape [2], got shape [3]
# expect error line:   print(d.log_prob(tensor([0.5, 0.5, 0.0])))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let d = distributions.Dirichlet(tensor([1.0, 2.0]))
print(d.log_prob(tensor([0.5, 0.5, 0.0])))
# ---

# case: Independent of a number ("int has no attribute 'batch_shape'")
# expect error: tests/lang/errors_hostile14.dsl:202:9: error: distributions.Independent(): base_distribution must be a distribution, got int
# expect error line:   let i = distributions.Independent(3, 1)
# expect error line:           ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let i = distributions.Independent(3, 1)
# ---

# case: kl_divergence of two MultivariateNormals of different event shapes (broadcast_shapes inside the library)
# expect error: tests/lang/errors_hostile14.dsl:212:7: error: distributions.kl_divergence(): two MultivariateNormal distributions of different event shapes ([2] and [3]) have no KL divergence
# expect error line:   print(distributions.kl_divergence(p, q))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
let p = distributions.MultivariateNormal(zeros(2), eye(2))
let q = distributions.MultivariateNormal(zeros(3), eye(3))
print(distributions.kl_divergence(p, q))
# ---

# case: kl_divergence of two Dirichlets of different event shapes (a sub error inside the library)
# expect error: tests/lang/errors_hostile14.dsl:220:7: error: distributions.kl_divergence(): two Dirichlet distributions of different event shapes ([2] and [3]) have no KL divergence
# expect error line:   print(distributions.kl_divergence(distributions.Dirichlet(ones(2)), distributions.Dirichlet(ones(3))))
# expect error line:         ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
import distributions
print(distributions.kl_divergence(distributions.Dirichlet(ones(2)), distributions.Dirichlet(ones(3))))
# ---

# case: masked_scatter_ in place with a mask of more dims (failed in expand; out of place it broadcasts)
# expect error: tests/lang/errors_hostile14.dsl:228:1: error: masked_scatter_(): the result of masked_scatter has shape [2, 3], not this tensor's [3]
# expect error line:   x.masked_scatter_(tensor([[true, false, true], [true, true, true]]), tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
# expect error line:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
let x = zeros(3)
x.masked_scatter_(tensor([[true, false, true], [true, true, true]]), tensor([1.0, 2.0, 3.0, 4.0, 5.0]))
# ---
