# case: mismatched closer names the opener

let v = (1, 2]
