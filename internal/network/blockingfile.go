package network

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"path/filepath"
)

// The on-disk format of a BLOCKING result partition (sort-merge style, see
// docs/format/blocking-partition.md): one data file of regions, each region
// holding the items of subpartition 0, then 1, ..., contiguous; and one
// index file naming, per region and subpartition, the segment's offset,
// length and CRC32C. The index is written last, after the data file was
// synced, and renamed into place: a partition whose index exists is whole.

// ErrCorruptPartition marks a blocking partition file that does not hold
// what its index or checksums say: truncated, damaged or not one.
var ErrCorruptPartition = errors.New("network: blocking partition file is corrupt")

// ErrPartitionNotFound marks a blocking partition whose files are gone.
var ErrPartitionNotFound = errors.New("network: blocking partition file is missing")

const (
	blockingMagic = "WEIRBP01"
	// indexEntrySize is offset (8), length (8) and CRC32C (4).
	indexEntrySize = 20
	// maxSegment bounds a segment's length, so that a damaged index
	// cannot make a reader allocate without limit.
	maxSegment = 1 << 30
)

// Item kinds in a segment.
const (
	itemData           byte = 0
	itemEndOfData      byte = 1
	itemEndOfPartition byte = 2
)

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// segment locates the items of one subpartition in one region.
type segment struct {
	off, length uint64
	crc         uint32
}

// blockingIndex is the parsed index file: regions[r][sub].
type blockingIndex struct {
	subpartitions int
	regions       [][]segment
}

// appendItem encodes it to a segment.
func appendItem(dst []byte, it Item) ([]byte, error) {
	switch it.Event.(type) {
	case nil:
		dst = append(dst, itemData)
		dst = binary.AppendUvarint(dst, uint64(len(it.Buf)))
		return append(dst, it.Buf...), nil
	case EndOfData:
		return append(dst, itemEndOfData), nil
	case EndOfPartition:
		return append(dst, itemEndOfPartition), nil
	}
	return dst, fmt.Errorf("network: event %T cannot be written to a blocking partition", it.Event)
}

// parseItem decodes the item at the start of b and returns the bytes
// after it; a data item's buffer aliases b.
func parseItem(b []byte) (Item, []byte, error) {
	if len(b) == 0 {
		return Item{}, nil, fmt.Errorf("%w: empty item", ErrCorruptPartition)
	}
	switch b[0] {
	case itemData:
		n, k := binary.Uvarint(b[1:])
		if k <= 0 || n > uint64(len(b)-1-k) {
			return Item{}, nil, fmt.Errorf("%w: bad data item length", ErrCorruptPartition)
		}
		start := 1 + k
		return Item{Buf: b[start : start+int(n) : start+int(n)]}, b[start+int(n):], nil
	case itemEndOfData:
		return Item{Event: EndOfData{}}, b[1:], nil
	case itemEndOfPartition:
		return Item{Event: EndOfPartition{}}, b[1:], nil
	}
	return Item{}, nil, fmt.Errorf("%w: unknown item kind %d", ErrCorruptPartition, b[0])
}

// marshalIndex encodes an index with its trailing CRC32C.
func marshalIndex(idx *blockingIndex) []byte {
	b := append([]byte(nil), blockingMagic...)
	b = binary.LittleEndian.AppendUint32(b, uint32(idx.subpartitions))
	b = binary.LittleEndian.AppendUint32(b, uint32(len(idx.regions)))
	for _, r := range idx.regions {
		for _, s := range r {
			b = binary.LittleEndian.AppendUint64(b, s.off)
			b = binary.LittleEndian.AppendUint64(b, s.length)
			b = binary.LittleEndian.AppendUint32(b, s.crc)
		}
	}
	return binary.LittleEndian.AppendUint32(b, crc32.Checksum(b, castagnoli))
}

// parseIndex decodes and checks an index for a data file of dataSize
// bytes: its checksum, that every segment lies in the data file, and
// that the segments end where the data file ends. The writer lays the
// segments end to end from offset 0, so a complete data file is exactly
// as long as its index says: one of another size was cut short or written
// to since (os.Truncate past the end grows a file with zeros), and is
// corrupt even where the bytes the index names are still whole.
func parseIndex(b []byte, dataSize int64) (*blockingIndex, error) {
	const header = len(blockingMagic) + 8
	if len(b) < header+4 || string(b[:len(blockingMagic)]) != blockingMagic {
		return nil, fmt.Errorf("%w: index has no header", ErrCorruptPartition)
	}
	body, sum := b[:len(b)-4], binary.LittleEndian.Uint32(b[len(b)-4:])
	if crc32.Checksum(body, castagnoli) != sum {
		return nil, fmt.Errorf("%w: index checksum mismatch", ErrCorruptPartition)
	}
	subs := binary.LittleEndian.Uint32(b[len(blockingMagic):])
	regions := binary.LittleEndian.Uint32(b[len(blockingMagic)+4:])
	if uint64(len(body)-header) != uint64(subs)*uint64(regions)*indexEntrySize {
		return nil, fmt.Errorf("%w: index of %d regions x %d subpartitions has %d bytes", ErrCorruptPartition, regions, subs, len(body))
	}
	idx := &blockingIndex{subpartitions: int(subs), regions: make([][]segment, regions)}
	p := body[header:]
	var end uint64
	for r := range idx.regions {
		idx.regions[r] = make([]segment, subs)
		for s := range idx.regions[r] {
			seg := segment{
				off:    binary.LittleEndian.Uint64(p),
				length: binary.LittleEndian.Uint64(p[8:]),
				crc:    binary.LittleEndian.Uint32(p[16:]),
			}
			p = p[indexEntrySize:]
			if seg.length > maxSegment || seg.off > uint64(dataSize) || seg.length > uint64(dataSize)-seg.off {
				return nil, fmt.Errorf("%w: segment %d of region %d at [%d, +%d) is outside the data file of %d bytes",
					ErrCorruptPartition, s, r, seg.off, seg.length, dataSize)
			}
			idx.regions[r][s] = seg
			end = max(end, seg.off+seg.length)
		}
	}
	if end != uint64(dataSize) {
		return nil, fmt.Errorf("%w: the index's segments end at byte %d of a data file of %d bytes",
			ErrCorruptPartition, end, dataSize)
	}
	return idx, nil
}

// segmentReader reads the items of one subpartition, region by region,
// checking each segment's CRC32C before parsing it.
type segmentReader struct {
	data   io.ReaderAt
	idx    *blockingIndex
	sub    int
	region int
	rest   []byte
	name   string
	// reuse lets the reader read each segment into the buffer of the
	// previous one: for readers whose items do not outlive the next call.
	reuse bool
	buf   []byte
}

// next returns the next item; ok is false after the last.
func (r *segmentReader) next() (it Item, ok bool, err error) {
	for len(r.rest) == 0 {
		if r.region == len(r.idx.regions) {
			return Item{}, false, nil
		}
		seg := r.idx.regions[r.region][r.sub]
		r.region++
		if seg.length == 0 {
			continue
		}
		var buf []byte
		if r.reuse && uint64(cap(r.buf)) >= seg.length {
			buf = r.buf[:seg.length]
		} else {
			buf = make([]byte, seg.length)
			if r.reuse {
				r.buf = buf
			}
		}
		if _, err := r.data.ReadAt(buf, int64(seg.off)); err != nil {
			return Item{}, false, fmt.Errorf("%w: %s: read region %d: %w", ErrCorruptPartition, r.name, r.region-1, err)
		}
		if crc32.Checksum(buf, castagnoli) != seg.crc {
			return Item{}, false, fmt.Errorf("%w: %s: checksum mismatch in region %d of subpartition %d", ErrCorruptPartition, r.name, r.region-1, r.sub)
		}
		r.rest = buf
	}
	it, r.rest, err = parseItem(r.rest)
	if err != nil {
		return Item{}, false, fmt.Errorf("%s: region %d of subpartition %d: %w", r.name, r.region-1, r.sub, err)
	}
	return it, true, nil
}

// partitionFiles writes a blocking partition: regions of per-subpartition
// buffers, spilled when they hold regionBytes.
type partitionFiles struct {
	dataPath, indexPath string
	data                *os.File
	w                   *bufio.Writer
	off                 uint64
	pending             [][]byte
	pendingBytes        int
	regionBytes         int
	idx                 blockingIndex
}

func createPartitionFiles(dir, name string, subpartitions, regionBytes int) (*partitionFiles, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("network: blocking partition directory: %w", err)
	}
	f := &partitionFiles{
		dataPath:    filepath.Join(dir, name+".data"),
		indexPath:   filepath.Join(dir, name+".index"),
		pending:     make([][]byte, subpartitions),
		regionBytes: regionBytes,
		idx:         blockingIndex{subpartitions: subpartitions},
	}
	var err error
	if f.data, err = os.OpenFile(f.dataPath, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o644); err != nil {
		return nil, fmt.Errorf("network: create blocking partition: %w", err)
	}
	f.w = bufio.NewWriterSize(f.data, 1<<20)
	return f, nil
}

// add appends an item to subpartition sub's part of the current region.
func (f *partitionFiles) add(sub int, it Item) error {
	before := len(f.pending[sub])
	var err error
	if f.pending[sub], err = appendItem(f.pending[sub], it); err != nil {
		return err
	}
	f.pendingBytes += len(f.pending[sub]) - before
	if f.pendingBytes >= f.regionBytes {
		return f.spillRegion()
	}
	return nil
}

// spillRegion writes the pending segments as one region.
func (f *partitionFiles) spillRegion() error {
	if f.pendingBytes == 0 {
		return nil
	}
	region := make([]segment, len(f.pending))
	for s, b := range f.pending {
		region[s] = segment{off: f.off, length: uint64(len(b)), crc: crc32.Checksum(b, castagnoli)}
		if _, err := f.w.Write(b); err != nil {
			return fmt.Errorf("network: write blocking partition %s: %w", f.dataPath, err)
		}
		f.off += uint64(len(b))
		f.pending[s] = b[:0]
	}
	f.idx.regions = append(f.idx.regions, region)
	f.pendingBytes = 0
	return nil
}

// finish writes the last region, syncs the data file, then writes, syncs
// and renames the index into place.
func (f *partitionFiles) finish() error {
	err := f.spillRegion()
	if err == nil {
		err = f.w.Flush()
	}
	if err == nil {
		err = f.data.Sync()
	}
	if cerr := f.data.Close(); err == nil {
		err = cerr
	}
	f.data = nil
	if err != nil {
		return fmt.Errorf("network: finish blocking partition %s: %w", f.dataPath, err)
	}
	f.pending = nil
	if err := writeFileSynced(f.indexPath, marshalIndex(&f.idx)); err != nil {
		return fmt.Errorf("network: write blocking partition index: %w", err)
	}
	return nil
}

// abort closes the data file, if open, and removes both files.
func (f *partitionFiles) remove() error {
	if f.data != nil {
		_ = f.data.Close()
		f.data = nil
	}
	var errs []error
	for _, p := range []string{f.dataPath, f.indexPath} {
		if err := os.Remove(p); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// openSegmentReader opens the reader of subpartition sub of finished
// partition files.
func openSegmentReader(indexPath, dataPath string, sub int) (*segmentReader, *os.File, error) {
	ib, err := os.ReadFile(indexPath)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: read the index: %w", ErrPartitionNotFound, err)
	}
	data, err := os.Open(dataPath)
	if err != nil {
		return nil, nil, fmt.Errorf("%w: %w", ErrPartitionNotFound, err)
	}
	fi, err := data.Stat()
	if err != nil {
		data.Close()
		return nil, nil, fmt.Errorf("network: open blocking partition: %w", err)
	}
	idx, err := parseIndex(ib, fi.Size())
	if err != nil {
		data.Close()
		return nil, nil, fmt.Errorf("%s: %w", indexPath, err)
	}
	if sub < 0 || sub >= idx.subpartitions {
		data.Close()
		return nil, nil, fmt.Errorf("network: blocking partition %s has no subpartition %d", dataPath, sub)
	}
	return &segmentReader{data: data, idx: idx, sub: sub, name: dataPath}, data, nil
}

// writeFileSynced writes path through a synced temporary file renamed
// into place, then syncs the directory.
func writeFileSynced(path string, b []byte) error {
	tmp := path + ".tmp"
	f, err := os.OpenFile(tmp, os.O_CREATE|os.O_TRUNC|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	_, err = f.Write(b)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		_ = os.Remove(tmp)
		return err
	}
	d, err := os.Open(filepath.Dir(path))
	if err != nil {
		return err
	}
	err = d.Sync()
	return errors.Join(err, d.Close())
}
