#!/usr/bin/env bash
# Hosts for a Weir cluster on one machine: one network namespace per
# process (a JobManager and N TaskManagers), each with its own interface
# on a bridge, so that the control and data planes cross real interfaces
# instead of loopback. The bridge lives in a namespace of its own too:
# nothing is added to, or reachable from, the machine's own network.
#
#   scripts/netns-cluster.sh up ID N        make ID-br, ID-jm, ID-tm1..ID-tmN
#   scripts/netns-cluster.sh addr ID NODE   the address of NODE (jm, tm1, ...)
#   scripts/netns-cluster.sh exec ID NODE CMD...   run CMD in NODE's namespace
#   scripts/netns-cluster.sh down ID        delete every namespace of ID
#
# ID is a short name of the cluster (letters, digits, at most 8). The
# nodes have 10.213.0.1 (jm), 10.213.0.2 (tm1), ... on a /24; every
# cluster has its own bridge namespace, so clusters of different IDs
# never see each other. Needs root (or CAP_SYS_ADMIN and CAP_NET_ADMIN)
# and iproute2.
set -euo pipefail

usage() { sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//' >&2; exit 2; }

[[ $# -ge 2 ]] || usage
cmd=$1 id=$2
[[ $id =~ ^[A-Za-z0-9]{1,8}$ ]] || { echo "netns-cluster: bad ID $id" >&2; exit 2; }
prefix="weir-$id"
br="$prefix-br"

addr() {
	case $1 in
	jm) echo 10.213.0.1 ;;
	tm[0-9]*) echo "10.213.0.$((${1#tm} + 1))" ;;
	*) echo "netns-cluster: unknown node $1" >&2; exit 2 ;;
	esac
}

down() {
	local ns
	for ns in $(ip netns list | awk '{print $1}' | grep -E "^$prefix-(br|jm|tm[0-9]+)$" || true); do
		ip netns del "$ns"
	done
}

case $cmd in
up)
	[[ $# -eq 3 && $3 =~ ^[0-9]+$ && $3 -ge 1 && $3 -le 200 ]] || usage
	n=$3
	trap 'down' ERR
	ip netns add "$br"
	ip -n "$br" link set lo up
	ip -n "$br" link add br0 type bridge
	ip -n "$br" link set br0 up
	nodes=(jm)
	for ((i = 1; i <= n; i++)); do nodes+=("tm$i"); done
	for node in "${nodes[@]}"; do
		ns="$prefix-$node"
		ip netns add "$ns"
		ip -n "$ns" link set lo up
		# Both ends are made inside the namespaces: no name in the
		# machine's own namespace, where other clusters may be.
		ip -n "$br" link add "v-$node" type veth peer name eth0 netns "$ns"
		ip -n "$br" link set "v-$node" master br0 up
		ip -n "$ns" addr add "$(addr "$node")/24" dev eth0
		ip -n "$ns" link set eth0 up
	done
	for node in "${nodes[@]}"; do
		echo "$node $prefix-$node $(addr "$node")"
	done
	;;
addr)
	[[ $# -eq 3 ]] || usage
	addr "$3"
	;;
exec)
	[[ $# -ge 4 ]] || usage
	node=$3
	shift 3
	addr "$node" >/dev/null
	exec ip netns exec "$prefix-$node" "$@"
	;;
down)
	down
	;;
*) usage ;;
esac
