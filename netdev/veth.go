// veth pairs: two devices tied to each other, created and deleted together,
// with carrier on both ends only while both are up (drivers/net/veth.c).

package netdev

import (
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

var vethOps = &linkOps{
	kind:      "veth",
	operUp:    OperUp,
	setRxMode: func(*sim.Task, *Device) {},
	// veth_dellink: deleting either end unregisters both, untied first:
	// from then on neither has a peer (its iflink is 0).
	dellink: func(_ *sim.Task, d *Device, q *[]*Device) {
		p := d.peer
		d.peer = nil
		*q = append(*q, d)
		if p != nil {
			p.peer = nil
			if p.state == regRegistered {
				*q = append(*q, p)
			}
		}
	},
	// veth_open / veth_close: carrier on both ends only while both are up.
	carrierOf: func(d *Device) bool { return d.peer != nil && d.peer.IsUp() },
	uninit: func(_ *sim.Task, d *Device) {
		if d.peer != nil {
			d.peer.peer = nil
		}
	},
}

// vethValidate refuses an MTU outside 68..65535 with a bare EINVAL.
//
// Kernel: veth_validate / is_valid_veth_mtu (drivers/net/veth.c).
func vethValidate(a Attrs) error {
	if mtu, ok := a.mtu(); ok && (mtu < ethMinMTU || mtu > ethMaxMTU) {
		return errno.New(syscall.EINVAL, "")
	}
	return nil
}

func (s Veth) validate(*Table) error { return vethValidate(s.Attrs) }

func (s Veth) create(t *sim.Task, tb *Table) ([]*Device, error) {
	// veth_newlink validates the peer's attributes as the request's,
	// then names, addresses and registers the peer first.
	if err := vethValidate(s.PeerAttrs); err != nil {
		return nil, err
	}
	ptb := tb
	if s.PeerTable != nil {
		ptb = s.PeerTable
	}
	peerName, err := ptb.checkLinkName(s.Peer, "veth", nil)
	if err != nil {
		return nil, err
	}
	var taken map[string]bool
	if ptb == tb {
		taken = map[string]bool{peerName: true}
	}
	name, err := tb.checkLinkName(s.Name, "veth", taken)
	if err != nil {
		return nil, err
	}
	if ptb == tb && peerName == name {
		return nil, errno.Errorf(syscall.EEXIST, "Device \"%s\" already exists", name)
	}
	if ptb == tb && s.Index != 0 && s.Index == s.PeerAttrs.Index {
		return nil, errno.Errorf(syscall.EBUSY, "ifindex %d is in use", s.Index)
	}
	b, err := tb.newDevice(peerName, vethOps, s.PeerAttrs, FlagBroadcast|FlagMulticast, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	a, err := tb.newDevice(name, vethOps, s.Attrs, FlagBroadcast|FlagMulticast, ethDataLen, ethMinMTU, ethMaxMTU)
	if err != nil {
		return nil, err
	}
	if s.PeerUp {
		// veth_newlink configures the peer (rtnl_configure_link) once it
		// is registered and before the pair is tied: veth_open finds no
		// peer, and the peer is unregistered, unannounced. Registering
		// it took the next ifindex, which stays spent; a requested one
		// in use fails the registration first.
		if want := s.PeerAttrs.Index; want > 0 {
			if ptb.byIndex[want] != nil {
				return nil, errno.Errorf(syscall.EBUSY, "ifindex %d is in use", want)
			}
		} else if want == 0 {
			if _, err := ptb.newIndex(); err != nil {
				return nil, err
			}
		}
		return nil, errno.New(syscall.ENOTCONN, "")
	}
	a.priv.wantIndex, b.priv.wantIndex = s.Index, s.PeerAttrs.Index
	if ptb != tb {
		b.priv.regTable = ptb
	}
	// veth_newlink registers the peer first; tie joins them afterwards.
	return []*Device{b, a}, nil
}

// tie makes the two ends of a new pair each other's peer, once both are
// registered: the peer, announced as soon as it was registered, had none
// then (its iflink was 0).
//
// Kernel: veth_newlink (drivers/net/veth.c) sets priv->peer of both ends
// after register_netdevice(dev).
func (Veth) tie(devs []*Device) {
	b, a := devs[0], devs[1]
	a.peer, b.peer = b, a
}
