package graph

// Connections of the subtasks of two vertices. For ALL_TO_ALL, every
// producer subtask feeds every consumer subtask. For POINTWISE, Flink's rule:
// with equal parallelism subtask i feeds subtask i; with more producers than
// consumers each consumer reads a contiguous range of producers; with fewer,
// each producer feeds a contiguous range of consumers.

// ProducersOf returns the producer subtasks that consumer subtask index
// reads from, in channel order.
func ProducersOf(p Pattern, producers, consumers, index int) []int {
	if p == AllToAll {
		return seq(0, producers)
	}
	if producers >= consumers {
		start := index * producers / consumers
		end := (index + 1) * producers / consumers
		return seq(start, end)
	}
	for j := 0; j < producers; j++ {
		lo, hi := pointwiseRange(j, producers, consumers)
		if index >= lo && index < hi {
			return []int{j}
		}
	}
	return nil
}

// ConsumersOf returns the consumer subtasks that producer subtask index
// feeds, in subpartition order.
func ConsumersOf(p Pattern, producers, consumers, index int) []int {
	if p == AllToAll {
		return seq(0, consumers)
	}
	if producers >= consumers {
		for c := 0; c < consumers; c++ {
			if index >= c*producers/consumers && index < (c+1)*producers/consumers {
				return []int{c}
			}
		}
		return nil
	}
	lo, hi := pointwiseRange(index, producers, consumers)
	return seq(lo, hi)
}

// NumProducers is len(ProducersOf(...)) without listing the producers of
// ALL_TO_ALL: a producer of every one of p consumers asks for it, and
// listing them costs p*p per producer vertex.
func NumProducers(p Pattern, producers, consumers, index int) int {
	if p == AllToAll {
		return producers
	}
	return len(ProducersOf(p, producers, consumers, index))
}

// NumConsumers is len(ConsumersOf(...)), likewise.
func NumConsumers(p Pattern, producers, consumers, index int) int {
	if p == AllToAll {
		return consumers
	}
	return len(ConsumersOf(p, producers, consumers, index))
}

// pointwiseRange is the range of consumers producer j feeds when there are
// fewer producers than consumers.
func pointwiseRange(j, producers, consumers int) (lo, hi int) {
	lo = (j*consumers + producers - 1) / producers
	hi = ((j+1)*consumers + producers - 1) / producers
	return lo, hi
}

func seq(lo, hi int) []int {
	s := make([]int, 0, hi-lo)
	for i := lo; i < hi; i++ {
		s = append(s, i)
	}
	return s
}
