// Device events: the rules whose IIF or OIF names a device attach to it
// when it registers or takes that name and detach when it goes
// (fib_rules_event, attach_rules, detach_rules in net/core/fib_rules.c).

package fibrules

import (
	"github.com/netsimlab/netsim/netdev"
	"github.com/netsimlab/netsim/sim"
)

// NetdevEvent attaches rules to a device registered or renamed under their
// IIF/OIF name and detaches them (index -1) from a device unregistered or
// renamed away. The caller holds RTNL; under LockPerOps the event also
// takes the ops lock, so that a rule added meanwhile without RTNL either
// sees the device by name or is in the list when the event walks it.
//
// Kernel: fib_rules_event, attach_rules, detach_rules (net/core/fib_rules.c).
func (o *Ops) NetdevEvent(t *sim.Task, ev netdev.Event, dev *netdev.Device) error {
	defer t.Frame("fib_rules_event")()
	if ev != netdev.EventRegister && ev != netdev.EventChangeName && ev != netdev.EventUnregister {
		return nil
	}
	if o.lock != nil {
		o.lock.Lock(t)
		defer o.lock.Unlock(t)
	}
	switch ev {
	case netdev.EventRegister:
		t.Charge(sim.RuleScan, o.attach(dev))
	case netdev.EventChangeName:
		t.Charge(sim.RuleScan, o.detach(dev)+o.attach(dev))
	case netdev.EventUnregister:
		t.Charge(sim.RuleScan, o.detach(dev))
	}
	return nil
}

func (o *Ops) attach(dev *netdev.Device) int64 {
	var n int64
	for x := o.first(); x != nil; x = x.next.Load() {
		n++
		if x.iif.Load() == -1 && x.opts.IIF == dev.Name() {
			x.iif.Store(int32(dev.Index()))
		}
		if x.oif.Load() == -1 && x.opts.OIF == dev.Name() {
			x.oif.Store(int32(dev.Index()))
		}
	}
	return n
}

func (o *Ops) detach(dev *netdev.Device) int64 {
	var n int64
	for x := o.first(); x != nil; x = x.next.Load() {
		n++
		if x.iif.Load() == int32(dev.Index()) {
			x.iif.Store(-1)
		}
		if x.oif.Load() == int32(dev.Index()) {
			x.oif.Store(-1)
		}
	}
	return n
}
