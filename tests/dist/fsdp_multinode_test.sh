#!/bin/bash
# nabla launch across two nodes: two network namespaces joined by a veth pair on
# private test addresses (10.213.41.1 and .2, used by nothing else), one launcher in
# each with --nnodes 2 --nproc-per-node 2; the 4 ranks' FSDP training must equal one
# process (tests/dist/fsdp_equivalence.dsl). Without the rights to make namespaces
# (not root) the two launchers run on loopback with different node ranks.
#   bash tests/dist/fsdp_multinode_test.sh path/to/nabla      (ctest dist_fsdp_multinode)
set -uo pipefail
nabla="$(realpath "$1")"
dir=$(mktemp -d)
ns0="nabla_node0_$$"
ns1="nabla_node1_$$"
port=29541
cleanup() {
  ip netns del "$ns0" 2>/dev/null
  ip netns del "$ns1" 2>/dev/null
  rm -rf "$dir"
}
trap cleanup EXIT

make_namespaces() {
  ip netns add "$ns0" && ip netns add "$ns1" &&
    ip link add "veth0_$$" type veth peer name "veth1_$$" &&
    ip link set "veth0_$$" netns "$ns0" && ip link set "veth1_$$" netns "$ns1" &&
    ip -n "$ns0" addr add 10.213.41.1/24 dev "veth0_$$" && ip -n "$ns1" addr add 10.213.41.2/24 dev "veth1_$$" &&
    ip -n "$ns0" link set "veth0_$$" up && ip -n "$ns1" link set "veth1_$$" up &&
    ip -n "$ns0" link set lo up && ip -n "$ns1" link set lo up
}

launch_opts=(--nproc-per-node 2 --nnodes 2 --master-port "$port")
script=(tests/dist/fsdp_equivalence.dsl full)
if make_namespaces 2>"$dir/ns.err"; then
  mode="two network namespaces over a veth pair"
  # Gloo's ranks reach each other on the veth interface (not the host's name).
  ip netns exec "$ns0" env GLOO_SOCKET_IFNAME="veth0_$$" "$nabla" launch "${launch_opts[@]}" --node-rank 0 \
    --master-addr 10.213.41.1 "${script[@]}" >"$dir/node0" 2>&1 &
  node0=$!
  ip netns exec "$ns1" env GLOO_SOCKET_IFNAME="veth1_$$" "$nabla" launch "${launch_opts[@]}" --node-rank 1 \
    --master-addr 10.213.41.1 "${script[@]}" >"$dir/node1" 2>&1 &
  node1=$!
else
  mode="two launchers on loopback (no network namespaces: $(head -c 200 "$dir/ns.err"))"
  "$nabla" launch "${launch_opts[@]}" --node-rank 0 --master-addr 127.0.0.1 "${script[@]}" >"$dir/node0" 2>&1 &
  node0=$!
  "$nabla" launch "${launch_opts[@]}" --node-rank 1 --master-addr 127.0.0.1 "${script[@]}" >"$dir/node1" 2>&1 &
  node1=$!
fi
wait "$node0"; s0=$?
wait "$node1"; s1=$?
echo "$mode"
cat "$dir/node0" "$dir/node1"
[ "$s0" -eq 0 ] && [ "$s1" -eq 0 ] || { echo "FAIL: the launchers exited with $s0 and $s1"; exit 1; }
for r in 0 1; do grep -q "rank $r: fsdp full on 4 ranks equals one process" "$dir/node0" || { echo "FAIL: rank $r on node 0"; exit 1; }; done
for r in 2 3; do grep -q "rank $r: fsdp full on 4 ranks equals one process" "$dir/node1" || { echo "FAIL: rank $r on node 1"; exit 1; }; done
echo "multinode: 2 nodes x 2 ranks equal one process"
