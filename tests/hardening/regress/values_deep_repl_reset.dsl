# Issue 25 item 1: :reset in the REPL frees a 10^6-deep list and dict (the old main
# module's globals), and the session goes on; so does the exit after it.
# stdin
# status: 0
# timeout: 120
# no stderr: error
let l = []
for i in range(1000000) { l = [l] }
let d = {}
for i in range(1000000) { d = {"a": d} }
:reset
print("after reset")
let again = []
for i in range(1000000) { again = [again, {}] }
