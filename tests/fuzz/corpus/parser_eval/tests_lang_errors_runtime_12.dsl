# case: string times list

let s = "a" * [1]
