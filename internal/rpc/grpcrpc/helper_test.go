package grpcrpc_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/rpc/grpcrpc"
)

// helperEnv, when set, makes the test binary a helper process instead
// (see helperMain): "server" serves heartbeats on a loopback port and
// prints its address; "client ADDR" links to ADDR and prints "linked".
// Either then waits to be killed.
const helperEnv = "WEIR_GRPCRPC_HELPER"

// helperConfig is the helper's heartbeat config: its peer can only lose
// it by a closed connection within a test's time.
func helperConfig(id string) grpcrpc.HeartbeatConfig {
	return grpcrpc.HeartbeatConfig{ID: id, Interval: time.Hour, Timeout: 2 * time.Hour}
}

func helperMain() int {
	args := strings.Fields(os.Getenv(helperEnv))
	switch {
	case len(args) == 1 && args[0] == "server":
		srv, err := grpcrpc.Listen("127.0.0.1:0")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if _, err := srv.ServeHeartbeats(helperConfig("helper-server")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println(srv.Addr())
	case len(args) == 2 && args[0] == "client":
		c := grpcrpc.NewClient()
		if _, err := c.Heartbeat(context.Background(), args[1], helperConfig("helper-client")); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Println("linked")
	default:
		fmt.Fprintf(os.Stderr, "%s=%q: want \"server\" or \"client ADDR\"\n", helperEnv, os.Getenv(helperEnv))
		return 2
	}
	select {} // until killed
}

// startHelper starts the test binary as a helper process in mode and
// returns it and the first line it prints. The process is killed at the
// end of the test if it still runs.
func startHelper(t *testing.T, mode string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("helper %q printed nothing: %v", mode, err)
	}
	return cmd, strings.TrimSpace(line)
}

// kill kills the helper with SIGKILL and reaps it.
func kill(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	err := cmd.Wait()
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("helper ended with %v, want killed by SIGKILL", err)
	}
}
