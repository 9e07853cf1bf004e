package cli

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/spf13/cobra"
)

// newJobsCmd is `weir jobs`: one line per registered job, its name and
// description separated by spaces, sorted by name.
func newJobsCmd(jobs JobRunner, stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "jobs",
		Short: "List the jobs registered in this binary",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 0 {
				return Usage(fmt.Errorf("jobs: unexpected argument %q", args[0]))
			}
			return nil
		},
		RunE: func(*cobra.Command, []string) error {
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			for _, j := range jobs.Jobs() {
				fmt.Fprintf(tw, "%s\t%s\n", j.Name, j.Description)
			}
			return tw.Flush()
		},
	}
}
