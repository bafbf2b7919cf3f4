// What rtnl_fill_ifinfo reports of a device beside its own state: the
// hardware type, queues, segmentation limits, statistics and per-kind
// defaults that `ip -d -s link show` prints. Kernel: rtnl_fill_ifinfo
// (net/core/rtnetlink.c), veth_get_num_queues (drivers/net/veth.c),
// macvlan_fill_info (drivers/net/macvlan.c), vlan_fill_info
// (net/8021q/vlan_netlink.c), inet6_fill_link_af (net/ipv6/addrconf.c).

package rtnl

import "github.com/netsimlab/netsim/netdev"

// LinkStats is a device's traffic counters (struct rtnl_link_stats64, sent
// as IFLA_STATS64). netsim moves no packets, so every counter is zero; the
// type is here so that a dump has the value the kernel sends and the
// printer has the fields `ip -s` prints.
type LinkStats struct {
	RxPackets, TxPackets uint64 // rx_packets, tx_packets
	RxBytes, TxBytes     uint64 // rx_bytes, tx_bytes
	RxErrors, TxErrors   uint64 // rx_errors, tx_errors
	RxDropped, TxDropped uint64 // rx_dropped, tx_dropped
	Multicast            uint64 // multicast
	Collisions           uint64 // collisions

	RxLengthErrors, RxOverErrors, RxCRCErrors   uint64 // rx_length_errors, rx_over_errors, rx_crc_errors
	RxFrameErrors, RxFIFOErrors, RxMissedErrors uint64 // rx_frame_errors, rx_fifo_errors, rx_missed_errors

	TxAbortedErrors, TxCarrierErrors, TxFIFOErrors uint64 // tx_aborted_errors, tx_carrier_errors, tx_fifo_errors
	TxHeartbeatErrors, TxWindowErrors              uint64 // tx_heartbeat_errors, tx_window_errors

	RxCompressed, TxCompressed uint64 // rx_compressed, tx_compressed
	RxNoHandler                uint64 // rx_nohandler
	RxOtherhostDropped         uint64 // rx_otherhost_dropped
}

// Hardware types (ifi_type) of the devices netsim has.
const (
	ARPHRDEther    = 1   // ARPHRD_ETHER
	ARPHRDLoopback = 772 // ARPHRD_LOOPBACK
)

// IPv6 address generation modes (IFLA_INET6_ADDR_GEN_MODE).
const (
	AddrGenModeEUI64         = 0 // IN6_ADDR_GEN_MODE_EUI64, a new device's
	AddrGenModeNone          = 1 // IN6_ADDR_GEN_MODE_NONE
	AddrGenModeStablePrivacy = 2 // IN6_ADDR_GEN_MODE_STABLE_PRIVACY
	AddrGenModeRandom        = 3 // IN6_ADDR_GEN_MODE_RANDOM
)

// Segmentation and aggregation limits every device of netsim reports:
// GSO_LEGACY_MAX_SIZE, GSO_MAX_SEGS, TSO_MAX_SIZE, TSO_MAX_SEGS and a GRO
// limit equal to the GSO one (netif_set_tso_max_size and friends keep
// these for software devices, and stacked devices inherit them from their
// lower device).
const (
	gsoMaxSize = 65536
	gsoMaxSegs = 65535
	tsoMaxSegs = 65535
	groMaxSize = 65536
)

// possibleCPUs is num_possible_cpus() of the simulated machine, which
// sizes a veth's queues: the two CPUs of the machine netsim's transcripts
// were recorded on. It is not the world's virtual CPUs, which model the
// CPUs that run tasks (one unless a world asks for more).
const possibleCPUs = 2

// bondTxQueues is BOND_DEFAULT_TX_QUEUES, the tx_queues module parameter's
// default, which sizes both queue sets of a bond.
const bondTxQueues = 16

// fillDetails adds to li what `ip -d -s link show` prints beside the
// device's own state: the hardware type, the queues a kind allocates, the
// segmentation limits (a bridge's from its ports once it had one), the
// IPv6 address generation mode, the statistics (zero) and the per-kind
// values netsim keeps at the kernel's defaults.
//
// Kernel: rtnl_fill_ifinfo (net/core/rtnetlink.c): IFLA_NUM_TX_QUEUES and
// IFLA_NUM_RX_QUEUES as rtnl_create_link chose them (veth_get_num_queues:
// num_possible_cpus(); bond_get_num_tx_queues for both: tx_queues), IFLA_GSO_*,
// IFLA_TSO_*, IFLA_GRO_MAX_SIZE; inet6_fill_link_af (IFLA_INET6_ADDR_GEN_MODE);
// netdev.Device.MacvlanInfo and VlanInfo for the macvlan's queue lengths
// and the vlan's flags.
func fillDetails(li *LinkInfo, d *netdev.Device) {
	li.Type = ARPHRDEther
	if li.Flags&netdev.FlagLoopback != 0 {
		li.Type = ARPHRDLoopback
	}
	li.NumTxQueues, li.NumRxQueues = 1, 1
	switch li.Kind {
	case "veth":
		li.NumTxQueues, li.NumRxQueues = possibleCPUs, possibleCPUs
	case "bond":
		li.NumTxQueues, li.NumRxQueues = bondTxQueues, bondTxQueues
	}
	if m := li.Macvlan; m != nil {
		li.MacvlanBcQueueLen, li.MacvlanBcQueueLenUsed = m.BcQueueLen, m.BcQueueLenUsed
	}
	if v := li.Vlan; v != nil {
		li.VlanFlags = v.Flags
	}
	li.GSOMaxSize, li.GSOMaxSegs = gsoMaxSize, gsoMaxSegs
	li.TSOMaxSize, li.TSOMaxSegs = d.TSOMaxSize(), tsoMaxSegs
	li.GROMaxSize = groMaxSize
	li.AddrGenMode = AddrGenModeEUI64
	_, li.Inet6 = d.IPv6Conf()
}
