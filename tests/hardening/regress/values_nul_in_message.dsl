# An error whose message quotes a string holding a NUL byte (fail's message, a key, a
# path) was printed as a C string, cut at the NUL: "error: bad", with neither the rest
# of the message nor the source line and its caret (Note [NUL bytes in a message] in
# lang/source.cpp). The NUL shows as \0, the escape the program wrote.
# status: 1
# expect: before
# expect stderr: values_nul_in_message.dsl:12:3: error: bad\0byte and the rest
# expect stderr:   fail("bad\0byte and the rest")
# expect stderr:   ^~~~~~~~~~~~~~~~~~~~~~~~~~~~~~
print("before")
fn f() {
  fail("bad\0byte and the rest")
}
f()
