package network

import (
	"fmt"
	"os"
)

// PartitionFile writes the files of a blocking partition outside a
// ResultPartition: for the BLOCKING_PERSISTENT partitions of a cached
// stream (FLIP-205), which an operator of the producing chain writes and
// a cache source of a later job reads. The format is the one of every
// blocking partition (docs/format/blocking-partition.md): regions of
// checksummed segments, an index renamed into place once the data is
// synced. It is owned by one goroutine.
type PartitionFile struct {
	f        *partitionFiles
	finished bool
}

// CreatePartitionFile creates dir/name.data for subpartitions
// subpartitions, spilling a region every regionBytes (<= 0: 4 MiB). The
// data file must not exist.
func CreatePartitionFile(dir, name string, subpartitions, regionBytes int) (*PartitionFile, error) {
	if subpartitions < 1 {
		return nil, fmt.Errorf("network: partition file %s: %d subpartitions", name, subpartitions)
	}
	if regionBytes <= 0 {
		regionBytes = defaultRegionBytes
	}
	f, err := createPartitionFiles(dir, name, subpartitions, regionBytes)
	if err != nil {
		return nil, err
	}
	return &PartitionFile{f: f}, nil
}

// Paths returns the data and index file paths.
func (p *PartitionFile) Paths() (data, index string) { return p.f.dataPath, p.f.indexPath }

// Add appends a data buffer to subpartition sub; the bytes are copied.
func (p *PartitionFile) Add(sub int, buf []byte) error {
	if sub < 0 || sub >= len(p.f.pending) {
		return fmt.Errorf("network: partition file %s has no subpartition %d", p.f.dataPath, sub)
	}
	return p.f.add(sub, Item{Buf: buf})
}

// Finish ends every subpartition, syncs the data and writes the index:
// the partition is complete once Finish returned nil.
func (p *PartitionFile) Finish() error {
	for sub := range p.f.pending {
		if err := p.f.add(sub, Item{Event: EndOfPartition{}}); err != nil {
			return err
		}
	}
	if err := p.f.finish(); err != nil {
		return err
	}
	p.finished = true
	return nil
}

// Remove closes and deletes the files, finished or not.
func (p *PartitionFile) Remove() error { return p.f.remove() }

// PartitionFileReader reads one subpartition of complete partition files,
// checking the index and every segment's CRC32C. Errors wrap
// ErrPartitionNotFound or ErrCorruptPartition.
type PartitionFileReader struct {
	r    *segmentReader
	file *os.File
}

// OpenPartitionFile opens subpartition sub of the partition whose files
// are dataPath and indexPath.
func OpenPartitionFile(dataPath, indexPath string, sub int) (*PartitionFileReader, error) {
	r, f, err := openSegmentReader(indexPath, dataPath, sub)
	if err != nil {
		return nil, err
	}
	r.reuse = true // Next's buffer is valid until the next call
	return &PartitionFileReader{r: r, file: f}, nil
}

// Next returns the next data buffer (valid until the next call); ok is
// false after the subpartition's EndOfPartition. A subpartition that ends
// without one is corrupt.
func (r *PartitionFileReader) Next() (buf []byte, ok bool, err error) {
	for {
		it, more, err := r.r.next()
		switch {
		case err != nil:
			return nil, false, err
		case !more:
			return nil, false, fmt.Errorf("%w: %s: subpartition %d ends without EndOfPartition", ErrCorruptPartition, r.r.name, r.r.sub)
		}
		switch it.Event.(type) {
		case nil:
			return it.Buf, true, nil
		case EndOfPartition:
			return nil, false, nil
		}
	}
}

// Close closes the data file.
func (r *PartitionFileReader) Close() error { return r.file.Close() }

// CheckPartitionFile checks that a partition's files exist and that its
// index is whole and consistent with the data file's size, without
// reading the data (segment checksums are checked as they are read).
func CheckPartitionFile(dataPath, indexPath string) error {
	r, err := OpenPartitionFile(dataPath, indexPath, 0)
	if err != nil {
		return err
	}
	return r.Close()
}
