// Dummy devices: a device with no lower device and no link state
// (drivers/net/dummy.c).

package netdev

import "github.com/netsimlab/netsim/sim"

var dummyOps = &linkOps{
	kind:      "dummy",
	operUp:    OperUnknown,
	setRxMode: func(*sim.Task, *Device) {},
	dellink:   queueSelf,
}

func (s Dummy) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "dummy", nil)
	if err != nil {
		return nil, err
	}
	d, err := tb.newDevice(name, dummyOps, s.Attrs, FlagBroadcast|FlagNoARP, ethDataLen, 0, 0)
	if err != nil {
		return nil, err
	}
	return []*Device{d}, nil
}
