# case: dict entry without ':'

let d = {"a" 1}
