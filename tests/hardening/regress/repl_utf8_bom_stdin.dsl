print(1 + 2); let x = 1 + "a"
# stdin
# A program piped to the REPL (`nabla < prog.dsl`) that starts with a UTF-8 byte
# order mark (as Windows editors write it) runs, as the same file run as a script
# does (source_utf8_bom.dsl): the REPL read the mark as code, "expected a statement"
# at 1:1, and the first line never ran. The entries after an error still run.
# expect: 3
# expect: 5
# status: 1
# expect stderr: <repl:1>:1:23: error: cannot add int and str
# no stderr: expected a statement
print(x if false else 5)
