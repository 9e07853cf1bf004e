package weir_test

import "strings"

func contains(err error, s string) bool { return err != nil && strings.Contains(err.Error(), s) }
