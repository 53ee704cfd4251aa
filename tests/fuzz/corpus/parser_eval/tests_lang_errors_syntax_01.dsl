# case: unclosed bracket

let xs = [1, 2,
  3
