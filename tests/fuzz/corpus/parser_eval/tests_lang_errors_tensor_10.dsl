# case: item of a tensor with several elements

let v = ones([3]).item()
