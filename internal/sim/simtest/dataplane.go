package simtest

import (
	"fmt"
	"strings"
)

// dataPlane routes the tasks' data messages between TaskManagers: it
// knows where each subtask attempt runs (as partition discovery would)
// and holds the messages for a consumer not deployed yet, as a producer's
// result partition does until its consumer connects.
type dataPlane struct {
	c       *Cluster
	where   map[string]string // v/s@g -> TaskManager
	waiting map[string][]heldData
}

type heldData struct {
	from string
	msg  []byte
}

func (d *dataPlane) init(c *Cluster) {
	d.c, d.where, d.waiting = c, map[string]string{}, map[string][]heldData{}
}

// locate records that task runs on tm and sends what waited for it.
func (d *dataPlane) locate(task, tm string) {
	d.where[task] = tm
	held := d.waiting[task]
	delete(d.waiting, task)
	for _, h := range held {
		if from := d.c.TMs[h.from]; from.alive() {
			from.ep.SendData(tm, h.msg)
		}
	}
}

// send sends a data message from a task on TaskManager from to task to.
func (d *dataPlane) send(from, to string, fields []string) {
	msg := []byte(strings.Join(fields, " "))
	tm, ok := d.where[to]
	if !ok {
		d.waiting[to] = append(d.waiting[to], heldData{from, msg})
		return
	}
	d.c.TMs[from].ep.SendData(tm, msg)
}

// decodeData splits a data message into kind, producer, consumer and
// checkpoint id.
func decodeData(msg []byte) ([]string, error) {
	f := strings.Fields(string(msg))
	if len(f) != 4 {
		return nil, fmt.Errorf("simtest: a malformed data message %q", msg)
	}
	return f, nil
}
