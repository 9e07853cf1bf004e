package main

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/sequence"
)

func init() { _ = weir.RegisterJob(sequence.Name, sequence.Description, sequence.Job) }
