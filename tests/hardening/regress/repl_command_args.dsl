# stdin
# status: 2
# The REPL's commands that take nothing took anything: `:quit now` left the session,
# dropping every entry piped after it, and `:vars x` ignored the x. Now each is a usage
# error and the session goes on with its variables.
# expect: a = 1
# expect: 2
# expect stderr: error: usage: :quit (it takes nothing, got 'now')
# expect stderr: error: usage: :vars
# expect stderr: error: usage: :exit (it takes nothing, got 'please')
let a = 1
:vars x
:quit now
:vars
:exit please
print(a + 1)
:quit
print(666)
