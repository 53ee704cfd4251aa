# Runtime errors: each case runs alone (sections split by '# ---'); the first line of
# the message is checked exactly (file:line:col: error: message), and some cases
# check the source line, the caret and the call trace too.

# case: undefined name

let loss = 1
print(lossx)
