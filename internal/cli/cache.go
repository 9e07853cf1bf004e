package cli

import (
	"errors"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/weir-engine/weir/internal/cache"
)

// cacheDirEnv names the default of --cache-dir.
const cacheDirEnv = "WEIR_CACHE_DIR"

// newCacheCmd is `weir cache list|drop`: the persistent caches of a cache
// directory (weir.WithCacheDir).
func newCacheCmd(stdout, stderr io.Writer) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "cache",
		Short: "List or drop the cached results kept in a cache directory (WithCacheDir)",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return Usage(errors.New("cache: give list or drop"))
		},
	}
	cmd.PersistentFlags().StringVar(&dir, "cache-dir", os.Getenv(cacheDirEnv), "the cache directory (default $"+cacheDirEnv+")")
	needDir := func() error {
		if dir == "" {
			return Usage(fmt.Errorf("cache: no cache directory: give --cache-dir or set $%s", cacheDirEnv))
		}
		return nil
	}
	list := &cobra.Command{
		Use:   "list",
		Short: "List the cached datasets, most recently used first",
		Args:  cobra.NoArgs,
		RunE: func(*cobra.Command, []string) error {
			if err := needDir(); err != nil {
				return err
			}
			ds, err := cache.ListDir(dir)
			tw := tabwriter.NewWriter(stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "ID\tNAME\tPARTITIONS\tRECORDS\tBYTES\tLAST USED")
			for _, d := range ds {
				fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%d\t%s\n", d.ID, d.Name, len(d.Partitions), d.Records(), d.Bytes(),
					d.LastUsed.UTC().Format(time.RFC3339))
			}
			if ferr := tw.Flush(); err == nil {
				err = ferr
			}
			return err
		},
	}
	var all bool
	drop := &cobra.Command{
		Use:   "drop [DATASET-ID...]",
		Short: "Delete cached datasets (--all: every one)",
		RunE: func(_ *cobra.Command, ids []string) error {
			if err := needDir(); err != nil {
				return err
			}
			if all == (len(ids) > 0) {
				return Usage(errors.New("cache drop: give dataset ids or --all"))
			}
			if all {
				ds, err := cache.ListDir(dir)
				if err != nil {
					return err
				}
				for _, d := range ds {
					ids = append(ids, d.ID)
				}
			}
			var errs []error
			for _, id := range ids {
				found, err := cache.DropDir(dir, id)
				switch {
				case err != nil:
					errs = append(errs, err)
				case !found:
					errs = append(errs, fmt.Errorf("cache drop: no dataset %s in %s", id, dir))
				default:
					fmt.Fprintf(stderr, "dropped %s\n", id)
				}
			}
			return errors.Join(errs...)
		},
	}
	drop.Flags().BoolVar(&all, "all", false, "drop every dataset of the directory")
	cmd.AddCommand(list, drop)
	return cmd
}
