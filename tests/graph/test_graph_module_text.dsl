# What people read of a graph module: print(gm) (inputs, outputs, nodes, passes,
# guards), and the reports of gm.optimize(), gm.cost() and gm.explain(), strs whose
# repr is their text, so the REPL echoes them as print shows them (docs/passes.md,
# "Reading a graph module").
import nn

manual_seed(0)
let net = nn.Sequential([nn.Linear(4, 3), nn.ReLU()])
fn twice(x, scale) = x * 1.0 + x * scale

test "print(gm) shows inputs, outputs, nodes, passes and guards" {
  let gm = compile(net, randn([2, 4]))
  let s = str(gm)
  expect(s.startswith("graph module 'Sequential' (inference)\n"), s)
  expect("\n  inputs:  x: f32[2, 4]\n" in s, s)
  expect("\n  outputs: f32[2, 3]\n" in s, s)
  expect("\n  passes:  none (gm.optimize() runs the default pipeline)\n" in s, s)
  expect("\n  guards:  x == f32[2, 4]\n" in s, s)
  expect(s.endswith("\n  graphs cached: 1"), s)
  gm.optimize("fold,cse,dce")
  expect("\n  passes:  fold, cse, dce\n" in str(gm), str(gm))
  expect(repr(gm) == str(gm))
}

test "print(gm) of a function names each input and the non-tensor guard" {
  let gm = compile(twice, randn([3]), 2.0)
  let s = str(gm)
  expect("\n  inputs:  x: f32[3]\n" in s, s)
  expect("scale == 2.0" in s, s)
  expect("\n  nodes:   " in s and " captured, " in s, s)
}

test "reports are strs whose repr is their text" {
  let gm = compile(twice, randn([3]), 2.0)
  let report = gm.optimize("simplify,cse")
  expect(type(report) == "str" and "simplify" in report and "cse" in report, report)
  expect(repr(report) == report.rstrip("\n"), repr(report))
  let table = gm.cost()
  expect(repr(table) == table.rstrip("\n") and "total" in table, repr(table))
  let why = gm.explain()
  expect(repr(why) == why.rstrip("\n") and "captures:" in why, repr(why))
  let mem = memory_summary()
  expect(repr(mem) == mem.rstrip("\n") and "allocated" in mem, repr(mem))
  # Everything made from a report is an ordinary str again.
  expect(repr(report + "") == repr("" + report) and repr(report + "").startswith("'"), repr(report + ""))
}
