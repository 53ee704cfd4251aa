# stdin
# A string left open at the end of a line is wrong for good (strings end at their
# line), yet the REPL read it as an entry to continue: the next entry (`print(a)`)
# was swallowed into it and never ran. Each entry after an error still runs, with the
# session's variables. `:help :nosuch` named an undefined variable 'nosuch', and
# `:load "file.dsl"` looked for a file whose name held the quotes. `:graph fn(x) = x`
# hinted at calling it as `fn(x) = x(x)`, which calls x.
# status: 2
# expect: 5
# expect: 6
# expect: 7
# expect: 8
# expect stderr: >:1:13: error: expected '"' to close the string started at 1:9
# expect stderr: >:1:11: error: expected "'" to close the string started at 1:9
# expect stderr: error: unknown command ':nosuch' (:help lists them)
# expect stderr: error: cannot open 'no_such_hostile10_file.dsl'
# expect stderr: call it with them, (fn(x) = x * 2)(x), define NAME_inputs
# no stderr: undefined name 'nosuch'
let a = 5
let s = "abc
print(a)
let t = 'x
print(a + 1)
:help :nosuch
print(a + 2)
:load "no_such_hostile10_file.dsl"
let u = """open
across lines"""
print(a + 3)
:graph fn(x) = x * 2
