package network

// OnBlock makes f run whenever a sender of g is about to wait.
func OnBlock(g *Gate, f func()) { g.onBlock = f }
