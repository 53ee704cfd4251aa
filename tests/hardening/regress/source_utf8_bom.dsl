print(1 + 2); let x = 1 + "a"
# A program file that starts with a UTF-8 byte order mark (as Windows editors write
# it) runs, as Python runs one; it was "expected a statement" at 1:1 under the
# invisible mark. The mark is not part of the first line: its columns are those the
# line shows.
# expect: 3
# status: 1
# expect stderr: source_utf8_bom.dsl:1:23: error: cannot add int and str
