# stdin
# args: --sandbox
# With --sandbox the REPL's :load is refused before the file is opened (its syntax
# error used to print the file's first line), and env() reads only the launch
# variables; the session keeps its state after each refusal.
# status: 1
# expect: 2
# expect: 0
# expect: 3
# expect stderr: error: :load is not available in sandbox mode
# expect stderr: env('HOME') is not available in sandbox mode
# expect stderr: env('NABLA_HISTORY') is not available in sandbox mode
# expect stderr: import "/etc/passwd" is not available in sandbox mode
# no stderr: root:
let x = 1
:load /etc/passwd
:load /proc/self/environ
print(x + 1)
env("HOME")
env("NABLA_HISTORY", "none")
import "/etc/passwd"
print(env("RANK", "0"))
print(x + 2)
