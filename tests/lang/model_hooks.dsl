# A model's __getattr__ and __setattr__ methods (docs/LANGUAGE.md, "Models"): Python's
# hooks for names that are not fields.

# case: __getattr__ answers names that are neither fields nor methods
model Defaults() {
  known = 1
  __getattr__(name) = f"default for {name}"
  twice(x) = 2 * x
}
let d = Defaults()
print(d.known)                 # expect: 1
print(d.missing)               # expect: default for missing
print(d.twice(4))              # expect: 8
print(getattr(d, "other", 0))  # expect: default for other
# ---
# case: __setattr__ sees assignments to names that are not fields; fields assign as usual
model Recorder() {
  seen = []
  __setattr__(name, value) { self.seen.append((name, value)) }
}
let r = Recorder()
r.speed = 3
print(r.seen)                  # expect: [('speed', 3)]
r.seen = ["replaced"]
print(r.seen)                  # expect: ['replaced']
# ---
# case: a hook's error is traced to the line that read the attribute
# expect error: tests/lang/model_hooks.dsl:32:23: error: no attribute 'speed' here
# expect error line:   at tests/lang/model_hooks.dsl:32:23 in Strict.__getattr__()
# expect error line:   at tests/lang/model_hooks.dsl:35:7 in <module>
model Strict() {
  __getattr__(name) = fail(f"no attribute '{name}' here")
}
let s = Strict()
print(s.speed)
# ---
# case: fail(msg) raises msg itself
# expect error: tests/lang/model_hooks.dsl:39:1: error: expected a matrix, got 1 dims
fail(f"expected a matrix, got {1} dims")
