# case: calling a model without forward

model M() {
  w = ones([2])
}
let m = M()
m(1)
