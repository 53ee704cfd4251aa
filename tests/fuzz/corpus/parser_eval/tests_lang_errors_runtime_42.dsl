# case: error inside a method names the method



model M() {
  w = ones([2])
  forward(x) = x * missing
}
let m = M()
m(ones([2]))
