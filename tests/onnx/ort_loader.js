// onnxruntime-node from where scripts/setup.sh installs it ($NABLA_ROOT/.deps/node, or
// $NABLA_ORT_NODE_MODULES), with a message that says how to get it when it is missing.
'use strict';
const path = require('path');

function loadOrt() {
  const root = path.resolve(__dirname, '..', '..');
  const modules = process.env.NABLA_ORT_NODE_MODULES || path.join(root, '.deps', 'node', 'node_modules');
  try {
    return require(path.join(modules, 'onnxruntime-node'));
  } catch (e) {
    throw new Error(`onnxruntime-node not found in ${modules} (${e.message.split('\n')[0]}); ` +
                    'scripts/setup.sh installs it (npm install --ignore-scripts --prefix .deps/node onnxruntime-node)');
  }
}

module.exports = { loadOrt };
