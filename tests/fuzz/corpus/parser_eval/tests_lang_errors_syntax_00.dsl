# Syntax errors: each case runs alone (sections split by '# ---'); the first line
# of the message is checked exactly, and the unclosed-delimiter cases also name
# their opener.

# case: unclosed parenthesis at the end

let a = 1
print(a + 2
