# case: unclosed block

fn f(x) {
  return x
