# case: error inside a function names the call chain





fn inner(v) = v + undefined_thing
fn outer(v) = inner(v) * 2
outer(1)
