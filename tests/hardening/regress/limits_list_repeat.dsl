# [1, 2] * 2e9 (an int count) grew memory for tens of seconds: a list of 4e9 items
# is checked against the budget first, and a count past any memory always fails.
# args: --max-memory 1G
# status: 1
# timeout: 10
# expect: 6
# expect stderr: limits_list_repeat.dsl:10:9: error: memory budget of 1073741824 bytes exceeded: a list needs 96000000000 bytes
print(len([1, 2] * 3))
expect_error("[1, 2] * 2 ** 61", "more than any machine has")
let l = [1, 2] * 2000000000
