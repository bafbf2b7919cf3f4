// Values only a netlink message carries: the carrier bit IFLA_CARRIER
// reports (netif_carrier_ok, include/linux/netdevice.h) and an address's
// IFA_CACHEINFO time stamps (ifa_tstamp, ifa_cstamp).

package netdev

import "github.com/netsimlab/netsim/sim"

// CarrierOK reports the kernel's carrier bit of the device, what
// IFLA_CARRIER reports: unlike Carrier, a veth's is clear while it is
// down.
//
// Kernel: netif_carrier_ok (include/linux/netdevice.h).
func (d *Device) CarrierOK() bool { return d.kcarrier }

// Stamp returns when the address's lifetimes were last set (ifa_tstamp),
// which IFA_CACHEINFO reports.
func (a Addr) Stamp() sim.Time { return a.tstamp }

// Created returns when the address was made (ifa_cstamp), which
// IFA_CACHEINFO reports beside Stamp; a replace or a change of lifetimes
// leaves it.
func (a Addr) Created() sim.Time { return a.cstamp }
