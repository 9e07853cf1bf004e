package postgres

import (
	"context"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// committer runs COMMIT PREPARED. It keeps one connection, opened at the
// first Commit and opened again after the server went away, so a Commit
// that failed because the database was down succeeds when the runtime
// retries it after the database is back.
type committer struct {
	dsn   string
	table string
	conn  *pgx.Conn
}

// Commit commits each committable's prepared transaction. A gid that is
// no longer prepared was committed before (see the package doc) and counts
// as done, which makes Commit idempotent. It stops at the first other
// error; the runtime retries the whole list later.
func (c *committer) Commit(ctx context.Context, committables []Committable) error {
	for _, k := range committables {
		if err := c.commit(ctx, k); err != nil {
			return err
		}
	}
	return nil
}

func (c *committer) commit(ctx context.Context, k Committable) error {
	err := c.commitOnce(ctx, k)
	if err != nil && c.conn != nil && c.conn.IsClosed() {
		// The connection broke, perhaps long ago while idle (the server
		// restarted since the last checkpoint): try once on a new one.
		// Repeating COMMIT PREPARED is safe, whether or not the first
		// reached the server.
		c.conn = nil
		if retryErr := c.commitOnce(ctx, k); retryErr != nil {
			return c.errorf(k, "connection lost: %w; again on a new connection: %w", err, retryErr)
		}
		return nil
	}
	if err != nil {
		return c.errorf(k, "%w", err)
	}
	return nil
}

// commitOnce runs COMMIT PREPARED, connecting first if needed.
func (c *committer) commitOnce(ctx context.Context, k Committable) error {
	if c.conn != nil && c.conn.IsClosed() {
		c.conn = nil
	}
	if c.conn == nil {
		conn, err := connect(ctx, c.dsn, "weir-sink-committer")
		if err != nil {
			return fmt.Errorf("connect: %w", err)
		}
		c.conn = conn
	}
	_, err := c.conn.Exec(ctx, "COMMIT PREPARED "+quoteLiteral(k.TransactionID))
	if sqlState(err) == codeUndefinedObject {
		return c.gone(ctx, k)
	}
	return err
}

// gone decides about a committable whose gid is not prepared (any more).
// Only transactions prepared for a checkpoint that then completed become
// committables, and only this committer or the writer's recovery commit
// them, so a missing gid was committed by one of them. The transaction's
// xid, when known, confirms it: pg_xact_status says whether it committed
// or was rolled back (by an operator's ROLLBACK PREPARED, say); when the
// status is too old to know (NULL), the gid's absence is taken as commit.
func (c *committer) gone(ctx context.Context, k Committable) error {
	if k.XID == 0 {
		return nil
	}
	var status *string
	err := c.conn.QueryRow(ctx, "SELECT pg_xact_status($1::text::xid8)", strconv.FormatUint(k.XID, 10)).Scan(&status)
	switch {
	case err != nil:
		return fmt.Errorf("status of xid %d: %w", k.XID, err)
	case status == nil || *status == "committed":
		return nil
	case *status == "aborted":
		return fmt.Errorf("xid %d: %w", k.XID, ErrRolledBack)
	default: // "in progress": someone else is committing it right now
		return fmt.Errorf("xid %d is %s", k.XID, *status)
	}
}

func (c *committer) errorf(k Committable, format string, args ...any) error {
	return fmt.Errorf("postgres: commit %s (checkpoint %d, table %s): "+format,
		append([]any{k.TransactionID, k.CheckpointID, c.table}, args...)...)
}

// Close closes the connection.
func (c *committer) Close() error {
	if c.conn == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), closeTimeout)
	defer cancel()
	err := c.conn.Close(ctx)
	c.conn = nil
	if err != nil {
		return errors.Join(fmt.Errorf("postgres: close committer of table %s", c.table), err)
	}
	return nil
}
