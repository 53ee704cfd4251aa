# case: missing member of a model

model M() {
  w = ones([2])
}
let m = M()
m.v
