package main

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/wordcount"
)

// The registration cannot fail for a fixed, unique name; should it, Main
// reports the recorded error on every command.
func init() { _ = weir.RegisterJob(wordcount.Name, wordcount.Description, wordcount.Build) }
