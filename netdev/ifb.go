// Intermediate functional block devices: like a dummy, a device with no
// lower device and no link state, but with a transmit queue of its own
// (drivers/net/ifb.c).

package netdev

import "github.com/netsimlab/netsim/sim"

// ifbTxQueueLen is an ifb device's transmit queue length (TX_Q_LIMIT).
const ifbTxQueueLen = 32

var ifbOps = &linkOps{
	kind:      "ifb",
	operUp:    OperUnknown,
	setRxMode: func(*sim.Task, *Device) {},
	dellink:   queueSelf,
	qdisc:     "pfifo_fast",
	noSetAddr: true, // ifb_netdev_ops has no ndo_set_mac_address
}

// create builds an ifb device: IFF_BROADCAST and IFF_NOARP (no
// IFF_MULTICAST), a random address, MTU 1500 with no range check, a
// transmit queue of 32.
//
// Kernel: ifb_setup (drivers/net/ifb.c).
func (s IFB) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "ifb", nil)
	if err != nil {
		return nil, err
	}
	d, err := tb.newDevice(name, ifbOps, s.Attrs, FlagBroadcast|FlagNoARP, ethDataLen, 0, 0)
	if err != nil {
		return nil, err
	}
	if _, ok := s.Attrs.txQueueLen(); !ok {
		d.txqlen = ifbTxQueueLen
	}
	return []*Device{d}, nil
}
