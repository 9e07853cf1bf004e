package checkpoint

// Pipelined regions: the connected components of the execution graph (one
// node per subtask, one undirected link per producer-consumer channel, over
// every edge, since Weir's edges are all pipelined). This is Flink's
// definition: regions are built from execution vertices, so a job of
// independent pointwise lanes (src i -> map i -> sink i) has one region per
// lane and each lane can get its end-of-data checkpoint on its own.

// regionsOf returns, for every flat task number, the number of its region
// (dense, from 0 in order of first appearance), and the size of each
// region. The cost is linear: an ALL_TO_ALL edge links its P+C subtasks to
// one representative instead of P*C pairs.
func regionsOf(ix *index) (region []int32, sizes []int) {
	parent := make([]int32, ix.total)
	for i := range parent {
		parent[i] = int32(i)
	}
	find := func(x int32) int32 {
		for parent[x] != x {
			parent[x] = parent[parent[x]]
			x = parent[x]
		}
		return x
	}
	union := func(a, b int) {
		ra, rb := find(int32(a)), find(int32(b))
		if ra != rb {
			if ra < rb {
				parent[rb] = ra
			} else {
				parent[ra] = rb
			}
		}
	}
	for v, vx := range ix.vertices {
		off := ix.offset[v]
		for _, e := range ix.inputs[v] {
			soff, prod := ix.offset[e.Source], ix.vertices[e.Source].Parallelism
			if e.Pattern == AllToAll {
				for j := 0; j < prod; j++ {
					union(soff, soff+j)
				}
				for c := 0; c < vx.Parallelism; c++ {
					union(soff, off+c)
				}
				continue
			}
			for c := 0; c < vx.Parallelism; c++ {
				lo, hi := producerRange(Pointwise, prod, vx.Parallelism, c)
				for j := lo; j < hi; j++ {
					union(soff+j, off+c)
				}
			}
		}
	}
	region = make([]int32, ix.total)
	number := make(map[int32]int32)
	for i := range region {
		r := find(int32(i))
		n, ok := number[r]
		if !ok {
			n = int32(len(sizes))
			number[r] = n
			sizes = append(sizes, 0)
		}
		region[i] = n
		sizes[n]++
	}
	return region, sizes
}
