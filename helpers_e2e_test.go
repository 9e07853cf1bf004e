package weir_test

import (
	"slices"
	"strings"
)

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }

func slicesSort(s []string) { slices.Sort(s) }
