# Triple-quoted strings and docstrings (docs/LANGUAGE.md, "Docstrings").
# case: a triple-quoted string spans lines; its indentation is cleaned
let s = """
    first line
      indented
    last line
    """
print(s)                       # expect: first line
                               # expect:   indented
                               # expect: last line
print('''it's "quoted"''')     # expect: it's "quoted"
print("""a\tb""" == "a\tb")    # expect: true
print("""x""" + "y")           # expect: xy
# ---
# case: the first string of a fn block is its docstring, and not a statement
fn area(w, h) {
  """The area of a w by h rectangle.

  Example: area(2, 3)
  """
  return w * h
}
print(area.doc)                # expect: The area of a w by h rectangle.
                               # expect:
                               # expect: Example: area(2, 3)
print(area(2, 3))              # expect: 6
fn plain(x) = x
print(plain.doc == "")         # expect: true
fn only() { "just a doc" }
print(only())                  # expect: none
# ---
# case: a model's docstring and its methods'
model Scale(k) {
  "Multiplies by k."
  factor = k
  forward(x) {
    "Returns x times k."
    return x * factor
  }
}
print(Scale.doc)               # expect: Multiplies by k.
print(Scale(3)(2))             # expect: 6
# ---
# case: an unterminated triple-quoted string names where it started
# expect syntax error: tests/lang/docstrings.dsl:48:1: error: expected '"""' to close the string started at 46:9
let t = """never
closed
