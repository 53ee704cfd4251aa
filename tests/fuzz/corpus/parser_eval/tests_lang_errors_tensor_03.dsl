# case: view that needs a copy

let x = ones([2, 3]).t()
let v = x.view([6])
