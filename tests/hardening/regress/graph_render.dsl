# render_autograd of a 10^6-node graph (issue 25): the walk is iterative, and the
# drawing keeps to what Graphviz lays out in about a second (Note [Autograd drawing
# budget]); before, a 100-step loop of this shape took minutes and gigabytes.
# status: 0
# timeout: 60
# expect: true
# expect: true
let w = ones([1], requires_grad=true)
let total = zeros([1])
for i in range(1000000) { total = total + w }
let dir = env("REGRESS_TMP")  # removed after the run (regress.sh)
let dot = dir + "/nabla_graph_render.dot"
render_autograd(total, dot)
print(len(read_text(dot)) < 1000000)
if graphviz_available() { render_autograd(total, dir + "/nabla_graph_render.svg") }
print(true)
