// VRF devices: L3 master devices bound to a routing table, their slaves
// enslaved and released (drivers/net/vrf.c).

package netdev

import (
	"slices"
	"syscall"

	"github.com/netsimlab/netsim/errno"
	"github.com/netsimlab/netsim/sim"
)

var vrfOps = &linkOps{
	kind:       "vrf",
	operUp:     OperUp,
	l3mdev:     true,
	setRxMode:  func(*sim.Task, *Device) {},
	addSlave:   vrfAddSlave,
	checkSlave: vrfCheckSlave,
	delSlave:   func(t *sim.Task, vrf, port *Device) error { return vrfRelease(t, vrf, port, true) },
	// vrf_dellink: release every port (cycling it), then unregister.
	dellink: func(t *sim.Task, d *Device, q *[]*Device) {
		vrfReleaseAll(t, d)
		*q = append(*q, d)
	},
	uninit: vrfReleaseAll,
}

// vrfReleaseAll releases every port of vrf without vrf_del_slave's grace
// period, as vrf_dellink does.
func vrfReleaseAll(t *sim.Task, vrf *Device) {
	for len(vrf.slaves) > 0 {
		_ = vrfRelease(t, vrf, vrf.slaves[0], false)
	}
}

// VRFMTU is a vrf device's MTU (64 KiB plus the IPv6 header, IP6_MAX_MTU).
const VRFMTU = 65575

func (s VRF) create(t *sim.Task, tb *Table) ([]*Device, error) {
	name, err := tb.checkLinkName(s.Name, "vrf", nil)
	if err != nil {
		return nil, err
	}
	if s.Table == 0 {
		return nil, errno.New(syscall.EINVAL, "Invalid VRF table id")
	}
	d, err := tb.newDevice(name, vrfOps, s.Attrs, FlagNoARP|FlagMaster, VRFMTU, 1280, VRFMTU)
	if err != nil {
		return nil, err
	}
	d.priv.vrfTable = s.Table
	return []*Device{d}, nil
}

// vrfAddSlave enslaves port to vrf.
//
// Kernel: do_vrf_add_slave (drivers/net/vrf.c): link as master, then
// cycle_netdev — down and up again if it was up, so that addresses and
// routes move to the VRF's table.
func vrfAddSlave(t *sim.Task, vrf, port *Device) error {
	if err := vrfCheckSlave(vrf, port); err != nil {
		return err
	}
	if err := port.masterUpperLink(t, vrf); err != nil {
		return err
	}
	vrf.slaves = append(vrf.slaves, port)
	port.cycle(t)
	return nil
}

// vrfCheckSlave is vrf_add_slave's refusals.
func vrfCheckSlave(vrf, port *Device) error {
	if port.isL3Master() {
		return errno.New(syscall.EINVAL, "Can not enslave an L3 master device to a VRF")
	}
	if port.isLoopback() {
		return errno.New(syscall.EOPNOTSUPP, "Can not enslave loopback device to a VRF")
	}
	return nil
}

// vrfRelease releases port from vrf; sync adds the grace period that
// vrf_del_slave waits for (vrf_dellink and port unregistration skip it).
//
// Kernel: do_vrf_del_slave (drivers/net/vrf.c): unlink, synchronize_net,
// then cycle_netdev.
func vrfRelease(t *sim.Task, vrf, port *Device, sync bool) error {
	if port.master != vrf {
		return errno.Errorf(syscall.EINVAL, "Device \"%s\" is not a slave of \"%s\"", port.name, vrf.name)
	}
	port.masterUpperUnlink(t)
	vrf.slaves = slices.DeleteFunc(vrf.slaves, func(s *Device) bool { return s == port })
	if sync {
		vrf.tbl.s.w.RCU().SynchronizeExpedited(t)
	}
	if port.state == regRegistered {
		port.cycle(t)
	}
	return nil
}

// cycle takes an up device down and up again.
//
// Kernel: cycle_netdev (drivers/net/vrf.c).
func (d *Device) cycle(t *sim.Task) {
	if !d.IsUp() {
		return
	}
	// One linkwatch run after both: a carrier change queued by the close
	// keeps its place (linkwatch_add_event).
	d.tbl.s.linkwatchHold()
	defer d.tbl.s.linkwatchRelease(t)
	_ = d.SetUp(t, false)
	_ = d.SetUp(t, true)
}
