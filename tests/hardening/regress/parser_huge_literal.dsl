# A 10 MB integer literal: its error names the literal by its first digits and its
# length, and echoes a window of the line, not 10 MB plus a 10-million-character
# caret (issue 25); so does an undefined name of 10 MB.
# status: 0
# expect: ok
expect_error("let x = " + "9" * 10000000, "integer literal 9999999999999999999999999999999999999999...(10000000 characters) does not fit in 64 bits")
expect_error("let y = 1\nlet x = " + "12" * 5000000 + " + 1", "...(10000000 characters)")
# A name of 10 MB is named by its start too.
expect_error("x" * 10000000, "undefined name 'xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx...(10000000 characters)'")
print("ok")
