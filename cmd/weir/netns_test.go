package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// netnsScript makes one network namespace per process of a cluster.
const netnsScript = "../../scripts/netns-cluster.sh"

// netnsCluster makes the namespaces of a JobManager and n TaskManagers
// (scripts/netns-cluster.sh), deleted at the end of the test; it skips
// the test where namespaces cannot be made.
func netnsCluster(t *testing.T, n int) (id string) {
	t.Helper()
	probe := fmt.Sprintf("weir-probe-%d", os.Getpid())
	if out, err := exec.Command("ip", "netns", "add", probe).CombinedOutput(); err != nil {
		t.Skipf("network namespaces cannot be made here: %v: %s", err, out)
	}
	_ = exec.Command("ip", "netns", "del", probe).Run()
	id = fmt.Sprintf("t%d", os.Getpid()%10000000)
	t.Cleanup(func() {
		if out, err := exec.Command(netnsScript, "down", id).CombinedOutput(); err != nil {
			t.Errorf("netns-cluster.sh down: %v: %s", err, out)
		}
	})
	if out, err := exec.Command(netnsScript, "up", id, fmt.Sprint(n)).CombinedOutput(); err != nil {
		t.Fatalf("netns-cluster.sh up: %v: %s", err, out)
	}
	return id
}

// inNode is the command line that runs weir args in node's namespace.
func inNode(id, node string, args ...string) []string {
	return append([]string{"exec", id, node, weirBin}, args...)
}

// A JobManager and two TaskManagers, each in a network namespace of its
// own with its own address on a bridge: wordcount at parallelism 2, whose
// keyBy crosses from one TaskManager's interface to the other's, gives
// the exact counts, and nothing listens on loopback for the others.
func TestClusterAcrossNetworkNamespaces(t *testing.T) {
	id := netnsCluster(t, 2)
	jm := startWeirBin(t, netnsScript, inNode(id, "jm", "jobmanager", "--rpc-addr", "10.213.0.1:6123", "--rest-addr", "10.213.0.1:8081",
		"--checkpoint-dir", t.TempDir(), "--heartbeat-interval", "200ms", "-v")...)
	awaitLines(t, jm, 1, "jobmanager: RPC at 10.213.0.1:6123")
	var tms []*proc
	for i, node := range []string{"tm1", "tm2"} {
		ip := fmt.Sprintf("10.213.0.%d", i+2)
		tm := startWeirBin(t, netnsScript, inNode(id, node, "taskmanager", "--jobmanager", "10.213.0.1:6123",
			"--rpc-addr", ip+":0", "--data-addr", ip+":0", "-v")...)
		awaitLines(t, tm, 1, "registered with the jobmanager")
		tms = append(tms, tm)
	}
	out := filepath.Join(t.TempDir(), "counts")
	run := exec.Command(netnsScript, inNode(id, "jm", "run", "wordcount", "--parallelism", "2", "--input", sample,
		"--output", out, "--jobmanager", "10.213.0.1:8081")...)
	if b, err := run.CombinedOutput(); err != nil {
		t.Fatalf("run: %v: %s", err, b)
	}
	wordcountParts(t, out, 2)
	for i, tm := range tms {
		_, data := addrsOf(t, tm)
		if !strings.HasPrefix(data, fmt.Sprintf("10.213.0.%d:", i+2)) {
			t.Errorf("taskmanager %d serves data at %s, not on its interface", i+1, data)
		}
	}
}
