package network

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
)

// A Blocking result partition (Flink's BLOCKING, sort-merge style) writes
// what its producer adds to local disk (blockingfile.go) and hands nothing
// to consumers until every subpartition has received its EndOfPartition:
// then the files are complete and synced, and each connected consumer
// channel reads its subpartition's segments in order, one item per credit,
// through the same InputChannel and credit model as a pipelined partition.
// A damaged file reaches the consumer as a ChannelFailed event. Release
// removes the files (the job ended, or the attempt failed).

const defaultRegionBytes = 4 << 20

// blockingState is the file side of a Blocking partition.
type blockingState struct {
	mu       sync.Mutex
	files    *partitionFiles
	ended    []bool
	left     int
	finished bool
	released bool
	// keepFiles: the files are not the partition's to remove (a
	// BLOCKING_PERSISTENT partition's, see persistent.go).
	keepFiles bool
}

func newBlockingState(id PartitionID, o PartitionOptions) (*blockingState, error) {
	dir := o.Dir
	if dir == "" {
		dir = os.TempDir()
	}
	region := o.RegionBytes
	if region <= 0 {
		region = defaultRegionBytes
	}
	name := fmt.Sprintf("weir-bp-%s-g%d-v%d-s%d-o%d", safeFileName(id.Job), id.Generation, id.Vertex, id.Subtask, id.Output)
	files, err := createPartitionFiles(filepath.Join(dir, "weir-partitions"), name, o.Subpartitions, region)
	if err != nil {
		return nil, fmt.Errorf("network: partition %v: %w", id, err)
	}
	return &blockingState{files: files, ended: make([]bool, o.Subpartitions), left: o.Subpartitions}, nil
}

// addBlocking writes an item of s to the partition's files; the last
// EndOfPartition finishes them and starts the consumers' reads.
func (s *Subpartition) addBlocking(it Item) error {
	b := s.parent.blocking
	b.mu.Lock()
	if b.released {
		b.mu.Unlock()
		return ErrReleased
	}
	if b.finished || b.ended[s.index] {
		b.mu.Unlock()
		return fmt.Errorf("network: partition %v: item after the end of subpartition %d", s.parent.id, s.index)
	}
	err := b.files.add(s.index, it)
	finish := false
	if _, end := it.Event.(EndOfPartition); end && err == nil {
		b.ended[s.index] = true
		b.left--
		if b.left == 0 {
			err = b.files.finish()
			b.finished = err == nil
			finish = b.finished
		}
	}
	b.mu.Unlock()
	if err != nil {
		return fmt.Errorf("network: partition %v: %w", s.parent.id, err)
	}
	if it.Event == nil {
		// The bytes are in the region buffer: the writer may reuse the
		// buffer.
		s.mu.Lock()
		s.mu.free = append(s.mu.free, it.Buf[:0])
		s.mu.Unlock()
	}
	if finish {
		for _, sub := range s.parent.subs {
			sub.startReading()
		}
	}
	return nil
}

// startReading opens the subpartition's segments of the finished files
// for a connected consumer and hands it what its credit allows.
func (s *Subpartition) startReading() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.mu.released || s.mu.consumer == nil || s.mu.opened {
		return
	}
	s.openReaderLocked()
	s.dispatchLocked()
}

func (s *Subpartition) openReaderLocked() {
	f := s.parent.blocking.files
	s.mu.opened = true
	r, file, err := openSegmentReader(f.indexPath, f.dataPath, s.index)
	if err != nil {
		s.mu.out.Add(Item{Event: ChannelFailed{Err: fmt.Errorf("partition %v, subpartition %d: %w", s.parent.id, s.index, err)}})
		return
	}
	s.mu.reader, s.mu.file = r, file
}

// connectBlocking makes r the consumer of a blocking subpartition. A
// blocking partition may be read again: a consumer that replaces an
// earlier one (a re-run after a failure) reads from the start.
func (s *Subpartition) connectBlocking(r Receiver) error {
	b := s.parent.blocking
	s.mu.Lock()
	defer s.mu.Unlock()
	if b.isReleased() {
		return ErrReleased
	}
	credit, ok := r.Connect(s)
	if !ok {
		s.releaseLocked()
		return nil
	}
	s.closeReaderLocked()
	s.mu.out = Outbox{maxBacklog: s.mu.out.maxBacklog}
	s.mu.released, s.mu.opened, s.mu.consumer = false, false, r
	s.mu.out.Grant(credit)
	if b.isFinished() {
		s.openReaderLocked()
	}
	s.dispatchLocked()
	return nil
}

func (b *blockingState) isReleased() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.released
}

func (b *blockingState) isFinished() bool {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.finished
}

// readLocked queues the next item of the file; false at the end. A read
// error queues a ChannelFailed in place of the rest.
func (s *Subpartition) readLocked() bool {
	it, ok, err := s.mu.reader.next()
	if err != nil {
		it, ok = Item{Event: ChannelFailed{Err: fmt.Errorf("partition %v, subpartition %d: %w", s.parent.id, s.index, err)}}, true
		s.closeReaderLocked()
	} else if !ok {
		s.closeReaderLocked()
		return false
	}
	s.mu.out.Add(it)
	return true
}

func (s *Subpartition) closeReaderLocked() {
	if s.mu.file != nil {
		_ = s.mu.file.Close()
	}
	s.mu.reader, s.mu.file = nil, nil
}

// release removes the files; later adds fail with ErrReleased.
func (b *blockingState) release() {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.released {
		return
	}
	b.released = true
	if !b.keepFiles {
		_ = b.files.remove()
	}
}

// Files returns the paths of a Blocking partition's data and index files
// ("" for other partitions): for tests and tools.
func (p *ResultPartition) Files() (data, index string) {
	if p.blocking == nil {
		return "", ""
	}
	return p.blocking.files.dataPath, p.blocking.files.indexPath
}

// safeFileName keeps the letters, digits, '-' and '_' of s.
func safeFileName(s string) string {
	b := []byte(s)
	out := b[:0]
	for _, c := range b {
		if c == '-' || c == '_' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' {
			out = append(out, c)
		}
	}
	if len(out) == 0 {
		return "job"
	}
	return string(out)
}
