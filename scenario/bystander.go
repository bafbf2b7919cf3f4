// The bystander: a task that makes an RTNL request at a fixed period while
// an experiment runs, and records how long its requests waited for RTNL and,
// when it listens, the notifications it received.

package scenario

import (
	"time"

	"github.com/netsimlab/netsim/rtnl"
	"github.com/netsimlab/netsim/sim"
)

// bystander is a task that makes one small rtnetlink request every period
// while an experiment runs — systemd-networkd renewing a DHCP lease, say —
// and records how long its requests waited for RTNL.
type bystander struct {
	task    *sim.Task
	done    bool // set by the experiment when it finishes
	maxWait time.Duration
	waits   int
	heard   []rtnl.Notification // what it received while it listened
	cancel  func()              // ends its subscription; nil when it does not listen
}

// spawnBystander starts a bystander in namespace n of kernel k, scheduled
// with the World's other spawned tasks. It stops at its first wake-up after
// stop is called.
func spawnBystander(k *rtnl.Kernel, n *rtnl.Net, period time.Duration) *bystander {
	b := &bystander{}
	b.task = k.World().Spawn("systemd-networkd", func(t *sim.Task) {
		h := n.Handle(t)
		for !b.done {
			t.Sleep(period)
			if b.done {
				return
			}
			before := t.LockWaitTime()
			_, _ = h.LinkByName("lo") // a request that needs RTNL
			if w := t.LockWaitTime() - before; w > 0 {
				b.waits++
				b.maxWait = max(b.maxWait, w)
			}
		}
	})
	return b
}

// listen subscribes the bystander to n's notifications, as
// systemd-networkd's rtnetlink socket is to the link, address, route and
// nexthop groups of its namespace, until stop.
func (b *bystander) listen(n *rtnl.Net) {
	b.cancel = n.Subscribe(func(m rtnl.Notification) { b.heard = append(b.heard, m) })
}

// stop ends the bystander's loop and its subscription.
func (b *bystander) stop() {
	b.done = true
	if b.cancel != nil {
		b.cancel()
		b.cancel = nil
	}
}
