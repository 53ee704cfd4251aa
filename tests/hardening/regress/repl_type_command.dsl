# stdin
# status: 2
# The REPL's `:type expr` ran "type(" + expr + ")": its errors quoted that text, not the
# entry, at shifted columns, and a `)` in the entry closed the call early, so
# `:type 1); print(666); (2` ran other statements. Now the entry is parsed alone, as one
# expression, and its errors point into it.
# expect: 'tensor'
# expect: 'none'
# no stderr: type(
# expect stderr: :1:4: error: expected an expression after the operator
# expect stderr: :1:1: error: undefined name 'a'
# expect stderr: :1:2: error: expected a newline or ';' after the statement
# expect stderr: error: usage: :type expr (one expression, got 2 statements)
# expect stderr: error: usage: :type expr (one expression, got 1 statement that is not an expression)
:type randn([2])
:type none
:type 1 *)
:type a, b
:type 1); print(666); (2
:type print(666); 5
:type let q = 1
