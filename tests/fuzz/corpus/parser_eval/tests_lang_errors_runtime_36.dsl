# case: bad format spec

let s = f"{1:q}"
