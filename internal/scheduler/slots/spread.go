package slots

// Spread orders slots round-robin over TaskManagers, the way Allocate
// places shared slots: the first slot of every TaskManager (by name), then
// the second, and so on. It does not change free.
func Spread(free []ID) []ID { return spread(free) }
