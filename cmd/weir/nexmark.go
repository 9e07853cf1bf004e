package main

import (
	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/jobs/nexmark"
)

func init() { _ = weir.RegisterJob(nexmark.Name, nexmark.Description, nexmark.Job) }
