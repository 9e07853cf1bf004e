// Command weir is Weir's command line: weir.Main plus the built-in jobs.
//
//	weir run JOB [engine flags] [job flags]   build JOB and run it
//	weir jobs                                 list the built-in jobs
//	weir help run                             the engine flags
//
// A program with jobs of its own gets the same commands by registering
// them with weir.RegisterJob and calling weir.Main from its main function.
// The built-in jobs are registered in this package's init functions, one
// file per job; their programs live in importable packages under jobs/.
package main

import "github.com/weir-engine/weir"

func main() { weir.Main() }
