# \u{...} escapes that are not characters (UTF-16 surrogates, past U+10FFFF) are
# syntax errors at the escape in every literal that takes escapes, never invalid
# UTF-8 (issue 25). \xHH stays a byte, as documented.
# status: 0
# expect: ok
let surrogate = "is a UTF-16 surrogate"
expect_error("let s = \"\\u{D800}\"", surrogate)
expect_error("let s = '\\u{dfff}'", surrogate)
expect_error("let s = f\"{1}\\u{DC00}\"", surrogate)
expect_error("test \"\\u{D800}\" { }", surrogate)
expect_error("import \"\\u{D800}.dsl\" as m", surrogate)
expect_error("let s = \"\\u{110000}\"", "past the last Unicode code point")
expect_error("let s = \"\\u{FFFFFF}\"", "past the last Unicode code point")
# len counts characters (code points), as Python's; the UTF-8 bytes are 4, 6 and 2
expect(len("\u{10FFFF}") == 1 and ord("\u{10FFFF}") == 0x10FFFF)
expect(len("\u{D7FF}\u{E000}") == 2)
expect(len("\u{E9}") == 1 and "\u{E9}" == "é")
expect(len("\xff") == 1)
expect(f"{{\u{41}}}" == "{A}")
print("ok")
