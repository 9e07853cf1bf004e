package file_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/weir-engine/weir"
	"github.com/weir-engine/weir/connector/file"
)

// A bounded job writes exactly-once into a directory: its part files
// become visible when the checkpoint that pre-committed them completed,
// here the final checkpoint at the end of input, and no hidden file is
// left once Execute returned.
func ExampleNewSink() {
	out, err := os.MkdirTemp("", "weir-file-sink-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(out)

	env := weir.NewEnv(weir.WithParallelism(2),
		weir.WithCheckpointing(weir.CheckpointConfig{Interval: time.Hour}))
	words := weir.FromSlice(env, []string{"to", "be", "or", "not", "to", "be"})
	weir.SinkTo(words, file.NewSink(out, strings.ToUpper)).UID("words")
	if _, err := env.Execute(context.Background(), "file-sink-example"); err != nil {
		log.Fatal(err)
	}

	entries, err := os.ReadDir(out)
	if err != nil {
		log.Fatal(err)
	}
	var lines []string
	for _, e := range entries {
		if strings.HasPrefix(e.Name(), ".") {
			fmt.Println("hidden file left:", e.Name())
			continue
		}
		b, err := os.ReadFile(filepath.Join(out, e.Name()))
		if err != nil {
			log.Fatal(err)
		}
		lines = append(lines, strings.Fields(string(b))...)
	}
	slices.Sort(lines)
	fmt.Println(lines)
	// Output: [BE BE NOT OR TO TO]
}
