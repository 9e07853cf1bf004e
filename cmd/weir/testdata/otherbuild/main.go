// Command otherbuild is a weir binary whose "wordcount" job builds another
// graph than cmd/weir's: the TaskManager of the test that a binary with a
// different job graph fingerprint is refused.
package main

import "github.com/weir-engine/weir"

func main() {
	_ = weir.RegisterJob("wordcount", "not the wordcount of cmd/weir", func(env *weir.Env, _ []string) error {
		weir.Print(weir.FromSlice(env, []string{"another graph"}))
		return nil
	})
	weir.Main()
}
