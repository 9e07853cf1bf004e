package main

import (
	"context"
	"flag"
	"fmt"
	"math/rand/v2"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/weir-engine/weir/internal/pgtest"
	"github.com/weir-engine/weir/jobs/sequence"
)

// The chaos test of issue 9: `weir run sequence` SIGKILLed at random
// moments and started again with the same command each time, until a run
// finishes; the output of all runs together must be exactly-once. Bounded
// for CI by default; -chaos.kills=N kills more (N runs), -chaos.seed
// replays a failure.
var (
	chaosKills = flag.Int("chaos.kills", 3, "kills of the chaos tests")
	chaosSeed  = flag.Uint64("chaos.seed", 0, "seed of the chaos tests (0: from the clock)")
)

// chaos runs cmd, killing it kills times at random moments (from the
// seed, which it logs), then once more to the end, and returns how many
// runs resumed from a checkpoint.
func chaos(t *testing.T, cmd []string) (resumed int) {
	seed := *chaosSeed
	if seed == 0 {
		seed = uint64(time.Now().UnixNano())
	}
	t.Logf("chaos seed %d (replay with -chaos.seed=%d), %d kills", seed, seed, *chaosKills)
	rng := rand.New(rand.NewPCG(seed, seed))
	for i := 0; i < *chaosKills; i++ {
		p := startWeir(t, cmd...)
		// A random moment: after 0 to 3 completed checkpoints (0: while
		// the job starts or restores), and 0-150 ms more.
		if n := rng.IntN(4); n > 0 && p.awaitCheckpoints(n) == "" {
			code, stderr := p.wait()
			if code != 0 {
				t.Fatalf("run %d: exit %d; stderr:\n%s", i, code, stderr)
			}
			t.Logf("run %d finished before its kill: %d kills", i, i)
			return resumed + strings.Count(stderr, "resuming job sequence from ")
		}
		time.Sleep(time.Duration(rng.IntN(150)) * time.Millisecond) // chooses the moment, not a wait for an event
		_ = p.cmd.Process.Signal(syscall.SIGKILL)                   // fails only if it exited: wait tells
		code, stderr := p.wait()
		if strings.Contains(stderr, "resuming job sequence from ") {
			resumed++
		}
		switch code {
		case -1: // killed
		case 0:
			t.Logf("run %d finished before its kill: %d kills", i, i)
			return resumed
		default:
			t.Fatalf("run %d: exit %d; stderr:\n%s", i, code, stderr)
		}
	}
	r := runWeir(t, cmd...)
	if r.code != 0 {
		t.Fatalf("last run: exit %d; stderr:\n%s", r.code, r.stderr)
	}
	if strings.Contains(r.stderr, "resuming job sequence from ") {
		resumed++
	}
	return resumed
}

// chaosConfig is the job of the chaos tests: about 0.4 s of input at full
// speed per kill, so that the kills land in the middle of it.
func chaosConfig() sequence.Config {
	return sequence.Config{Keys: 6, RecordsPerKey: int64(400 * (*chaosKills + 1)), Rate: 6000}
}

func TestChaosKillAndRerunFileSink(t *testing.T) {
	cfg, out := chaosConfig(), t.TempDir()
	resumed := chaos(t, seqCommand(cfg, t.TempDir(), "--output", out))
	verifyFiles(t, cfg, out)
	t.Logf("%d of %d runs resumed from a checkpoint", resumed, *chaosKills+1)
}

func TestChaosKillAndRerunPostgresSink(t *testing.T) {
	srv := pgtest.Start(t)
	cfg := chaosConfig()
	resumed := chaos(t, seqCommand(cfg, t.TempDir(), "--sink", "postgres", "--postgres-dsn", srv.DSN, "--postgres-table", "chaos"))
	t.Logf("%d of %d runs resumed from a checkpoint", resumed, *chaosKills+1)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, err := pgx.Connect(ctx, srv.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	lines, err := pgRows(ctx, conn, "chaos")
	if err != nil {
		t.Fatal(err)
	}
	if err := sequence.Verify(cfg, lines); err != nil {
		t.Fatalf("rows of all runs together are not exactly-once: %v", err)
	}
	var gids []string
	rows, err := conn.Query(ctx, "SELECT gid FROM pg_prepared_xacts")
	if err != nil {
		t.Fatal(err)
	}
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			t.Fatal(err)
		}
		gids = append(gids, g)
	}
	if err := rows.Err(); err != nil {
		t.Fatal(err)
	}
	if len(gids) > 0 {
		t.Errorf("%d prepared transactions left behind: %q", len(gids), gids)
	}
}

// pgRows reads table as sequence output lines.
func pgRows(ctx context.Context, conn *pgx.Conn, table string) ([]string, error) {
	rows, err := conn.Query(ctx, "SELECT key, seq, count FROM "+table)
	if err != nil {
		return nil, fmt.Errorf("query %s: %w", table, err)
	}
	defer rows.Close()
	var lines []string
	for rows.Next() {
		var c sequence.Count
		if err := rows.Scan(&c.Key, &c.Seq, &c.Count); err != nil {
			return nil, err
		}
		lines = append(lines, c.String())
	}
	return lines, rows.Err()
}
