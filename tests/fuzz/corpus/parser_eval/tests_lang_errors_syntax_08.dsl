# case: keyword as a name

let if = 3
