# case: model constructor with a wrong arity

model M(n) {
  w = ones([n])
}
let m = M()
