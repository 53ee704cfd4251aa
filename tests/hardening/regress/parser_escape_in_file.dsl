# A surrogate escape in a file: a syntax error at the escape (issue 25).
# status: 2
# expect stderr: parser_escape_in_file.dsl:6:9: error: \u{DBFF} is a UTF-16 surrogate, not a character (U+D800 to U+DFFF have no UTF-8 form)
# expect stderr:   print("a\u{DBFF}")
# expect stderr:          ^~~~~~~~
print("a\u{DBFF}")
