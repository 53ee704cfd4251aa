# Errors of deep and long input (issue 25): nesting without brackets, escapes that
# are not characters, chained comparisons, a long line's echo window. Generated
# lines; each case runs alone.

# case: `**` nested past 200 levels, without a bracket
# expect syntax error: tests/lang/parser_errors.dsl:9:1014: error: expressions nest deeper than 200 levels
# expect error line:   ...2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2
# expect error line:                                                                                      ^
let p = 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2 ** 2
# ---
# case: nested lambdas past 200 levels
# expect syntax error: tests/lang/parser_errors.dsl:15:1617: error: expressions nest deeper than 200 levels
# expect error line:   ...fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = x
# expect error line:                                                                                      ^
let f = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = fn(x) = x
# ---
# case: an else chain past 200 levels
# expect syntax error: tests/lang/parser_errors.dsl:21:2421: error: expressions nest deeper than 200 levels
# expect error line:   ... a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a e...
# expect error line:                                                                                      ^
let c = 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 0 if a else 1
# ---
# case: a surrogate escape
# expect syntax error: tests/lang/parser_errors.dsl:27:12: error: \u{DFFF} is a UTF-16 surrogate, not a character (U+D800 to U+DFFF have no UTF-8 form)
# expect error line:   let s = "ab\u{DFFF}cd"
# expect error line:              ^~~~~~~~
let s = "ab\u{DFFF}cd"
# ---
# case: an escape past U+10FFFF in an f-string
# expect syntax error: tests/lang/parser_errors.dsl:33:14: error: \u{110000} is past the last Unicode code point (U+10FFFF)
# expect error line:   let s = f"{1}\u{110000}"
# expect error line:                ^~~~~~~~~~
let s = f"{1}\u{110000}"
# ---
# case: chained comparison
# expect syntax error: tests/lang/parser_errors.dsl:39:15: error: comparisons do not chain (write 'a < b and b < c', or bracket one of them)
# expect error line:   let b = 1 < 2 < 3
# expect error line:                 ^
let b = 1 < 2 < 3
# ---
# case: an error far into a long line
# expect syntax error: tests/lang/parser_errors.dsl:45:464: error: expected an expression after the operator
# expect error line:   ..., 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2 +, 3]
# expect error line:                                                                                      ^
let xs = [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2 +, 3]

