# The helper of tests/onnx/export_models.dsl and export_ops.dsl: one exported case.

# Writes OUT/<name>.onnx (export_onnx) and OUT/<name>.safetensors with the example
# inputs (input0, input1, ...) and nabla's outputs for them (output0, ...): the graph
# module's after the default passes, as the export ran them. A model must already be
# in eval mode (the export puts it there itself; the reference run must match).
fn export_case(out, name, net, inputs) {
  export_onnx(net, inputs, f"{out}/{name}.onnx")
  let gm = compile(net, *inputs)
  gm.optimize()
  let y = gm(*inputs)
  let outputs = list(y) if type(y) == "tuple" else [y]
  let tensors = {}
  for k in range(len(inputs)) { tensors[f"input{k}"] = inputs[k] }
  for k in range(len(outputs)) { tensors[f"output{k}"] = outputs[k] }
  save(tensors, f"{out}/{name}.safetensors")
}
