package postgres

import (
	"context"
	"testing"

	"github.com/jackc/pgx/v5"
)

// BenchmarkWrite compares the sink's COPY with the alternative it
// replaced: the same rows sent as batched INSERTs (pgx.Batch, one round
// trip per batch) in one transaction. Both commit every checkpointRows
// rows; ns/op is per row.
//
//	go test ./connector/postgres -run '^$' -bench Write
func BenchmarkWrite(b *testing.B) {
	const checkpointRows = 10_000
	dsn := shared.DSN

	b.Run("sink-copy", func(b *testing.B) {
		s := NewSink(options(dsn, newTable(b, dsn)))
		w := createWriter(b, s, sinkContext(newJobID(), 0, 1, 0))
		c := createCommitter(b, s)
		ctx := context.Background()
		var ckpt int64
		commit := func() {
			ckpt++
			cs, err := w.PrepareCommit(ctx, ckpt)
			if err == nil {
				err = c.Commit(ctx, cs)
			}
			if err != nil {
				b.Fatal(err)
			}
		}
		i := 0
		for b.Loop() {
			if err := w.Write(ctx, rec{Key: "k", Seq: int64(i)}); err != nil {
				b.Fatal(err)
			}
			if i++; i%checkpointRows == 0 {
				commit()
			}
		}
		commit()
	})

	b.Run("batched-insert", func(b *testing.B) {
		table := newTable(b, dsn)
		ctx := context.Background()
		conn, err := pgx.Connect(ctx, dsn)
		if err != nil {
			b.Fatal(err)
		}
		defer conn.Close(ctx)
		var tx pgx.Tx
		batch := &pgx.Batch{}
		flush := func(end bool) {
			if batch.Len() > 0 {
				if tx == nil {
					if tx, err = conn.Begin(ctx); err != nil {
						b.Fatal(err)
					}
				}
				if err := tx.SendBatch(ctx, batch).Close(); err != nil {
					b.Fatal(err)
				}
				batch = &pgx.Batch{}
			}
			if end && tx != nil {
				if err := tx.Commit(ctx); err != nil {
					b.Fatal(err)
				}
				tx = nil
			}
		}
		insert := "INSERT INTO " + table + " (key, seq, count) VALUES ($1, $2, $3)"
		i := 0
		for b.Loop() {
			batch.Queue(insert, recRow(rec{Key: "k", Seq: int64(i)})...)
			i++
			if batch.Len() == DefaultBatchSize {
				flush(i%checkpointRows == 0)
			}
		}
		flush(true)
	})
}
