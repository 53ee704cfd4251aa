# case: integer too large

let big = 99999999999999999999
