package codec_test

import (
	"encoding/binary"
	"syscall"
	"testing"
	"time"

	"github.com/weir-engine/weir/internal/codec"
)

// BenchmarkShapes encodes and decodes each record shape with the codec
// (through a Slot, as the network writer and reader do) and with the
// hand-written encoding/binary code of the same format, so that the ratio
// of the two is the codec's overhead. The ratios are quoted in
// docs/benchmarks.md ("Codecs").
func BenchmarkShapes(b *testing.B) {
	benchShape(b, "scalars", sampleScalars, hwAppendScalars, hwDecodeScalars)
	benchShape(b, "rec4", Rec4{ID: 987654321, Name: "sensor-17", Score: 21.5, OK: true}, appendRec4, decodeRec4n)
	benchShape(b, "bid", sampleBid, hwAppendBid, hwDecodeBid)
	benchShape(b, "person", samplePerson, hwAppendPerson, hwDecodePerson)
	benchShape(b, "auction", sampleAuction, hwAppendAuction, hwDecodeAuction)
	benchShape(b, "string", sampleBid.URL, hwAppendStr, func(buf []byte) (string, int) {
		r := hw{buf: buf}
		s := r.str()
		return s, r.done()
	})
	benchShape(b, "bytes", []byte(sampleBid.URL), appendBytesHW, decodeBytesHW)
}

// decodeRec4n adapts decodeRec4 to the shape of the other decoders.
func decodeRec4n(buf []byte) (Rec4, int) {
	v, n, ok := decodeRec4(buf)
	if !ok {
		return v, 0
	}
	return v, n
}

func appendBytesHW(buf []byte, v []byte) []byte {
	if v == nil {
		return append(buf, 0)
	}
	return append(binary.AppendUvarint(buf, uint64(len(v))+1), v...)
}

func decodeBytesHW(buf []byte) ([]byte, int) {
	r := hw{buf: buf}
	l := r.uvarint()
	if r.bad || l == 0 {
		return nil, r.done()
	}
	if l-1 > uint64(len(buf)-r.n) {
		return nil, 0
	}
	v := make([]byte, l-1)
	copy(v, buf[r.n:])
	r.n += len(v)
	return v, r.done()
}

// benchBatch is how many records a decode benchmark decodes from one buffer,
// about what a 32 KiB network buffer holds of the Nexmark shapes.
const benchBatch = 256

// benchShape runs the encode and decode benchmarks of one shape. Decoding
// decodes benchBatch records from one buffer per iteration and reports
// ns/record; "batch" decodes them with a BatchDecoder, one Begin per buffer.
func benchShape[T any](b *testing.B, name string, v T, enc func([]byte, T) []byte, dec func([]byte) (T, int)) {
	c := mustFor[T](b)
	slot := codec.NewSlot(c)
	buf := make([]byte, 0, 1024)
	b.Run(name+"/encode/codec", func(b *testing.B) {
		cpu := startCPU()
		for b.Loop() {
			buf = slot.Append(buf[:0], v)
		}
		cpu.report(b, 1)
	})
	b.Run(name+"/encode/binary", func(b *testing.B) {
		cpu := startCPU()
		for b.Loop() {
			buf = enc(buf[:0], v)
		}
		cpu.report(b, 1)
	})
	var many []byte
	for range benchBatch {
		many = enc(many, v)
	}
	out := make([]T, benchBatch)
	decodeAll := func(b *testing.B, decode func([]byte) (T, int, error)) {
		b.ReportAllocs()
		cpu := startCPU()
		for b.Loop() {
			rest := many
			for i := range out {
				x, n, err := decode(rest)
				if err != nil || n == 0 {
					b.Fatalf("record %d: %v", i, err)
				}
				out[i], rest = x, rest[n:]
			}
		}
		b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*benchBatch), "ns/record")
		cpu.report(b, benchBatch)
	}
	b.Run(name+"/decode/codec", func(b *testing.B) { decodeAll(b, slot.Decode) })
	batch := codec.NewBatchDecoder(c)
	b.Run(name+"/decode/batch", func(b *testing.B) {
		decodeAll(b, func(buf []byte) (T, int, error) {
			if len(buf) == len(many) {
				batch.Begin(len(buf))
			}
			return batch.Decode(buf)
		})
	})
	b.Run(name+"/decode/binary", func(b *testing.B) {
		decodeAll(b, func(buf []byte) (T, int, error) {
			x, n := dec(buf)
			return x, n, nil
		})
	})
}

// cpuStart is the process's CPU time when a benchmark loop started. The
// machine the benchmarks run on is shared, so wall time per operation
// mostly measures the other processes; CPU time (user and system, all
// threads, so the garbage collector's work counts) is what the ratios in
// docs/benchmarks.md are computed from.
type cpuStart time.Duration

func startCPU() cpuStart { return cpuStart(processCPU()) }

// report adds the metric cpu-ns/op: CPU time per operation, an operation
// being perOp records.
func (c cpuStart) report(b *testing.B, perOp int) {
	b.ReportMetric(float64(processCPU()-time.Duration(c))/float64(b.N*perOp), "cpu-ns/op")
}

func processCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
