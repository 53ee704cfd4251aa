# Syntax errors: each case runs alone (sections split by '# ---'); the first line
# of the message is checked exactly, and the unclosed-delimiter cases also name
# their opener.

# case: unclosed parenthesis at the end
# expect syntax error: tests/lang/errors_syntax.dsl:8:12: error: expected ')' to close '(' at 8:6
let a = 1
print(a + 2
# ---
# case: unclosed bracket
# expect syntax error: tests/lang/errors_syntax.dsl:13:4: error: expected ']' to close '[' at 12:10
let xs = [1, 2,
  3
# ---
# case: unclosed block
# expect syntax error: tests/lang/errors_syntax.dsl:18:11: error: expected '}' to close '{' at 17:9
fn f(x) {
  return x
# ---
# case: unclosed string
# expect syntax error: tests/lang/errors_syntax.dsl:22:12: error: expected '"' to close the string started at 22:7
print("abc)
# ---
# case: mismatched closer names the opener
# expect syntax error: tests/lang/errors_syntax.dsl:26:14: error: expected ')' to close '(' at 26:9
let v = (1, 2]
# ---
# case: missing operand
# expect syntax error: tests/lang/errors_syntax.dsl:30:13: error: expected an expression after the operator
let y = 1 + * 2
# ---
# case: let without a name
# expect syntax error: tests/lang/errors_syntax.dsl:34:5: error: expected a name or a parenthesised tuple of names
let = 5
# ---
# case: let without '='
# expect syntax error: tests/lang/errors_syntax.dsl:38:7: error: expected '='
let x 5
# ---
# case: keyword as a name
# expect syntax error: tests/lang/errors_syntax.dsl:42:5: error: expected a name or a parenthesised tuple of names
let if = 3
# ---
# case: fn without parameters
# expect syntax error: tests/lang/errors_syntax.dsl:46:6: error: expected '(' and the parameters
fn f = 3
# ---
# case: fn without a body
# expect syntax error: tests/lang/errors_syntax.dsl:50:9: error: expected '{' to start the block
fn f(x) x
# ---
# case: lambda without '='
# expect syntax error: tests/lang/errors_syntax.dsl:54:15: error: expected '=' and the body of the function
let f = fn(x) x
# ---
# case: if without a block
# expect syntax error: tests/lang/errors_syntax.dsl:59:10: error: expected '{' to start the block
let x = 1
if x > 1 print(x)
# ---
# case: while without a condition
# expect syntax error: tests/lang/errors_syntax.dsl:63:10: error: expected '{' to start the block
while { }
# ---
# case: for without 'in'
# expect syntax error: tests/lang/errors_syntax.dsl:67:7: error: expected 'in' after the loop variable
for i range(3) { }
# ---
# case: member that is not a name
# expect syntax error: tests/lang/errors_syntax.dsl:72:3: error: expected a name after '.'
let x = 1
x.(1)
# ---
# case: dict entry without ':'
# expect syntax error: tests/lang/errors_syntax.dsl:76:14: error: expected ':' after the dict key
let d = {"a" 1}
# ---
# case: conditional without else
# expect syntax error: tests/lang/errors_syntax.dsl:81:15: error: expected 'else' in the conditional expression
let c = true
let v = 1 if c
# ---
# case: two statements on one line
# expect syntax error: tests/lang/errors_syntax.dsl:85:11: error: expected a newline or ';' after the statement
let a = 1 let b = 2
# ---
# case: keyword argument twice
# expect syntax error: tests/lang/errors_syntax.dsl:90:8: error: keyword argument 'a' is given twice
fn f(a) = a
f(a=1, a=2)
# ---
# case: positional after keyword
# expect syntax error: tests/lang/errors_syntax.dsl:95:8: error: positional argument after keyword arguments
fn f(a, b) = a
f(a=1, 2)
# ---
# case: parameter twice
# expect syntax error: tests/lang/errors_syntax.dsl:99:9: error: parameter 'a' appears twice
fn g(a, a) = a
# ---
# case: required parameter after a default
# expect syntax error: tests/lang/errors_syntax.dsl:103:11: error: parameter 'b' without a default follows one with a default
fn g(a=1, b) = a
# ---
# case: buffer outside a model
# expect syntax error: tests/lang/errors_syntax.dsl:107:1: error: 'buffer' declares a model's buffer; it is only allowed in a model body
buffer b = 1
# ---
# case: unknown escape
# expect syntax error: tests/lang/errors_syntax.dsl:111:10: error: unknown escape sequence (expected \n, \t, \r, \0, \\, \", \', \{, \}, \xHH or \u{HHHH})
print("a\q")
# ---
# case: import of a number
# expect syntax error: tests/lang/errors_syntax.dsl:115:8: error: expected a module name or a quoted path
import 3
# ---
# case: test without a name
# expect syntax error: tests/lang/errors_syntax.dsl:119:6: error: expected the test's name as a string
test { }
# ---
# case: unclosed f-string field
# expect syntax error: tests/lang/errors_syntax.dsl:124:11: error: expected '}' to close the f-string field
let x = 1
print(f"{x")
# ---
# case: empty index
# expect syntax error: tests/lang/errors_syntax.dsl:129:4: error: expected an index or a slice
let xs = [1]
xs[]
# ---
# case: integer too large
# expect syntax error: tests/lang/errors_syntax.dsl:133:11: error: integer literal 99999999999999999999 does not fit in 64 bits
let big = 99999999999999999999
# ---
# case: 'and' without a right side
# expect syntax error: tests/lang/errors_syntax.dsl:137:18: error: expected an expression after 'and'
let v = true and )
# ---
# case: comparison without a right side
# expect syntax error: tests/lang/errors_syntax.dsl:141:14: error: expected an expression after the comparison
let c = (1 < )
# ---
# case: stray closing bracket
# expect syntax error: tests/lang/errors_syntax.dsl:145:1: error: expected a statement
)
# ---
# case: import of a path without 'as'
# expect syntax error: tests/lang/errors_syntax.dsl:149:8: error: import of "my-file.dsl" needs 'as NAME' (its file name is not a valid name)
import "my-file.dsl"
# ---
# case: nesting too deep
# expect syntax error: tests/lang/errors_syntax.dsl:153:212: error: brackets nest deeper than 200 levels
let deep = (((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((((1)))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))
# ---
# case: unclosed list in a call
# expect syntax error: tests/lang/errors_syntax.dsl:157:12: error: expected ']' to close '[' at 157:7
print([1, 2)
# ---
# case: else without if
# expect syntax error: tests/lang/errors_syntax.dsl:161:1: error: expected a statement
else { }
# ---
# case: two commas in a call
# expect syntax error: tests/lang/errors_syntax.dsl:165:9: error: expected ')' to close '(' at 165:6
print(1,, 2)
# ---
# case: two star parameters
# expect syntax error: tests/lang/errors_syntax.dsl:169:13: error: only one *parameter is allowed
fn f(a, *b, *c) = a
# ---
# case: a star parameter with a default
# expect syntax error: tests/lang/errors_syntax.dsl:173:9: error: *b cannot have a default (it is always a tuple)
fn f(a, *b=1) = a
